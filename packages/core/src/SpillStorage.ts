/**
 * Where the full text of a truncated tool output goes, so the model can page it later.
 *
 * CONTRACT (implementation owned by the Truncate/Spill work): keep these names and shapes.
 */
import { Context, Schema } from "effect"
import type { Effect, Scope, Stream } from "effect"

export class SpillError extends Schema.TaggedError<SpillError>()("SpillError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export interface SpillEntry {
  readonly path: string
  readonly size: number
  readonly mtime: number
}

/** A spill being written chunk by chunk; dropped (and its temp removed) if its scope closes before `commit`. */
export interface SpillWriter {
  readonly write: (chunk: Uint8Array) => Effect.Effect<void, SpillError>
  /** Finishes the spill (atomically visible under its final name) and returns its path. */
  readonly commit: Effect.Effect<string, SpillError>
}

export class SpillStorage extends Context.Service<SpillStorage, {
  /** Stores a whole output at once; returns its path (or URI for non-file stores). */
  readonly write: (content: string | Uint8Array) => Effect.Effect<string, SpillError>
  /** Opens a streaming spill. */
  readonly writer: Effect.Effect<SpillWriter, SpillError, Scope.Scope>
  /** Reads a spill back (used by `read` when the path is owned by a non-file store). */
  readonly read: (path: string) => Stream.Stream<Uint8Array, SpillError>
  /** Whether `path` names a spill of this store. */
  readonly owns: (path: string) => boolean
  readonly list: Effect.Effect<ReadonlyArray<SpillEntry>, SpillError>
  /** Deletes spills older than the retention; returns how many were deleted. */
  readonly cleanup: Effect.Effect<number, SpillError>
  /** The directory spills live in, for a file-system store; Workspace treats it as readable. */
  readonly directory: string | undefined
}>()("@agent-tools/core/SpillStorage") {}
