/**
 * What permissions a tool call would need, without running it: the requests the call would make
 * (from the tool's own `explain`, else derived from its arguments) and, for each pattern, the
 * decision and the rule that decided.
 */
import { Effect, type FileSystem, Option, Path } from "effect"
import { Permission, PermissionRules, Tool, ToolRegistry, Workspace } from "@agent-tools/core"
import { Bash } from "@agent-tools/tools"

export interface Decision {
  readonly permission: string
  readonly pattern: string
  readonly action: Permission.Action
  /** The deciding rule; null when none matched (the default is ask). */
  readonly rule: Permission.Rule | null
  readonly source: "rules" | "ruleset" | "approval" | null
  /** One line: the rule, or that no rule matched. */
  readonly reason: string
}

export interface Report {
  readonly tool: string
  /** deny if any decision denies, else ask if any asks, else allow. */
  readonly action: Permission.Action
  /** `tool`: the tool analysed its own call; `derived`: the requests were derived from the arguments. */
  readonly source: "tool" | "derived"
  readonly decisions: ReadonlyArray<Decision>
}

const reasonOf = (d: Permission.Decision): string => {
  const line = Permission.explainText({ action: d.action, decisions: [d] })
  // explainText renders `<action> <permission> "<pattern>": <reason>`; keep the reason.
  const at = line.indexOf(": ")
  return at === -1 ? line : line.slice(at + 2)
}

const combine = (decisions: ReadonlyArray<Decision>): Permission.Action =>
  decisions.some((d) => d.action === "deny") ? "deny" : decisions.some((d) => d.action === "ask") ? "ask" : "allow"

type Args = Record<string, unknown>
const str = (args: Args, key: string): string | undefined => typeof args[key] === "string" ? args[key] : undefined

const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm

/**
 * The requests opencode-compatible tools make for these arguments: the tool's own permission with
 * its pattern, plus `external_directory` for a path outside the workspace. An approximation for
 * tools without `explain` (custom tools may ask for nothing at all).
 */
const derive = Effect.fnUntraced(function*(id: string, args: Args) {
  const workspace = yield* Workspace.Workspace
  const path = yield* Path.Path
  const requests: Array<Tool.AskInput> = []
  const outside = Effect.fnUntraced(function*(target: string, kind: "file" | "directory", access: "read" | "write") {
    const resolved = yield* workspace.resolve(target).pipe(Effect.option)
    if (Option.isNone(resolved)) return
    const r = resolved.value
    if (r.inside || (access === "read" && r.spill)) return
    const dir = kind === "directory" ? r.real : path.dirname(r.real)
    const pattern = dir === path.sep ? `${dir}*` : `${dir}${path.sep}*`
    requests.push({ permission: "external_directory", patterns: [pattern], metadata: { filepath: r.real, access } })
  })
  const relative = (p: string) => path.relative(workspace.root, path.resolve(workspace.root, p))
  switch (id) {
    case "read": {
      const file = str(args, "filePath") ?? ""
      yield* outside(file, "file", "read")
      requests.push({ permission: "read", patterns: [path.resolve(workspace.root, file)] })
      break
    }
    case "write":
    case "edit":
    case "multiedit": {
      const file = str(args, "filePath") ?? ""
      yield* outside(file, "file", "write")
      requests.push({ permission: "edit", patterns: [relative(file)] })
      break
    }
    case "apply_patch": {
      const files = [...(str(args, "patchText") ?? "").matchAll(PATCH_FILE)].map((m) => m[1]!.trim())
      for (const file of files) yield* outside(file, "file", "write")
      requests.push({ permission: "edit", patterns: files.map(relative) })
      break
    }
    case "grep":
    case "glob":
    case "list": {
      const dir = str(args, "path")
      if (dir !== undefined) yield* outside(dir, "directory", "read")
      const pattern = id === "list" ? path.resolve(workspace.root, dir ?? ".") : str(args, "pattern") ?? "*"
      requests.push({ permission: id, patterns: [pattern] })
      break
    }
    case "bash": {
      const workdir = str(args, "workdir")
      if (workdir !== undefined) yield* outside(workdir, "directory", "write")
      requests.push({ permission: "bash", patterns: [str(args, "command") ?? ""] })
      break
    }
    case "webfetch":
      requests.push({ permission: "webfetch", patterns: [str(args, "url") ?? "*"] })
      break
    case "task":
      requests.push({ permission: "task", patterns: [str(args, "subagent_type") ?? "*"] })
      break
    default:
      requests.push({ permission: PermissionRules.permissionOf(id), patterns: ["*"] })
  }
  return requests as ReadonlyArray<Tool.AskInput>
})

