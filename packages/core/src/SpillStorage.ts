/**
 * Where the full text of a truncated tool output goes, so the model can page it later. The contract
 * lives here; the file store is in `SpillStorageFile.ts`, the memory store in `SpillStorageMemory.ts`.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import { isSpillName, workspaceDirectoryName } from "./SpillWriting.ts"

export class SpillError extends Schema.TaggedError<SpillError>()("SpillError", {
  message: Schema.String,
  /**
   * For code to match on, when known: `missing` — no spill under that path (expired, cleaned up,
   * or never written); `foreign` — the path is not a spill of this store.
   */
  reason: Schema.optional(Schema.Literals(["missing", "foreign"])),
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

/**
 * A spill another process writes into: its stdout and stderr are redirected to `path` (opened for
 * appending), so the bytes never pass through this process; they are read back by position as the
 * file grows. Dropped (its temp removed) if its scope closes before `commit`.
 */
export interface DirectSpill {
  /** The temp file the process appends to; renamed to the spill's final name on commit. */
  readonly path: string
  /** Reads up to `buffer.length` bytes at `position` into `buffer`; 0 at the end of the file. */
  readonly read: (buffer: Uint8Array, position: number) => Effect.Effect<number, SpillError>
  /** The file's current size in bytes. */
  readonly size: Effect.Effect<number, SpillError>
  /** Appends bytes that arrived another way (a pipe). */
  readonly append: (bytes: Uint8Array) => Effect.Effect<void, SpillError>
  /** Cuts the file to `length` bytes; an appending writer goes on from the new end. */
  readonly truncate: (length: number) => Effect.Effect<void, SpillError>
  /** Appends `trailer` when given, then makes the spill visible under its final name; returns that path. */
  readonly commit: (trailer?: Uint8Array) => Effect.Effect<string, SpillError>
}

export class SpillStorage extends Context.Service<SpillStorage, {
  /** Stores a whole output at once; returns its path (or URI for non-file stores). */
  readonly write: (content: string | Uint8Array) => Effect.Effect<string, SpillError>
  /**
   * Stores a whole output in a fiber owned by the store and returns its path at once; the spill
   * appears under that path (temp file, renamed) when complete, and `ready` waits for that. A store
   * without it is written with `write`.
   */
  readonly writeInBackground?: ((content: string | Uint8Array) => Effect.Effect<string, SpillError>) | undefined
  /** Waits until the spill at `path` is complete, if it is still being written (any other path: at once). */
  readonly ready?: ((path: string) => Effect.Effect<void>) | undefined
  /** Opens a streaming spill. */
  readonly writer: Effect.Effect<SpillWriter, SpillError, Scope.Scope>
  /**
   * Opens a spill file that a child process can write into directly (see `DirectSpill`). Only a
   * store on the disk that processes see offers it (the file-system store made with `direct`).
   */
  readonly direct?: Effect.Effect<DirectSpill, SpillError, Scope.Scope> | undefined
  /** Reads a spill back (used by `read` when the path is owned by a non-file store). */
  readonly read: (path: string) => Stream.Stream<Uint8Array, SpillError>
  /** Whether `path` names a spill of this store. */
  readonly owns: (path: string) => boolean
  readonly list: Effect.Effect<ReadonlyArray<SpillEntry>, SpillError>
  /** Deletes spills older than the retention; returns how many were deleted. */
  readonly cleanup: Effect.Effect<number, SpillError>
  /**
   * The directory spills live in, for a file-system store (one workspace's own subdirectory when
   * the store was made for a workspace); Workspace treats it as readable.
   */
  readonly directory: string | undefined
  /**
   * The most bytes one spill keeps, when the store caps them: Truncate's notice then says that the
   * saved copy of a larger output holds only its beginning.
   */
  readonly maxBytes?: number | undefined
}>()("@agent-tools/core/SpillStorage") {}

export interface Options {
  /** Spills older than this (by mtime, or store time in memory) are deleted. Default 7. */
  readonly retentionDays?: number | undefined
  /**
   * Per-spill cap in bytes. Default 4 GiB: an output of a few GiB is kept whole for grep/read
   * paging, while one runaway command can still not fill the disk. Past it a
   * `[spill truncated at N bytes]` trailer, and Truncate's notice says the copy is partial.
   */
  readonly maxBytes?: number | undefined
  /**
   * Cap on all spills of the store together (with `workspace`: of that workspace's), in bytes.
   * Default 10 GiB. When committing a spill would take the committed spills past it, the oldest
   * (by mtime) are deleted first until it fits; the spill being committed and those still being
   * written are never deleted. One spill keeps at most this many bytes of output (it lowers
   * `maxBytes`). The file and memory stores enforce it.
   */
  readonly maxTotalBytes?: number | undefined
  /**
   * The workspace root whose spills this store holds. Spills then live in a private subdirectory
   * (see `workspaceDirectoryName`, taken of the root's real path), so one workspace's read and grep
   * exemption never reaches another's outputs. Without it, spills live directly in the store's root.
   */
  readonly workspace?: string | undefined
}

export { isSpillName, workspaceDirectoryName }

export const DEFAULT_RETENTION_DAYS = 7
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024 * 1024
export const DEFAULT_MAX_TOTAL_BYTES = 10 * 1024 * 1024 * 1024

/**
 * The spills to delete, oldest first (by mtime, then name), so that `incoming` more bytes fit
 * under `cap` beside the rest; `keep` are never chosen.
 */
export const evictions = (
  entries: ReadonlyArray<SpillEntry>,
  incoming: number,
  cap: number,
  keep: (path: string) => boolean = () => false
): ReadonlyArray<SpillEntry> => {
  let total = incoming + entries.reduce((n, e) => n + e.size, 0)
  if (total <= cap) return []
  const chosen: Array<SpillEntry> = []
  const oldest = [...entries].sort((a, b) => a.mtime - b.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  for (const entry of oldest) {
    if (total <= cap) break
    if (keep(entry.path)) continue
    chosen.push(entry)
    total -= entry.size
  }
  return chosen
}

/** The error every store gives for a spill path that names nothing (any more). */
export const expired = (p: string) =>
  new SpillError({ message: `The spilled output ${p} has expired or was cleaned up; run the tool again to get it.`, reason: "missing" })
/** The error every store gives for a path that is not one of its spills. */
export const notOurs = (p: string) => new SpillError({ message: `${p} is not a spill of this store`, reason: "foreign" })

// The stores, each in a module of its own beside this contract.
export { layer } from "./SpillStorageFile.ts"
export { layerMemory } from "./SpillStorageMemory.ts"
