/**
 * An open file handle of MemoryFileSystem. Like a file descriptor it keeps pointing at the same inode
 * after a rename or unlink of its path.
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as PlatformError from "effect/PlatformError"
import { contents, fail, info, resize, run, writeAt, type FileNode } from "./memoryTree.ts"

export type { FileNode }

const badArgument = (method: string, description: string) =>
  Effect.fail(PlatformError.badArgument({ module: "FileSystem", method, description }))

export const makeFile = (node: FileNode, flag: FileSystem.OpenFlag, path: string): FileSystem.File => {
  const readable = flag.startsWith("r") || flag.includes("+")
  const writable = flag !== "r"
  const append = flag.startsWith("a")
  let position = 0n

  const checkReadable = (method: string) => {
    if (!readable) throw fail("BadResource", method, path, "EBADF")
  }

  const readInto = (method: string, size: number, explicit: bigint | undefined): Effect.Effect<Uint8Array, PlatformError.PlatformError> => {
    if (explicit !== undefined && explicit < 0n) return badArgument(method, "Cannot read before the start of the file")
    return run(() => {
      checkReadable(method)
      const start = Number(explicit ?? position)
      const bytes = contents(node).slice(start, start + size)
      if (explicit === undefined) position += BigInt(bytes.length)
      return bytes
    })
  }

  const write = (method: string, buffer: Uint8Array) =>
    run((now) => {
      if (!writable) throw fail("BadResource", method, path, "EBADF")
      if (append) writeAt(node, node.size, buffer) // O_APPEND: always at the end, position untouched
      else {
        writeAt(node, Number(position), buffer)
        position += BigInt(buffer.length)
      }
      node.mtime = node.ctime = now
      return buffer.length
    })

  return {
    [FileSystem.FileTypeId]: FileSystem.FileTypeId,
    stat: Effect.sync(() => info(node)),
    sync: Effect.void,
    seek: (offset, from) =>
      Effect.suspend(() => {
        const next = from === "start" ? offset : position + offset
        if (next < 0n) return badArgument("seek", "Cannot seek before the start of the file")
        position = next
        return Effect.succeed(next)
      }),
    read: (buffer, options) =>
      Effect.map(readInto("read", buffer.length, options?.position), (bytes) => {
        buffer.set(bytes)
        return bytes.length
      }),
    readAlloc: (size, options) =>
      !Number.isInteger(size) || size < 0
        ? badArgument("readAlloc", "size must be a non-negative integer")
        : Effect.map(readInto("readAlloc", size, options?.position), (bytes) => (bytes.length === 0 ? Option.none() : Option.some(bytes))),
    truncate: (length) =>
      run((now) => {
        if (!writable) throw fail("BadResource", "truncate", path, "EBADF")
        resize(node, length ?? 0)
        node.mtime = node.ctime = now
        if (!append && position > BigInt(length ?? 0)) position = BigInt(length ?? 0)
      }),
    write: (buffer) => write("write", buffer),
    writeAll: (buffer) => Effect.asVoid(write("writeAll", buffer))
  }
}
