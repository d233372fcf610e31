/**
 * An in-memory `FileSystem.FileSystem` for tests, close to Node's semantics.
 *
 * - Paths are POSIX; relative paths resolve against `/`.
 * - Symlinks are real: `stat`, `readFile`, `writeFile`, `realPath` … follow them through every path
 *   component (`..` after a link goes to the link target's parent, as the kernel does); `lstat`,
 *   `readLink`, `remove` and `rename` act on the link itself. More than 40 hops fail like ELOOP.
 * - Times come from the Effect `Clock` at the moment of each operation, so `TestClock` drives mtimes.
 * - `writeFile` does NOT create missing parent directories (Node does not either): tools under test
 *   must `makeDirectory(dir, { recursive: true })` first, or they would fail on a real disk.
 * - Errors are `PlatformError` system errors with Node's reason mapping: ENOENT → NotFound,
 *   EEXIST → AlreadyExists, EISDIR/ENOTDIR/ELOOP/EBADF → BadResource, EINVAL/ENOTEMPTY → Unknown,
 *   `remove` of a directory without `recursive` → Unknown (ERR_FS_EISDIR). `cause` carries `{ code }`
 *   (e.g. `"ELOOP"`, `"ENOTDIR"`) like Node's errno exception, so callers can tell them apart.
 *   test/MemoryFileSystemParity.test.ts runs the same operations against Node and compares.
 * - Not modelled: permission checks, `watch` (fails NotFound), uid/gid beyond `chown` bookkeeping.
 *
 * @example
 * ```ts
 * MemoryFileSystem.layer({ "/ws/a.ts": "export {}\n" })
 * MemoryFileSystem.layer({
 *   files: { "/ws/a.ts": "x" },
 *   symlinks: { "/ws/link": "/outside" },        // path → target (stored verbatim, may dangle)
 *   directories: ["/outside", "/ws/empty"]
 * })
 * ```
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as PlatformError from "effect/PlatformError"
import { makeFile } from "./internal/memoryFile.ts"
import { contents, dirname, fail, info, makeTree, resize, run, type FileNode, type Tree } from "./internal/memoryTree.ts"

/** Initial contents, when symlinks or empty directories are needed too. */
export interface Init {
  readonly files?: Record<string, string | Uint8Array> | undefined
  /** link path → target, stored verbatim (relative targets resolve against the link's directory). */
  readonly symlinks?: Record<string, string> | undefined
  readonly directories?: ReadonlyArray<string> | undefined
}

// File paths start with "/" in practice, so a bare `files`/`symlinks`/`directories` key holding an object is an Init.
const isInit = (u: Init | Record<string, string | Uint8Array>): u is Init =>
  ["files", "symlinks", "directories"].some((k) => {
    const v: unknown = (u as Record<string, unknown>)[k]
    return v !== undefined && typeof v === "object" && !(v instanceof Uint8Array)
  })

const encoder = new TextEncoder()

/**
 * Builds the file system. Mtimes of the initial entries are the Clock's time at build.
 */
export const make = (
  initial: Record<string, string | Uint8Array> | Init = {}
): Effect.Effect<FileSystem.FileSystem> =>
  Effect.map(Clock.currentTimeMillis, (t0) => {
    const init: Init = isInit(initial) ? initial : { files: initial as Record<string, string | Uint8Array> }
    const tree = makeTree(t0)
    for (const dir of init.directories ?? []) tree.mkdirp("makeDirectory", dir, t0)
    for (const [p, content] of Object.entries(init.files ?? {})) {
      tree.mkdirp("makeDirectory", dirname(p), t0)
      tree.writeBytes("writeFile", p, typeof content === "string" ? encoder.encode(content) : content.slice(), t0, {})
    }
    for (const [p, target] of Object.entries(init.symlinks ?? {})) {
      tree.mkdirp("makeDirectory", dirname(p), t0)
      tree.symlink("symlink", target, p, t0)
    }
    return build(tree)
  })

/** `layer(files)` or `layer({ files, symlinks, directories })`. */
export const layer = (initial: Record<string, string | Uint8Array> | Init = {}): Layer.Layer<FileSystem.FileSystem> =>
  Layer.effect(FileSystem.FileSystem, make(initial))

const toMillis = (t: Date | number) => (typeof t === "number" ? t * 1000 : t.getTime()) // Node: numbers are seconds

