/**
 * From an analysis to the permission requests of one call, in the order they are asked:
 *
 * 1. `external_directory` for every touched path outside the workspace, on real paths (a symlink
 *    inside that points out counts as outside; spill files are readable without asking);
 * 2. `edit` for every write target (redirects, cp/mv/tee destinations…), as the path relative to
 *    the workspace root, the pattern the edit tool asks for: `edit` rules apply to shell writes;
 * 3. `bash` for every command, with arity-limited `always` patterns.
 *
 * An analysis with unsupported parts adds the pattern `[unanalysed] <whole command>` to the bash
 * request, with a per-call rule that forces it to `ask`: no allow rule (not even `*`) and no
 * earlier approval lets it through silently, and it is never stored as an approval. A configured
 * rule that denies it still denies.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { Permission, Tool, Workspace } from "@agent-tools/core"
import type { Analysis, PathUse } from "./analysis.ts"

export const UNANALYSED = "[unanalysed]"
export const unanalysedPattern = (command: string) => `${UNANALYSED} ${command}`
const FORCE_ASK: Permission.Rule = { permission: "bash", pattern: `${UNANALYSED} *`, action: "ask" }

export interface ResolvedPath extends PathUse {
  readonly real: string
  readonly inside: boolean
  /** The directory asked for under `external_directory`, when outside. */
  readonly directory: string | undefined
}

export interface Plan {
  readonly analysis: Analysis
  readonly paths: ReadonlyArray<ResolvedPath>
  /** The asks, in order (without the session, which the call context adds). */
  readonly requests: ReadonlyArray<Tool.AskInput>
}

const parentOf = (path: string) => {
  const i = path.lastIndexOf("/")
  return i <= 0 ? "/" : path.slice(0, i)
}

/** POSIX `relative(from, to)` for absolute normalised paths. */
export const relative = (from: string, to: string): string => {
  if (to === from) return "."
  if (to.startsWith(from === "/" ? "/" : `${from}/`)) return to.slice(from === "/" ? 1 : from.length + 1)
  const a = from.split("/").filter(Boolean)
  const b = to.split("/").filter(Boolean)
  let common = 0
  while (common < a.length && common < b.length && a[common] === b[common]) common++
  return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/")
}

const unique = (xs: ReadonlyArray<string>) => [...new Set(xs)]

/**
 * Resolves the analysis's paths with Workspace and builds the requests. `workdir` (already
 * resolved by the caller) is checked like a `cd` target.
 */
export const plan = Effect.fn("Bash.plan")(function*(
  analysis: Analysis,
  options: { readonly workdir?: string | undefined; readonly description?: string | undefined } = {}
): Effect.fn.Return<
  Plan,
  Workspace.PathResolutionError,
  Workspace.Workspace | FileSystem.FileSystem | Permission.Permission
> {
  const workspace = yield* Workspace.Workspace
  const fs = yield* FileSystem.FileSystem
  const permission = yield* Permission.Permission
  const uses: Array<PathUse> = [...analysis.paths]
  if (options.workdir !== undefined) {
    uses.unshift({ input: options.workdir, path: analysis.cwd, access: "read", kind: "directory", source: "cd", command: "(workdir)" })
  }
  const paths: Array<ResolvedPath> = []
  // A long script names the same paths again and again: each is resolved (and stat'ed) once.
  const resolved = new Map<string, Workspace.Resolved>()
  const directories = new Map<string, boolean>()
  for (const use of uses) {
    let r = resolved.get(use.path)
    if (r === undefined) {
      r = yield* workspace.resolve(use.path)
      resolved.set(use.path, r)
    }
    let directory: string | undefined
    if (!r.inside && !(use.access === "read" && r.spill)) {
      let isDirectory = use.kind === "directory" || directories.get(r.real)
      if (isDirectory === undefined) {
        const real = r.real
        isDirectory = r.exists &&
          (yield* fs.stat(real).pipe(Effect.map((i) => i.type === "Directory"), Effect.orElseSucceed(() => false)))
        directories.set(real, isDirectory)
      }
      directory = isDirectory ? r.real : parentOf(r.real)
    }
    paths.push({ ...use, real: r.real, inside: r.inside, directory })
  }

  const requests: Array<Tool.AskInput> = []
  const outside = paths.filter((p) => p.directory !== undefined)
  if (outside.length > 0) {
    const patterns = unique(outside.map((p) => p.directory === "/" ? "/*" : `${p.directory}/*`))
    requests.push({
      permission: "external_directory",
      patterns,
      always: patterns,
      metadata: {
        command: analysis.source,
        directories: unique(outside.map((p) => p.directory!)),
        paths: outside.map((p) => ({ path: p.real, input: p.input, access: p.access, command: p.command }))
      }
    })
  }
  const writes = paths.filter((p) => p.access === "write")
  if (writes.length > 0) {
    const patterns = unique(writes.map((p) => relative(workspace.root, p.real)))
    requests.push({
      permission: "edit",
      patterns,
      always: patterns,
      metadata: { command: analysis.source, files: unique(writes.map((p) => p.real)) }
    })
  }
  const patterns = [...analysis.patterns]
  let ruleset: Permission.Ruleset | undefined
  if (analysis.unsupported.length > 0) {
    const marker = unanalysedPattern(analysis.source)
    patterns.push(marker)
    // The forcing rule would also override a configured deny: keep the deny.
    const configured = yield* permission.evaluate("bash", marker)
    if (configured.action !== "deny") ruleset = [FORCE_ASK]
  }
  if (patterns.length > 0) {
    requests.push({
      permission: "bash",
      patterns: unique(patterns),
      always: analysis.always,
      metadata: {
        command: analysis.source,
        ...(options.description === undefined ? {} : { description: options.description }),
        ...(analysis.unsupported.length > 0 ? { unsupported: analysis.unsupported } : {})
      },
      ...(ruleset === undefined ? {} : { ruleset })
    })
  }
  // The prompt shows the command once, with what the analysis found, on the call's last request.
  const display = commandDisplay(analysis, paths, workspace.root)
  const shown = requests.map((request, i) => i === requests.length - 1 ? { ...request, display } : request)
  return { analysis, paths, requests: shown } satisfies Plan
})

/** The command as a prompt shows it, with one note per thing the analysis found worth a look. */
export const commandDisplay = (
  analysis: Analysis,
  paths: ReadonlyArray<ResolvedPath>,
  root: string
): Permission.Display => {
  const notes: Array<string> = []
  if (analysis.cwd !== root) notes.push(`runs in ${analysis.cwd}`)
  const writes = unique(paths.filter((p) => p.access === "write").map((p) => p.inside ? relative(root, p.real) : p.real))
  if (writes.length > 0) notes.push(`writes ${writes.join(", ")}`)
  const outside = unique(paths.filter((p) => p.directory !== undefined).map((p) => p.directory!))
  if (outside.length > 0) notes.push(`reaches outside the workspace: ${outside.join(", ")}`)
  if (analysis.unsupported.length > 0) notes.push(`not fully analysed (always asked): ${analysis.unsupported.join("; ")}`)
  return { kind: "command", command: analysis.source, notes }
}
