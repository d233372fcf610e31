/**
 * The inode tree behind MemoryFileSystem. Every operation is synchronous (hence atomic with respect to
 * other fibers) and throws a `PlatformError` that `run` turns into a typed failure.
 * @internal
 */
import * as ByteSize from "effect/ByteSize"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as FileSystem from "effect/FileSystem"
import * as PlatformError from "effect/PlatformError"

interface Base {
  readonly ino: number
  mode: number
  atime: number
  mtime: number
  ctime: number
  readonly birthtime: number
  uid: number
  gid: number
  nlink: number
}
export interface FileNode extends Base {
  readonly kind: "file"
  buf: Uint8Array // capacity grows geometrically; the content is buf[0, size)
  size: number
}
export interface DirNode extends Base {
  readonly kind: "dir"
  readonly children: Map<string, Node>
}
export interface LinkNode extends Base {
  readonly kind: "symlink"
  readonly target: string
}
export type Node = FileNode | DirNode | LinkNode

export interface Lookup {
  readonly parent: DirNode | undefined // undefined for "/"
  readonly name: string
  readonly node: Node | undefined // undefined when only the leaf is missing
  readonly realPath: string
}

const MAX_SYMLINK_HOPS = 40 // Linux's limit before ELOOP

export const split = (p: string): Array<string> => p.split("/").filter((c) => c !== "" && c !== ".")
export const isAbsolute = (p: string) => p.startsWith("/")
export const dirname = (p: string) => {
  const parts = split(p)
  return "/" + parts.slice(0, -1).join("/")
}
export const basename = (p: string) => split(p).at(-1) ?? ""

export type ErrnoCode =
  | "ENOENT" | "EEXIST" | "EISDIR" | "ENOTDIR" | "ELOOP" | "ENOTEMPTY" | "EINVAL" | "EBADF" | "EPERM"
  | "ERR_FS_EISDIR" // Node's rm() on a directory without `recursive`

// Same shape as @effect/platform-node's errors (no description; `cause.code` holds the errno code).
export const fail = (
  tag: PlatformError.SystemErrorTag,
  method: string,
  path: string,
  code: ErrnoCode,
  description?: string
): PlatformError.PlatformError =>
  PlatformError.systemError({
    _tag: tag,
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    description,
    cause: Object.assign(new Error(`${code}: ${method} '${path}'`), { code })
  })

export const notFound = (method: string, path: string) => fail("NotFound", method, path, "ENOENT")

/** Runs a synchronous tree operation with the Clock's current time; thrown PlatformErrors become failures. */
export const run = <A>(f: (now: number) => A): Effect.Effect<A, PlatformError.PlatformError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    try {
      return Effect.succeed(f(now))
    } catch (e) {
      if (PlatformError.isPlatformError(e)) return Effect.fail(e)
      throw e
    }
  })

export const contents = (f: FileNode): Uint8Array => f.buf.subarray(0, f.size)

/** Writes `data` at `position`, growing the buffer geometrically so streamed appends stay linear. */
export const writeAt = (f: FileNode, position: number, data: Uint8Array) => {
  const end = position + data.length
  if (end > f.buf.length) {
    const grown = new Uint8Array(Math.max(end, f.buf.length * 2, 64))
    grown.set(contents(f))
    f.buf = grown
  }
  if (position > f.size) f.buf.fill(0, f.size, position)
  f.buf.set(data, position)
  f.size = Math.max(f.size, end)
}

export const resize = (f: FileNode, length: number) => {
  if (length > f.size) writeAt(f, length, new Uint8Array(0))
  else f.size = length
}

const TYPE_BITS = { file: 0o100000, dir: 0o040000, symlink: 0o120000 } as const
const TYPE_NAME = { file: "File", dir: "Directory", symlink: "SymbolicLink" } as const

export const info = (n: Node): FileSystem.File.Info => ({
  type: TYPE_NAME[n.kind],
  mtime: Option.some(new Date(n.mtime)),
  atime: Option.some(new Date(n.atime)),
  birthtime: Option.some(new Date(n.birthtime)),
  dev: 1n,
  ino: Option.some(BigInt(n.ino)),
  mode: TYPE_BITS[n.kind] | n.mode,
  nlink: Option.some(BigInt(n.nlink)),
  uid: Option.some(n.uid),
  gid: Option.some(n.gid),
  rdev: Option.some(0n),
  size: ByteSize.bytes(n.kind === "file" ? n.size : n.kind === "dir" ? 4096 : new TextEncoder().encode(n.target).length),
  blksize: Option.some(ByteSize.bytes(4096)),
  blocks: Option.some(BigInt(Math.ceil((n.kind === "file" ? n.size : 4096) / 512)))
})

const UMASK = 0o022

