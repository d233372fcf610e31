/**
 * The platform FileSystem with `realPath` answered by the operating system's realpath(3) in one
 * call: Node's default walks the path a component at a time, one `lstat` round trip through the
 * thread pool each, and every file tool resolves its path (containment is decided on real paths).
 * Failures are the platform's own: the same reasons for the same error codes.
 */
import { realpath } from "node:fs"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as PlatformError from "effect/PlatformError"

const reasonOf = (code: string | undefined): PlatformError.SystemErrorTag => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
    case "EPERM":
      return "PermissionDenied"
    case "EEXIST":
      return "AlreadyExists"
    case "EISDIR":
    case "ENOTDIR":
    case "ELOOP":
      return "BadResource"
    case "EBUSY":
      return "Busy"
    default:
      return "Unknown"
  }
}

export const realPath = (path: string): Effect.Effect<string, PlatformError.PlatformError> =>
  Effect.callback<string, PlatformError.PlatformError>((resume) => {
    try {
      realpath.native(path, (error, resolved) => {
        if (error === null) return resume(Effect.succeed(resolved))
        resume(Effect.fail(PlatformError.systemError({
          _tag: reasonOf(error.code),
          module: "FileSystem",
          method: "realPath",
          pathOrDescriptor: path,
          syscall: error.syscall,
          cause: error
        })))
      })
    } catch (error) {
      // An argument Node refuses before the call (e.g. a NUL byte), as the platform reports it.
      resume(Effect.fail(PlatformError.badArgument({
        module: "FileSystem",
        method: "realPath",
        description: error instanceof Error ? error.message : String(error)
      })))
    }
  })

/** Replaces `realPath` of the FileSystem in context; everything else is the platform's. */
export const layer: Layer.Layer<FileSystem.FileSystem, never, FileSystem.FileSystem> = Layer.effect(
  FileSystem.FileSystem,
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    return { ...fs, realPath } satisfies FileSystem.FileSystem
  })
)