export interface Options {
  readonly sessionID?: string | undefined
  readonly agent?: string | undefined
}

const findTool = Effect.fnUntraced(function*(id: string, agent: string) {
  const registry = yield* ToolRegistry.ToolRegistry
  const ids = yield* registry.ids
  // Same lookup as ToolRegistry.execute: exact, else a unique case-insensitive match.
  const found = ids.includes(id) ? id : ids.find((t) => t.toLowerCase() === id.toLowerCase())
  const tool = found === undefined ? Option.none() : yield* registry.get(found)
  if (Option.isNone(tool)) {
    const available = (yield* registry.tools({ agent })).map((t) => t.id)
    return yield* new ToolRegistry.UnknownToolError({ tool: id, available })
  }
  return tool.value
})

export type ExplainError = ToolRegistry.UnknownToolError | Tool.CallError

type Requirements =
  | ToolRegistry.ToolRegistry
  | Permission.Permission
  | Workspace.Workspace
  | Path.Path
  | FileSystem.FileSystem
  | Bash.BashParser

/** Explains a call of `id` with raw model arguments (validated first). */
export const explain: (
  id: string,
  args: unknown,
  options?: Options
) => Effect.Effect<Report, ExplainError, Requirements> = Effect.fn("Explain.explain")(function*(
  id: string,
  args: unknown,
  options: Options = {}
) {
  const permission = yield* Permission.Permission
  const sessionID = options.sessionID ?? "explain"
  const agent = options.agent ?? "build"
  const tool = yield* findTool(id, agent)
  const valid = yield* tool.validate(args)
  // The context's ask is never called: an explain only reads the tool's analysis.
  const ctx = yield* Tool.makeContext({ sessionID, agent, tool: tool.id })
  const analysed = tool.explain !== undefined || tool.id === "bash"
  const requests = tool.explain !== undefined
    ? yield* tool.explain(valid, ctx)
    : tool.id === "bash"
    ? yield* bashRequests(valid as Args, sessionID)
    : tool.id === "batch"
    ? yield* batchRequests(valid, options)
    : yield* derive(tool.id, (valid ?? {}) as Args)
  const decisions: Array<Decision> = []
  for (const request of requests) {
    const explanation = yield* permission.explain({ ...request, sessionID })
    for (const d of explanation.decisions) {
      decisions.push({
        permission: d.permission,
        pattern: d.pattern,
        action: d.action,
        rule: d.rule ?? null,
        source: d.source ?? null,
        reason: reasonOf(d)
      })
    }
  }
  return {
    tool: tool.id,
    action: combine(decisions),
    source: analysed ? "tool" : "derived",
    decisions
  } satisfies Report
})

// The bash tool's own analysis (every sub-command, wrappers, redirects, paths), until BashTool
// provides it as `Tool.Def.explain`.
const bashRequests = (args: Args, sessionID: string) =>
  Bash.explain(str(args, "command") ?? "", { cwd: str(args, "workdir"), sessionID }).pipe(
    Effect.map((e): ReadonlyArray<Tool.AskInput> =>
      e.requests.map(({ action: _action, decisions: _decisions, ...request }) => request)
    ),
    Effect.mapError((e) => new Tool.ToolError({ tool: "bash", message: e.message }))
  )

// batch runs other tools: its requests are theirs.
const batchRequests = (
  args: unknown,
  options: Options
): Effect.Effect<ReadonlyArray<Tool.AskInput>, ExplainError, Requirements> =>
  Effect.gen(function*() {
    const calls = ((args as { tool_calls?: unknown }).tool_calls ?? []) as ReadonlyArray<{ tool: string; parameters: unknown }>
    const requests: Array<Tool.AskInput> = []
    for (const call of calls) {
      const report = yield* explain(call.tool, call.parameters, options)
      for (const d of report.decisions) requests.push({ permission: d.permission, patterns: [d.pattern] })
    }
    return requests as ReadonlyArray<Tool.AskInput>
  })

/** The text form: a summary line, then one line per decision. */
export const render = (report: Report): string =>
  [
    `${report.tool}: ${report.action}${report.source === "derived" ? " (requests derived from the arguments)" : ""}`,
    ...report.decisions.map((d) => `  ${d.action} ${d.permission} ${JSON.stringify(d.pattern)}: ${d.reason}`)
  ].join("\n")
