/**
 * The `edit` requests of a change to files, with the workspace's protected control files
 * (`ProtectedPaths`: `.git/config`, hooks, `agent-tools.json`, …) in a request of their own that is
 * always asked: a wildcard such as `"edit": "allow"` approves ordinary edits, never a change that
 * could plant code running outside the sandbox. A deny rule still denies it.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import { ProtectedPaths, type Tool, Workspace } from "@agent-tools/core"

export interface Target {
  /** The path as shown and used as the permission pattern. */
  readonly shown: string
  /** Its real path. */
  readonly real: string
}

/** The workspace's protected paths as they are now (for `editRequests`, which may be given them). */
export const protectedNow = Workspace.Workspace.use((workspace) => ProtectedPaths.resolve(workspace.root))

/**
 * `edit` for the ordinary targets (`always: ["*"]`, as before) and, when some are protected, a
 * second `edit` for those with `alwaysAsk` (and no `always` patterns: answering "always" approves
 * no protected file for the session).
 */
export const editRequests = Effect.fnUntraced(function*(
  targets: ReadonlyArray<Target>,
  metadata: (shown: ReadonlyArray<string>) => Record<string, unknown>,
  /** The workspace's protected paths when the caller looked them up already (see `protectedNow`). */
  known?: ProtectedPaths.Resolved
): Effect.fn.Return<Array<Tool.AskInput>, never, Workspace.Workspace | FileSystem.FileSystem | Path.Path> {
  const resolved = known ?? (yield* protectedNow)
  const guarded = targets.filter((t) => ProtectedPaths.covers(resolved, t.real))
  const plain = targets.filter((t) => !guarded.includes(t))
  const requests: Array<Tool.AskInput> = []
  if (plain.length > 0) {
    const shown = plain.map((t) => t.shown)
    requests.push({ permission: "edit", patterns: shown, always: ["*"], metadata: metadata(shown) })
  }
  if (guarded.length > 0) {
    const shown = guarded.map((t) => t.shown)
    requests.push({
      permission: "edit",
      patterns: shown,
      always: [],
      alwaysAsk: true,
      metadata: { ...metadata(shown), protected: guarded.map((t) => ProtectedPaths.coveringEntry(resolved, t.real) ?? t.shown) }
    })
  }
  return requests
})
