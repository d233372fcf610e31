/**
 * What grep, glob and list share: resolving the search root through Workspace (with the
 * `external_directory` request for a root outside it), mapping search errors to tool errors, and the
 * small formatting helpers of their outputs.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { Ripgrep, Tool, Workspace } from "@agent-tools/core"
import { externalRequest } from "../shared/access.ts"

export type Services = Ripgrep.Ripgrep | Workspace.Workspace | FileSystem.FileSystem | Path.Path

export interface Root {
  /** The real path searched. */
  readonly real: string
  readonly isDirectory: boolean
  /** Relative to the workspace root when inside it (`.` for the root), else the real path. */
  readonly shown: string
  /** The `external_directory` request when the root lies outside the workspace. */
  readonly external: Tool.AskInput | undefined
}

export const fail = (tool: string, reason: Tool.ToolErrorReason, message: string) =>
  Effect.fail(new Tool.ToolError({ tool, reason, message }))

/** Resolves `input` (default: the workspace root) and checks it exists. */
export const resolveRoot = Effect.fnUntraced(function*(
  tool: string,
  input: string | undefined,
  options: { readonly directoryOnly: boolean }
): Effect.fn.Return<Root, Tool.ExecuteError, Services> {
  const workspace = yield* Workspace.Workspace
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const requested = input === undefined || input.trim() === "" ? "." : input
  const resolved = yield* workspace.resolve(requested).pipe(
    Effect.mapError((e) => new Tool.ToolError({ tool, reason: "io", message: e.message, cause: e }))
  )
  const shown = resolved.inside
    ? path.relative(workspace.root, resolved.real).split(path.sep).join("/") || "."
    : resolved.real
  const info = yield* fs.stat(resolved.real).pipe(Effect.option)
  if (info._tag === "None") return yield* fail(tool, "not-found", `No such file or directory: ${requested}`)
  const isDirectory = info.value.type === "Directory"
  if (options.directoryOnly && !isDirectory) return yield* fail(tool, "invalid", `${tool} path must be a directory: ${requested}`)
  const external = externalRequest(resolved, { access: "read", kind: isDirectory ? "directory" : "file" })
  return { real: resolved.real, isDirectory, shown, external } satisfies Root
})

/** The root's `external_directory` request (if any), then the tool's own. */
export const requestsOf = (root: Root, own: Tool.AskInput): ReadonlyArray<Tool.AskInput> =>
  root.external === undefined ? [own] : [root.external, own]

/** A search failure as the model should read it. */
export const searchError = (tool: string) => (e: Ripgrep.Error): Tool.ToolError =>
  new Tool.ToolError({
    tool,
    reason: e._tag === "InvalidPatternError" ? "invalid" : "io",
    cause: e,
    message: e._tag === "InvalidPatternError" && e.kind === "regex"
      ? `${e.message}\n(Escape regex special characters such as ( [ { . * + ? with a backslash to match them literally.)`
      : e.message
  })

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * A glob or list result: its lines, then the notice of skipped paths, titled with the root; the
 * counts say how many files matched (`offered`) and how many are shown (`size`).
 */
export const listing = (
  root: Root,
  lines: Array<string>,
  files: { readonly offered: number; readonly size: number },
  skipped: SkippedPaths
) => {
  const notice = skipped.notice()
  if (notice !== "") lines.push("", notice)
  return {
    title: root.shown,
    output: lines.join("\n"),
    metadata: { count: files.offered, shown: files.size, skipped: skipped.count, truncated: files.offered > files.size }
  }
}

/** Counts skipped paths and keeps a few examples for the notice. */
export class SkippedPaths {
  count = 0
  readonly examples: Array<string> = []
  add(path: string) {
    this.count++
    if (this.examples.length < 5) this.examples.push(path)
  }
  /** `(2 paths could not be read and were skipped: a, b)`, or "" when none. */
  notice(): string {
    if (this.count === 0) return ""
    const more = this.count > this.examples.length ? ", …" : ""
    return `(${plural(this.count, "path")} could not be read and ${this.count === 1 ? "was" : "were"} skipped: ${this.examples.join(", ")}${more})`
  }
}
