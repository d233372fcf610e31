/**
 * What permissions a tool call would need, without running it: the call's plan
 * (`ToolRegistry.plan`: validation, the before hooks, the tool's permission requests — the very
 * list the call asks before it runs) and, for each pattern, the decision and the rule that decided.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Permission, PermissionRules, Sandbox, Tool, ToolRegistry } from "@agent-tools/core"

export interface Decision {
  readonly permission: string
  readonly pattern: string
  readonly action: Permission.Action
  /** The deciding rule; null when none matched (the default is ask). */
  readonly rule: Permission.Rule | null
  readonly source: "rules" | "ruleset" | "approval" | "always-ask" | null
  /** One line: the rule, or that no rule matched. */
  readonly reason: string
}

export interface Report {
  readonly tool: string
  /** deny if any decision denies, else ask if any asks, else allow. */
  readonly action: Permission.Action
  /**
   * `tool`: the tool's own requests for these arguments; `rule`: a rule denies the whole tool;
   * `none`: the tool declares no requests (a custom tool may still ask while it runs).
   */
  readonly source: "tool" | "rule" | "none"
  readonly decisions: ReadonlyArray<Decision>
  /** What only the running call decides, one line each (bash in a proxied sandbox: each host it connects to). */
  readonly atRunTime?: ReadonlyArray<string> | undefined
}

const reasonOf = (d: Permission.Decision): string => {
  const line = Permission.explainText({ action: d.action, decisions: [d] })
  // explainText renders `<action> <permission> "<pattern>": <reason>`; keep the reason.
  const at = line.indexOf(": ")
  return at === -1 ? line : line.slice(at + 2)
}

const combine = (decisions: ReadonlyArray<Decision>): Permission.Action =>
  decisions.some((d) => d.action === "deny") ? "deny" : decisions.some((d) => d.action === "ask") ? "ask" : "allow"

export interface Options {
  readonly sessionID?: string | undefined
  readonly agent?: string | undefined
}

const findTool = Effect.fnUntraced(function*(id: string, agent: string) {
  const registry = yield* ToolRegistry.ToolRegistry
  const ids = yield* registry.ids
  // Same lookup as ToolRegistry.execute: exact, else a unique case-insensitive match.
  const found = ids.includes(id) ? id : ids.find((t) => t.toLowerCase() === id.toLowerCase())
  // An id not registered yet may be an MCP server's: `get` starts the server that claims it.
  const tool = yield* registry.get(found ?? id)
  if (Option.isNone(tool)) {
    const available = (yield* registry.tools({ agent })).map((t) => t.id)
    return yield* new ToolRegistry.UnknownToolError({ tool: id, available })
  }
  return tool.value
})

export type ExplainError = ToolRegistry.UnknownToolError | ToolRegistry.ToolUnavailableError | Tool.CallError

type Requirements = ToolRegistry.ToolRegistry | Permission.Permission | Sandbox.Sandbox

const decisionOf = (d: Permission.Decision): Decision => ({
  permission: d.permission,
  pattern: d.pattern,
  action: d.action,
  rule: d.rule ?? null,
  source: d.source ?? null,
  reason: reasonOf(d)
})

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
  // A tool a rule denies outright is refused before its arguments are looked at.
  if (PermissionRules.disabled([tool.id], permission.rules).has(tool.id)) {
    const d = yield* permission.evaluate(PermissionRules.permissionOf(tool.id), "*")
    return { tool: tool.id, action: "deny", source: "rule", decisions: [decisionOf(d)] } satisfies Report
  }
  // The same plan the call makes (a tool that cannot be offered here fails it alike); the
  // context's ask is never called: a plan only computes what the call would ask.
  const registry = yield* ToolRegistry.ToolRegistry
  const ctx = yield* Tool.makeContext({ sessionID, agent, tool: tool.id })
  const plan = yield* registry.plan(tool.id, args, ctx)
  if (!tool.declaresRequests) return { tool: tool.id, action: "allow", source: "none", decisions: [] } satisfies Report
  const decisions: Array<Decision> = []
  for (const request of plan.requests) {
    const explanation = yield* permission.explain({ ...request, sessionID })
    decisions.push(...explanation.decisions.map(decisionOf))
  }
  const atRunTime = yield* runTimeDecisions(tool.id)
  return {
    tool: tool.id,
    action: combine(decisions),
    source: "tool",
    decisions,
    ...(atRunTime.length === 0 ? {} : { atRunTime })
  } satisfies Report
})

/** Tools whose commands run in the sandbox, where the network proxy asks per host. */
const SANDBOXED_TOOLS: ReadonlySet<string> = new Set(["bash"])

/** What a tool asks while it runs, beyond its plan, in a sentence. */
const ASKED_WHILE_RUNNING: Readonly<Record<string, string>> = {
  bash_output:
    "input: text written to a job running a shell or an interpreter is code, asked as a bash command when it is written (input to other programs is not asked)"
}

const runTimeDecisions = Effect.fnUntraced(function*(tool: string) {
  if (Object.hasOwn(ASKED_WHILE_RUNNING, tool)) return [ASKED_WHILE_RUNNING[tool]!]
  if (!SANDBOXED_TOOLS.has(tool)) return []
  const status = yield* (yield* Sandbox.Sandbox).status
  return status.sandboxed && status.network === "proxy"
    ? [`network: each host the command connects to is decided while it runs (permission "network", one request per host)`]
    : []
})

const NOTE: Record<Report["source"], string> = {
  tool: "",
  rule: " (a rule denies the tool)",
  none: " (the tool declares no permission requests; it may still ask while it runs)"
}

/** The text form: a summary line, then one line per decision. */
export const render = (report: Report): string =>
  [
    `${report.tool}: ${report.action}${NOTE[report.source]}`,
    ...report.decisions.map((d) => `  ${d.action} ${d.permission} ${JSON.stringify(d.pattern)}: ${d.reason}`),
    ...(report.atRunTime ?? []).map((line) => `  at run time: ${line}`)
  ].join("\n")