export const makeTree = (t0: number) => {
  let nextIno = 1
  const base = (now: number, mode: number) => ({
    ino: nextIno++, mode: mode & 0o7777, atime: now, mtime: now, ctime: now, birthtime: now, uid: 0, gid: 0, nlink: 1
  })
  const newDir = (now: number, mode = 0o777): DirNode => ({ kind: "dir", children: new Map(), ...base(now, mode & ~UMASK), nlink: 2 })
  const newFile = (now: number, mode = 0o666): FileNode => ({ kind: "file", buf: new Uint8Array(0), size: 0, ...base(now, mode & ~UMASK) })
  const root = newDir(t0)

  const touchDir = (d: DirNode, now: number) => {
    d.mtime = d.ctime = now
  }

  /**
   * Walks `path` like the kernel: `..` pops the physical directory, symlinks in the middle are always
   * followed, the last one only when `followLast`. Throws NotFound for a missing middle component,
   * ENOTDIR when a middle component is not a directory, ELOOP after too many hops.
   */
  const lookup = (method: string, path: string, followLast: boolean): Lookup => {
    let stack: Array<readonly [string, DirNode]> = [["", root]]
    let comps = split(path)
    let hops = 0
    const join = (extra?: string) => "/" + [...stack.slice(1).map(([n]) => n), ...(extra === undefined ? [] : [extra])].join("/")
    const self = (): Lookup => {
      const [name, node] = stack[stack.length - 1]!
      return { parent: stack.length > 1 ? stack[stack.length - 2]![1] : undefined, name, node, realPath: join() }
    }
    while (comps.length > 0) {
      const c = comps.shift()!
      const last = comps.length === 0
      if (c === "..") {
        if (stack.length > 1) stack.pop()
        continue
      }
      const dir = stack[stack.length - 1]![1]
      const child = dir.children.get(c)
      if (child === undefined) {
        if (last) return { parent: dir, name: c, node: undefined, realPath: join(c) }
        throw notFound(method, path)
      }
      if (child.kind === "symlink" && (!last || followLast)) {
        if (++hops > MAX_SYMLINK_HOPS) throw fail("BadResource", method, path, "ELOOP")
        if (isAbsolute(child.target)) stack = [["", root]]
        comps = [...split(child.target), ...comps]
        continue
      }
      if (last) return { parent: dir, name: c, node: child, realPath: join(c) }
      if (child.kind !== "dir") throw fail("BadResource", method, path, "ENOTDIR")
      stack.push([c, child])
    }
    return self()
  }

  const existing = (method: string, path: string, follow: boolean): Lookup & { readonly node: Node } => {
    const l = lookup(method, path, follow)
    if (l.node === undefined) throw notFound(method, path)
    return l as Lookup & { readonly node: Node }
  }

  const attach = (l: Lookup, node: Node, now: number) => {
    l.parent!.children.set(l.name, node)
    touchDir(l.parent!, now)
  }

  const mkdir = (method: string, path: string, now: number, mode?: number) => {
    const l = lookup(method, path, false)
    if (l.node !== undefined) throw fail("AlreadyExists", method, path, "EEXIST")
    attach(l, newDir(now, mode), now)
  }

  const mkdirp = (method: string, path: string, now: number, mode?: number) => {
    const comps = split(path)
    for (let i = 1; i <= comps.length; i++) {
      const l = lookup(method, "/" + comps.slice(0, i).join("/"), true)
      if (l.node === undefined) attach(l, newDir(now, mode), now)
      else if (l.node.kind !== "dir") throw fail(i === comps.length ? "AlreadyExists" : "BadResource", method, path, i === comps.length ? "EEXIST" : "ENOTDIR")
    }
  }

  /** Opens (and creates/truncates per `flag`) a regular file, as open(2) does. */
  const openNode = (method: string, path: string, flag: FileSystem.OpenFlag, now: number, mode: number | undefined, noFollow: boolean): FileNode => {
    const leaf = lookup(method, path, false)
    if (noFollow && leaf.node?.kind === "symlink") throw fail("BadResource", method, path, "ELOOP")
    if (flag.includes("x") && leaf.node !== undefined) throw fail("AlreadyExists", method, path, "EEXIST")
    const l = lookup(method, path, true)
    if (l.node === undefined) {
      if (flag.startsWith("r")) throw notFound(method, path)
      const created = newFile(now, mode)
      attach(l, created, now)
      return created
    }
    if (l.node.kind === "dir") throw fail("BadResource", method, path, "EISDIR")
    const file = l.node as FileNode
    if (flag.startsWith("w") && file.size > 0) {
      file.size = 0
      file.mtime = file.ctime = now
    }
    return file
  }

  const writeBytes = (
    method: string, path: string, data: Uint8Array, now: number,
    options: { readonly flag?: FileSystem.OpenFlag | undefined; readonly mode?: number | undefined }
  ) => {
    const flag = options.flag ?? "w"
    const file = openNode(method, path, flag.startsWith("r") ? "r+" : flag, now, options.mode, false)
    if (flag.startsWith("a")) writeAt(file, file.size, data)
    else if (flag.startsWith("r")) writeAt(file, 0, data)
    else {
      file.buf = data
      file.size = data.length
    }
    file.mtime = file.ctime = now
  }

  const symlink = (method: string, target: string, path: string, now: number) => {
    const l = lookup(method, path, false)
    if (l.node !== undefined) throw fail("AlreadyExists", method, path, "EEXIST")
    attach(l, { kind: "symlink", target, ...base(now, 0o777) }, now)
  }

  const link = (method: string, from: string, to: string, now: number) => {
    const src = existing(method, from, false)
    if (src.node.kind === "dir") throw fail("PermissionDenied", method, from, "EPERM")
    const dst = lookup(method, to, false)
    if (dst.node !== undefined) throw fail("AlreadyExists", method, to, "EEXIST")
    src.node.nlink++
    src.node.ctime = now
    attach(dst, src.node, now)
  }

  const remove = (method: string, path: string, now: number, recursive: boolean, force: boolean) => {
    let l: Lookup
    try {
      l = lookup(method, path, false)
    } catch (e) {
      if (force && PlatformError.isPlatformError(e) && e.reason._tag === "NotFound") return
      throw e
    }
    if (l.node === undefined) {
      if (force) return
      throw notFound(method, path)
    }
    if (l.parent === undefined) throw fail("PermissionDenied", method, path, "EPERM")
    if (l.node.kind === "dir" && !recursive) throw fail("Unknown", method, path, "ERR_FS_EISDIR") // as Node reports it
    l.parent.children.delete(l.name)
    l.node.nlink--
    touchDir(l.parent, now)
  }

  const rename = (method: string, from: string, to: string, now: number) => {
    const src = existing(method, from, false)
    const dst = lookup(method, to, false)
    if (src.parent === undefined || dst.parent === undefined) throw fail("BadResource", method, from, "EBADF")
    if (dst.node === src.node) return
    if (src.node.kind === "dir" && (dst.realPath + "/").startsWith(src.realPath + "/")) throw fail("Unknown", method, from, "EINVAL")
    if (dst.node !== undefined) {
      if (dst.node.kind === "dir" && src.node.kind !== "dir") throw fail("BadResource", method, to, "EISDIR")
      if (dst.node.kind !== "dir" && src.node.kind === "dir") throw fail("BadResource", method, to, "ENOTDIR")
      if (dst.node.kind === "dir" && dst.node.children.size > 0) throw fail("Unknown", method, to, "ENOTEMPTY")
    }
    src.parent.children.delete(src.name)
    touchDir(src.parent, now)
    attach(dst, src.node, now)
    src.node.ctime = now
  }

  const list = (method: string, path: string, recursive: boolean): Array<string> => {
    const dir = existing(method, path, true).node
    if (dir.kind !== "dir") throw fail("BadResource", method, path, "ENOTDIR")
    const out: Array<string> = []
    const queue: Array<readonly [string, DirNode]> = [["", dir]] // breadth-first, like Node's recursive readdir
    while (queue.length > 0) {
      const [prefix, d] = queue.shift()!
      for (const name of [...d.children.keys()].sort()) {
        const child = d.children.get(name)!
        out.push(prefix + name)
        if (recursive && child.kind === "dir") queue.push([`${prefix}${name}/`, child])
      }
    }
    return out
  }

  // `cp -r` without dereferencing nested symlinks; existing files are kept unless `overwrite` (Node's `force`).
  const copy = (method: string, from: string, to: string, now: number, overwrite: boolean) => {
    const src = existing(method, from, true)
    const dstProbe = lookup(method, to, false)
    if (src.node.kind === "dir" && (dstProbe.realPath + "/").startsWith(src.realPath + "/")) throw fail("Unknown", method, to, "EINVAL")
    const go = (node: Node, target: string) => {
      const dst = lookup(method, target, false)
      if (node.kind === "dir") {
        if (dst.node === undefined) attach(dst, { ...newDir(now), mode: node.mode }, now)
        else if (dst.node.kind !== "dir") throw fail("BadResource", method, target, "ENOTDIR")
        for (const [name, child] of node.children) go(child, `${target}/${name}`)
        return
      }
      if (dst.node !== undefined && !overwrite) return
      if (dst.node?.kind === "dir") throw fail("BadResource", method, target, "EISDIR")
      if (dst.node !== undefined) dst.parent!.children.delete(dst.name)
      const copyNode: Node = node.kind === "file"
        ? { ...newFile(now), mode: node.mode, buf: contents(node).slice(), size: node.size }
        : { kind: "symlink", target: node.target, ...base(now, 0o777) }
      attach(dst, copyNode, now)
    }
    go(src.node, to)
  }

  return { root, lookup, existing, mkdir, mkdirp, openNode, writeBytes, symlink, link, remove, rename, list, copy }
}

export type Tree = ReturnType<typeof makeTree>
