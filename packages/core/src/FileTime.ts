/**
 * Read-before-write and the stale-write guard: per session, what was read, when, and its content hash.
 *
 * CONTRACT (implementation owned by the FileTime/Workspace work): keep these names and shapes.
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import type { PlatformError } from "effect/PlatformError"

export interface Stamp {
  readonly readAt: number
  readonly hash: string
  readonly size: number
  readonly mtime: number | undefined
  readonly lines: number
}

export class FileNotReadError extends Schema.TaggedError<FileNotReadError>()("FileNotReadError", {
  path: Schema.String
}) {
  override get message() {
    return `You must read file ${this.path} before overwriting it. Use the read tool first.`
  }
}

export class FileModifiedError extends Schema.TaggedError<FileModifiedError>()("FileModifiedError", {
  path: Schema.String,
  /** Human-readable account of what changed (size, lines, time). */
  details: Schema.String
}) {
  override get message() {
    return `File ${this.path} has been modified since it was last read: ${this.details}\nRead the file again before modifying it.`
  }
}

export class FileTime extends Context.Service<FileTime, {
  /** Records a read; `content` is the bytes the tool read (else the file is read to hash it). */
  readonly read: (sessionID: string, path: string, content?: Uint8Array) => Effect.Effect<void, PlatformError>
  /** Records our own write, so it never counts as an external change. */
  readonly recordWrite: (sessionID: string, path: string, content: Uint8Array) => Effect.Effect<void, PlatformError>
  readonly get: (sessionID: string, path: string) => Effect.Effect<Stamp | undefined>
  /** Fails unless the file was read in this session and its content is unchanged since. */
  readonly assert: (
    sessionID: string,
    path: string
  ) => Effect.Effect<void, FileNotReadError | FileModifiedError | PlatformError>
  /** Runs `effect` holding the writer lock of `path` (one writer per real path at a time). */
  readonly withLock: <A, E, R>(path: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("@agent-tools/core/FileTime") {}
