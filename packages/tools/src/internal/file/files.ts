/**
 * File-system steps shared by write, edit, multiedit and apply_patch: looking a path up, atomic
 * replacement (a temp file in the same directory, then rename, so a reader never sees half a file
 * and a crash leaves the old one), keeping the file mode, and creating missing parents.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Random from "effect/Random"
import * as Scope from "effect/Scope"
import type { PlatformError } from "effect/PlatformError"
import type { Tool } from "@agent-tools/core"
import { takeBuffer } from "../buffers.ts"

export type Entry =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Directory" }
  | { readonly _tag: "Other" }
  | {
    readonly _tag: "File"
    readonly size: number
    /** Permission bits, kept on rewrite. */
    readonly mode: number
    /** Hard links: a file with several is rewritten in place so every name sees the change. */
    readonly links: number
  }

/** What is at `file` (symlinks followed). */
export const inspect = Effect.fnUntraced(function*(file: string): Effect.fn.Return<Entry, PlatformError, FileSystem.FileSystem> {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(file).pipe(
    Effect.map(Option.some),
    Effect.catchTag("PlatformError", (e) => (e.reason._tag === "NotFound" ? Effect.succeed(Option.none()) : Effect.fail(e)))
  )
  if (Option.isNone(info)) return { _tag: "Missing" }
  const stat = info.value
  if (stat.type === "Directory") return { _tag: "Directory" }
  if (stat.type !== "File") return { _tag: "Other" }
  return {
    _tag: "File",
    size: Number(stat.size),
    mode: stat.mode & 0o7777,
    links: Number(Option.getOrElse(stat.nlink, () => 1n))
  }
})

/**
 * The bytes of the regular file at `file`, stat'ed as `size` bytes: one open, one read into a
 * buffer one byte larger than `size` (a regular file reads short only at its end, so the spare
 * byte staying empty proves the end was reached), and the close when the caller's scope closes —
 * two file-system round trips fewer than `readFile`, which stats the open file again and reads in
 * 512 KiB chunks. A file that grew since the stat is read on to its end. The buffer may be a
 * reused one, longer than asked: only the bytes returned are the file's.
 */
export const readKnownSize = Effect.fnUntraced(function*(file: string, size: number) {
  const fs = yield* FileSystem.FileSystem
  const handle = yield* fs.open(file, { flag: "r" })
  let buffer = takeBuffer(size + 1)
  let filled = 0
  for (;;) {
    const n = yield* handle.read(buffer.subarray(filled))
    filled += n
    if (n === 0 || filled < buffer.length) return buffer.subarray(0, filled)
    const grown = new Uint8Array(buffer.length * 2)
    grown.set(buffer)
    buffer = grown
  }
})

/** `.<name>.<random>.tmp` next to `file`, so the final rename never crosses a file system. */
const tempPathFor = Effect.fnUntraced(function*(file: string) {
  const path = yield* Path.Path
  const n = yield* Random.nextIntBetween(0, 2 ** 31)
  return path.join(path.dirname(file), `.${path.basename(file)}.${n.toString(36)}.tmp`)
})

// The process's umask per FileSystem, read once from /proc/self/status where the system has it
// (Linux); undefined where it does not, and then every mode is set explicitly.
const umasks = new WeakMap<FileSystem.FileSystem, number | undefined>()

const umaskOf = (fs: FileSystem.FileSystem): Effect.Effect<number | undefined> =>
  umasks.has(fs) ? Effect.succeed(umasks.get(fs)) : fs.readFileString("/proc/self/status").pipe(
    Effect.map((status) => {
      const octal = /^Umask:\s*([0-7]+)$/m.exec(status)?.[1]
      return octal === undefined ? undefined : parseInt(octal, 8)
    }),
    Effect.orElseSucceed(() => undefined),
    Effect.tap((umask) => Effect.sync(() => umasks.set(fs, umask)))
  )

