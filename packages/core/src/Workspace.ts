/**
 * Path resolution and containment on real paths: the one place that decides whether a tool path
 * lies inside the workspace.
 *
 * CONTRACT (implementation owned by the FileTime/Workspace work): keep these names and shapes.
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"

export interface Resolved {
  /** The path as the tool received it. */
  readonly input: string
  /** Absolute, lexically normalised (no symlinks followed). */
  readonly absolute: string
  /** Symlinks followed for the existing part, the rest appended. */
  readonly real: string
  readonly exists: boolean
  /** Inside the workspace root or an extra allowed directory (on real paths). */
  readonly inside: boolean
  /** Under the spill store's directory: readable without an outside-directory ask. */
  readonly spill: boolean
}

export class PathResolutionError extends Schema.TaggedError<PathResolutionError>()("PathResolutionError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot resolve path ${this.path}: ${this.reason}`
  }
}

export class Workspace extends Context.Service<Workspace, {
  /** The workspace root, as a real path. */
  readonly root: string
  readonly resolve: (path: string) => Effect.Effect<Resolved, PathResolutionError>
  /** Whether a real path lies inside the root or an extra allowed directory. */
  readonly contains: (realPath: string) => boolean
}>()("@agent-tools/core/Workspace") {}
