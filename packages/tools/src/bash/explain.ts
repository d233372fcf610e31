/**
 * The analysis as Effects a front end can call without running anything:
 * `Bash.analyzeCommand(command, {cwd})` and `Bash.explain(command, {cwd})`, which adds the
 * permission requests and, for every pattern, the decision and the rule that made it.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import { Permission, Tool, Workspace } from "@agent-tools/core"
import { type Analysis, analyzeBounded } from "./analysis.ts"
import { BashConfig, environment } from "./config.ts"
import { BashParser } from "./parser.ts"
import { plan, type ResolvedPath } from "./permissions.ts"
import { normalize } from "./paths.ts"

export interface AnalyzeOptions {
  /** Where the command starts: absolute, or relative to the workspace root (default: the root). */
  readonly cwd?: string | undefined
  /** Overrides the home directory of the environment / config. */
  readonly home?: string | undefined
}

/** `cwd` as an absolute, lexically normalised path (relative to the workspace root). */
export const directoryOf = (root: string, cwd: string | undefined): string =>
  cwd === undefined ? root : normalize(cwd.startsWith("/") ? cwd : `${root}/${cwd}`)

/** Parses and analyses `command` (commands, patterns, paths, unsupported parts). */
export const analyzeCommand = Effect.fn("Bash.analyze")(function*(command: string, options: AnalyzeOptions = {}) {
  const parser = yield* (yield* BashParser).parser
  const workspace = yield* Workspace.Workspace
  const env = yield* environment(yield* BashConfig)
  return yield* analyzeBounded(parser, command, { cwd: directoryOf(workspace.root, options.cwd), home: options.home ?? env.home })
})

export interface RequestExplanation extends Tool.AskInput {
  readonly action: Permission.Action
  readonly decisions: ReadonlyArray<Permission.Decision>
}

export interface Explanation {
  readonly analysis: Analysis
  readonly paths: ReadonlyArray<ResolvedPath>
  readonly requests: ReadonlyArray<RequestExplanation>
  /** deny if any request is denied, else ask if any asks, else allow. */
  readonly action: Permission.Action
}

export interface ExplainOptions extends AnalyzeOptions {
  /** Session approvals to take into account. */
  readonly sessionID?: string | undefined
}

const combine = (actions: ReadonlyArray<Permission.Action>): Permission.Action =>
  actions.includes("deny") ? "deny" : actions.includes("ask") ? "ask" : "allow"

/** What running `command` would ask, and what the rules would decide, without running it. */
export const explain = Effect.fn("Bash.explain")(function*(
  command: string,
  options: ExplainOptions = {}
): Effect.fn.Return<
  Explanation,
  Workspace.PathResolutionError | import("./parser.ts").BashParserError | import("./analysis.ts").BashAnalysisError,
  BashParser | Workspace.Workspace | Permission.Permission | FileSystem.FileSystem
> {
  const permission = yield* Permission.Permission
  const analysis = yield* analyzeCommand(command, options)
  const planned = yield* plan(analysis, { workdir: options.cwd })
  const requests: Array<RequestExplanation> = []
  for (const request of planned.requests) {
    const e = yield* permission.explain({ ...request, sessionID: options.sessionID ?? "explain" })
    requests.push({ ...request, action: e.action, decisions: e.decisions })
  }
  return { analysis, paths: planned.paths, requests, action: combine(requests.map((r) => r.action)) }
})

/** A human-readable report: commands, paths, unsupported parts, then one line per decision. */
export const format = (e: Explanation): string => {
  const lines: Array<string> = [`${e.action}: ${e.analysis.source}`]
  for (const c of e.analysis.commands) {
    lines.push(`  command ${c.patterns[0] ?? c.text}${c.via.length > 0 ? ` (via ${c.via.join(", ")})` : ""}`)
  }
  for (const p of e.paths) {
    lines.push(`  ${p.access} ${p.real}${p.inside ? "" : " (outside the workspace)"} ← ${p.input} in ${p.command}`)
  }
  for (const u of e.analysis.unsupported) lines.push(`  not analysable: ${u}`)
  for (const r of e.requests) {
    lines.push(...Permission.explainText({ action: r.action, decisions: r.decisions }).split("\n").map((l) => `  ${l}`))
  }
  return lines.join("\n")
}