/**
 * Writes `bytes` to a fresh temp file beside `file` with `mode`; returns the temp path. The file
 * is created with `mode`, which the umask may clear bits of: only then is it set again (a round
 * trip less for the usual 644 or 755 under umask 022). A umask the process changes after it was
 * read can only clear more bits, never grant any.
 */
export const writeTemp = Effect.fnUntraced(function*(file: string, bytes: Uint8Array, mode: number | undefined) {
  const fs = yield* FileSystem.FileSystem
  const temp = yield* tempPathFor(file)
  const umask = mode === undefined ? 0 : yield* umaskOf(fs)
  const exact = mode === undefined || (umask !== undefined && (mode & umask) === 0 && mode <= 0o777)
  yield* fs.writeFile(temp, bytes, { flag: "wx", ...(mode === undefined ? {} : { mode }) }).pipe(
    Effect.andThen(exact ? Effect.void : fs.chmod(temp, mode)),
    Effect.onError(() => fs.remove(temp).pipe(Effect.ignore))
  )
  return temp
})

/**
 * Replaces `file` with `bytes` atomically, keeping `mode`; a hard-linked file is written in place
 * instead (a rename would detach it from its other names).
 */
export const atomicWrite = Effect.fnUntraced(function*(
  file: string,
  bytes: Uint8Array,
  options: { readonly mode?: number | undefined; readonly links?: number | undefined } = {}
): Effect.fn.Return<void, PlatformError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  if ((options.links ?? 1) > 1) return yield* fs.writeFile(file, bytes)
  // Where a file may be renamed while open (not Windows), the temp is closed after the rename and
  // the close is not waited for: one round trip to the file system fewer on every edit.
  if (path.sep !== "/") {
    const temp = yield* writeTemp(file, bytes, options.mode)
    return yield* fs.rename(temp, file).pipe(Effect.onError(() => fs.remove(temp).pipe(Effect.ignore)))
  }
  const temp = yield* tempPathFor(file)
  const mode = options.mode
  const umask = mode === undefined ? 0 : yield* umaskOf(fs)
  const exact = mode === undefined || (umask !== undefined && (mode & umask) === 0 && mode <= 0o777)
  const scope = yield* Scope.make()
  yield* Effect.gen(function*() {
    const handle = yield* fs.open(temp, { flag: "wx", ...(mode === undefined ? {} : { mode }) }).pipe(Scope.provide(scope))
    yield* handle.writeAll(bytes)
    if (!exact) yield* fs.chmod(temp, mode)
    yield* fs.rename(temp, file)
  }).pipe(
    Effect.onExit((exit) =>
      exit._tag === "Success"
        ? Effect.asVoid(Effect.forkDetach(Scope.close(scope, Exit.void)))
        : Effect.andThen(Scope.close(scope, exit), fs.remove(temp).pipe(Effect.ignore))
    )
  )
})

/** Creates the missing ancestors of `dir`; returns the ones it created, outermost first. */
export const ensureDirectory = Effect.fnUntraced(function*(
  dir: string
): Effect.fn.Return<Array<string>, PlatformError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const missing: Array<string> = []
  let current = dir
  while (!(yield* fs.exists(current))) {
    missing.unshift(current)
    const parent = path.dirname(current)
    if (parent === current) break
    current = parent
  }
  if (missing.length > 0) yield* fs.makeDirectory(dir, { recursive: true })
  return missing
})

/** Model-facing text for a file-system failure, without a stack. */
/** The reason of a tool error for a file-system failure: a missing path, access refused, else I/O. */
export const fsErrorReason = (e: PlatformError): Tool.ToolErrorReason =>
  e.reason._tag === "NotFound" ? "not-found" : e.reason._tag === "PermissionDenied" ? "denied" : "io"

export const describeFsError = (e: PlatformError): string => {
  const reason = e.reason
  switch (reason._tag) {
    case "NotFound":
      return "no such file or directory"
    case "PermissionDenied":
      return "permission denied"
    case "AlreadyExists":
      return "already exists"
    default:
      return reason.message.length > 0 ? reason.message : reason._tag
  }
}