const build = (tree: Tree): FileSystem.FileSystem => {
  let tempCounter = 0
  const tempName = (method: string, directory: string | undefined, prefix: string | undefined, now: number) => {
    const dir = directory ?? "/tmp"
    if (directory === undefined) tree.mkdirp(method, dir, now)
    for (;;) {
      const candidate = `${dir === "/" ? "" : dir}/${prefix ?? ""}${(tempCounter++).toString(36).padStart(6, "0")}`
      if (tree.lookup(method, candidate, false).node === undefined) return candidate
    }
  }

  const makeTempDirectory = (options?: { readonly directory?: string | undefined; readonly prefix?: string | undefined }) =>
    run((now) => {
      const p = tempName("makeTempDirectory", options?.directory, options?.prefix, now)
      tree.mkdir("makeTempDirectory", p, now, 0o700)
      return p
    })

  const makeTempFile = (options?: {
    readonly directory?: string | undefined
    readonly prefix?: string | undefined
    readonly suffix?: string | undefined
  }) =>
    run((now) => {
      const dir = tempName("makeTempFile", options?.directory, options?.prefix, now)
      tree.mkdir("makeTempFile", dir, now, 0o700)
      const file = `${dir}/${(tempCounter++).toString(36).padStart(6, "0")}${options?.suffix ?? ""}`
      tree.writeBytes("makeTempFile", file, new Uint8Array(0), now, {})
      return file
    })

  const remove = (path: string, options?: { readonly recursive?: boolean | undefined; readonly force?: boolean | undefined }) =>
    run((now) => tree.remove("remove", path, now, options?.recursive ?? false, options?.force ?? false))

  const removeOnRelease = (p: string) => Effect.orDie(remove(p, { recursive: true, force: true }))

  const open = (
    path: string,
    options?: { readonly flag?: FileSystem.OpenFlag | undefined; readonly mode?: number | undefined; readonly noFollow?: boolean | undefined }
  ): Effect.Effect<FileSystem.File, PlatformError.PlatformError, Scope.Scope> =>
    Effect.acquireRelease(
      run((now) => {
        const flag = options?.flag ?? "r"
        const node = tree.openNode("open", path, flag, now, options?.mode, options?.noFollow ?? false)
        return makeFile(node as FileNode, flag, path)
      }),
      () => Effect.void
    )

  return FileSystem.make({
    ...FileSystem.makeNoop({}),
    access: (path) => run(() => void tree.existing("access", path, true)),
    copy: (from, to, options) => run((now) => tree.copy("copy", from, to, now, options?.overwrite ?? false)),
    copyFile: (from, to) =>
      run((now) => {
        const src = tree.existing("copyFile", from, true)
        if (src.node.kind !== "file") throw fail("BadResource", "copyFile", from, "EISDIR")
        tree.writeBytes("copyFile", to, contents(src.node).slice(), now, { mode: src.node.mode })
      }),
    chmod: (path, mode) =>
      run((now) => {
        const { node } = tree.existing("chmod", path, true)
        node.mode = mode & 0o7777
        node.ctime = now
      }),
    chown: (path, uid, gid) =>
      run(() => {
        const { node } = tree.existing("chown", path, true)
        node.uid = uid
        node.gid = gid
      }),
    link: (from, to) => run((now) => tree.link("link", from, to, now)),
    lstat: (path) => run(() => info(tree.existing("lstat", path, false).node)),
    stat: (path) => run(() => info(tree.existing("stat", path, true).node)),
    makeDirectory: (path, options) =>
      run((now) =>
        options?.recursive ? tree.mkdirp("makeDirectory", path, now, options.mode) : tree.mkdir("makeDirectory", path, now, options?.mode)
      ),
    makeTempDirectory,
    makeTempDirectoryScoped: (options) => Effect.acquireRelease(makeTempDirectory(options), removeOnRelease),
    makeTempFile,
    makeTempFileScoped: (options) => Effect.acquireRelease(makeTempFile(options), (f) => removeOnRelease(dirname(f))),
    open,
    readDirectory: (path, options) => run(() => tree.list("readDirectory", path, options?.recursive ?? false)),
    readDirectoryEntries: (path) =>
      run(() => {
        const dir = tree.existing("readDirectoryEntries", path, true).node
        if (dir.kind !== "dir") throw fail("BadResource", "readDirectoryEntries", path, "ENOTDIR")
        return [...dir.children].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, n]) => ({ name, type: info(n).type }))
      }),
    readFile: (path) =>
      run(() => {
        const { node } = tree.existing("readFile", path, true)
        if (node.kind !== "file") throw fail("BadResource", "readFile", path, "EISDIR")
        return contents(node).slice()
      }),
    readLink: (path) =>
      run(() => {
        const { node } = tree.existing("readLink", path, false)
        if (node.kind !== "symlink") throw fail("Unknown", "readLink", path, "EINVAL", "not a symbolic link")
        return node.target
      }),
    realPath: (path) => run(() => tree.existing("realPath", path, true).realPath),
    remove,
    rename: (from, to) => run((now) => tree.rename("rename", from, to, now)),
    symlink: (target, path) => run((now) => tree.symlink("symlink", target, path, now)),
    truncate: (path, length) =>
      run((now) => {
        const { node } = tree.existing("truncate", path, true)
        if (node.kind !== "file") throw fail("BadResource", "truncate", path, "EISDIR")
        resize(node, length ?? 0)
        node.mtime = node.ctime = now
      }),
    utimes: (path, atime, mtime) =>
      run(() => {
        const { node } = tree.existing("utimes", path, true)
        node.atime = toMillis(atime)
        node.mtime = toMillis(mtime)
      }),
    writeFile: (path, data, options) =>
      run((now) => tree.writeBytes("writeFile", path, data.slice(), now, { flag: options?.flag, mode: options?.mode }))
  })
}

