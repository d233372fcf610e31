/**
 * The external-directory guard every file-touching tool goes through: resolve the tool path to a
 * real path with Workspace, and when it lies outside the workspace ask `external_directory` for
 * its directory, showing the real target (a symlink inside that points out counts as outside).
 * Spill files of this workspace's store are readable without asking, never writable.
 */
import { Effect } from "effect"
import { Tool, Workspace } from "@agent-tools/core"

export type Access = "read" | "write"

export interface Target {
  readonly resolved: Workspace.Resolved
  /** Whether the user was asked (the path lies outside the workspace). */
  readonly external: boolean
}

export interface AccessOptions {
  readonly access: Access
  /** A directory target asks for the directory itself, a file for its parent. */
  readonly kind?: "file" | "directory" | undefined
  /** The tool name, for error messages. */
  readonly tool: string
}

const parentOf = (path: string): string => {
  const i = path.lastIndexOf("/")
  return i <= 0 ? "/" : path.slice(0, i)
}

/** Resolves `path` and asks `external_directory` when it lies outside the workspace. */
export const guard = Effect.fnUntraced(function*(
  ctx: Tool.Context,
  path: string,
  options: AccessOptions
): Effect.fn.Return<Target, Tool.ExecuteError, Workspace.Workspace> {
  const workspace = yield* Workspace.Workspace
  const resolved = yield* workspace.resolve(path).pipe(
    Effect.mapError((e) => new Tool.ToolError({ tool: options.tool, message: e.message }))
  )
  if (resolved.inside) return { resolved, external: false } satisfies Target
  if (options.access === "read" && resolved.spill) return { resolved, external: false } satisfies Target
  const dir = options.kind === "directory" ? resolved.real : parentOf(resolved.real)
  const pattern = dir === "/" ? "/*" : `${dir}/*`
  yield* ctx.ask({
    permission: "external_directory",
    patterns: [pattern],
    always: [pattern],
    metadata: {
      filepath: resolved.real,
      parentDir: dir,
      access: options.access,
      ...(resolved.real !== resolved.absolute ? { requested: resolved.absolute } : {})
    }
  })
  return { resolved, external: true } satisfies Target
})
