/**
 * The external-directory request every file-touching tool makes: a tool path is resolved to a
 * real path with Workspace, and when it lies outside the workspace the tool's requests include
 * `external_directory` for its directory, showing the real target (a symlink inside that points
 * out counts as outside). Spill files of this workspace's store are readable without asking,
 * never writable.
 */
import * as Effect from "effect/Effect"
import { Tool, Workspace } from "@agent-tools/core"

export type Access = "read" | "write"

export interface AccessOptions {
  readonly access: Access
  /** A directory target asks for the directory itself, a file for its parent. */
  readonly kind?: "file" | "directory" | undefined
}

const parentOf = (path: string): string => {
  const i = path.lastIndexOf("/")
  return i <= 0 ? "/" : path.slice(0, i)
}

/** Resolves `path` with Workspace; a path that cannot be resolved is `tool`'s error. */
export const locate = (tool: string, path: string): Effect.Effect<Workspace.Resolved, Tool.ToolError, Workspace.Workspace> =>
  Workspace.Workspace.use((workspace) => workspace.resolve(path)).pipe(
    Effect.mapError((e) => new Tool.ToolError({ tool, reason: "io", message: e.message, cause: e }))
  )

/** The `external_directory` request for a resolved path, or undefined when none is needed. */
export const externalRequest = (resolved: Workspace.Resolved, options: AccessOptions): Tool.AskInput | undefined => {
  if (resolved.inside) return undefined
  if (options.access === "read" && resolved.spill) return undefined
  const dir = options.kind === "directory" ? resolved.real : parentOf(resolved.real)
  const pattern = dir === "/" ? "/*" : `${dir}/*`
  return {
    permission: "external_directory",
    patterns: [pattern],
    always: [pattern],
    metadata: {
      filepath: resolved.real,
      parentDir: dir,
      access: options.access,
      ...(resolved.real !== resolved.absolute ? { requested: resolved.absolute } : {})
    }
  }
}

/** The external request of a path (if any) followed by the tool's own. */
export const withExternal = (
  resolved: Workspace.Resolved,
  options: AccessOptions,
  own: Tool.AskInput
): ReadonlyArray<Tool.AskInput> => {
  const external = externalRequest(resolved, options)
  return external === undefined ? [own] : [external, own]
}
