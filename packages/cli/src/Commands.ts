/**
 * `agent-tools tools`, `explain` and `spill list|cleanup`.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stdio from "effect/Stdio"
import type * as Terminal from "effect/Terminal"
import { Argument, Command } from "effect/cli"
import { SpillStorage, type Tool, ToolRegistry } from "@agent-tools/core"
import { Explain, NodeAgentTools, WorkspaceTrust } from "@agent-tools/runtime"
import * as Exit from "./Exit.ts"
import * as Flags from "./Flags.ts"
import * as Input from "./Input.ts"
import * as Output from "./Output.ts"
import * as Questions from "./Questions.ts"

// ---------------------------------------------------------------------------------------------
// tools

/** What `tools --json` prints for each tool. */
export const toolJson = (tool: Tool.Built) => ({
  name: tool.id,
  description: tool.description,
  inputSchema: tool.jsonSchema,
  annotations: tool.annotations
})

/** `read(filePath, offset?, limit?)` from the tool's JSON Schema. */
export const signature = (tool: Tool.Built): string => {
  const properties = (tool.jsonSchema.properties ?? {}) as Record<string, unknown>
  const required = new Set((tool.jsonSchema.required ?? []) as ReadonlyArray<string>)
  return `${tool.id}(${Object.keys(properties).map((k) => required.has(k) ? k : `${k}?`).join(", ")})`
}

const firstLine = (text: string) => text.trim().split("\n")[0] ?? ""

export const tools = Command.make(
  "tools",
  {
    cwd: Flags.cwd,
    config: Flags.config,
    json: Flags.json("Print [{name, description, inputSchema, annotations}] as JSON")
  },
  Effect.fn("Cli.tools")(function*(flags) {
    // The tools a `call` from this terminal would have: question only when stdin is a terminal.
    const tty = yield* (yield* Stdio.Stdio).stdinIsTerminal
    const questions = Questions.layer(tty, yield* Effect.context<Terminal.Terminal | Stdio.Stdio>())
    const { list, warning } = yield* Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const settings = yield* NodeAgentTools.NodeSettings
      return { list: yield* registry.tools(), warning: WorkspaceTrust.warning(settings.trust) }
    }).pipe(Effect.provide(Flags.agentLayer(flags, { analysisWorker: false, services: questions })), Effect.mapError(Exit.classify))
    if (flags.json) return yield* Output.line(JSON.stringify(list.map(toolJson), null, 2))
    if (warning !== undefined) yield* Output.line(`Note: ${warning}\n\n`)
    if (list.length === 0) return yield* Output.line("No tools are available.")
    for (const tool of list) yield* Output.line(`${signature(tool)}\n    ${firstLine(tool.description)}`)
  })
).pipe(Command.withDescription(
  "List the tools of the workspace, with their descriptions and JSON Schemas (--json): the tools a call from " +
    "here can use (question only when stdin is a terminal; task needs a sub-agent runner, which the CLI has not; " +
    "batch when experimental.batch_tool is set; bash_output and bash_kill are listed, but a one-shot call of them, " +
    "or of bash with run_in_background, says that jobs need a long-lived session: the MCP server or the library), " +
    "and those of the MCP servers in the config's mcp key, which are " +
    "started for the listing (one that fails is a warning on stderr). When the workspace's own agent-tools.json is " +
    "not trusted (agent-tools trust), a first line names what of it was ignored"
))

// ---------------------------------------------------------------------------------------------
// explain

export const explain = Command.make(
  "explain",
  {
    tool: Argument.String("tool").pipe(Argument.withDescription("The tool, e.g. bash")),
    input: Argument.String("json").pipe(Argument.withDescription("The call's arguments as a JSON object, or - for stdin")),
    cwd: Flags.cwd,
    config: Flags.config,
    json: Flags.json(
      "Print {tool, action, source (tool | rule | none), decisions: [{permission, pattern, action, rule, source, reason}], " +
        "trust (the workspace config's ignored keys, when it is not trusted)}"
    )
  },
  Effect.fn("Cli.explain")(function*(flags) {
    const args = yield* Input.parseArguments(Option.some(flags.input))
    const { report, warning } = yield* Effect.gen(function*() {
      const settings = yield* NodeAgentTools.NodeSettings
      const report = yield* Explain.explain(flags.tool, args, { sessionID: "cli" })
      return { report, warning: WorkspaceTrust.warning(settings.trust) }
    }).pipe(
      Effect.provide(Flags.agentLayer(flags, { unattended: "reject", analysisWorker: false })),
      Effect.mapError(Exit.classify)
    )
    if (flags.json) return yield* Output.line(JSON.stringify({ ...report, ...(warning === undefined ? {} : { trust: warning }) }, null, 2))
    yield* Output.line(warning === undefined ? Explain.render(report) : `${Explain.render(report)}\nNote: ${warning}`)
  })
).pipe(
  Command.withDescription(
    "Show the permission decisions a call would need (each permission, pattern, decision and the rule " +
      "that decided), without running it: the call's plan (validation, the before hooks, the tool's own requests), the " +
      "very list `call` asks as one prompt. When the " +
      "workspace's own agent-tools.json is not trusted (agent-tools trust), a last line names what of it was ignored"
  ),
  Command.withExamples([{
    command: `agent-tools explain bash '{"command":"git status && rm -rf build","description":"clean"}'`,
    description: "Which rule decides each command"
  }])
)

// ---------------------------------------------------------------------------------------------
// spill

const withSpill = <A, E>(flags: Flags.Workspace, f: (spill: SpillStorage.SpillStorage["Service"], dir: string) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const settings = yield* Flags.settings(flags)
    const where = settings.spillS3 === undefined ? settings.spillDir : `s3://${settings.spillS3.bucket}/${settings.spillS3.prefix ?? ""}`
    return yield* SpillStorage.SpillStorage.use((spill) => f(spill, spill.directory ?? where)).pipe(
      Effect.provide(NodeAgentTools.spillLayer(settings))
    )
  }).pipe(Effect.mapError(Exit.classify))

const spillList = Command.make(
  "list",
  { cwd: Flags.cwd, config: Flags.config, json: Flags.json("Print [{path, size, mtime}] as JSON") },
  Effect.fn("Cli.spillList")(function*(flags) {
    const { entries, dir } = yield* withSpill(flags, (spill, dir) => Effect.map(spill.list, (entries) => ({ entries, dir })))
    if (flags.json) return yield* Output.line(JSON.stringify(entries, null, 2))
    if (entries.length === 0) return yield* Output.line(`No spilled outputs in ${dir}`)
    for (const e of entries) yield* Output.line(`${e.path}\t${e.size} bytes\t${new Date(e.mtime).toISOString()}`)
  })
).pipe(Command.withDescription("List the full outputs kept for this workspace's truncated tool calls"))

const spillCleanup = Command.make(
  "cleanup",
  { cwd: Flags.cwd, config: Flags.config, json: Flags.json("Print {deleted} as JSON") },
  Effect.fn("Cli.spillCleanup")(function*(flags) {
    const deleted = yield* withSpill(flags, (spill) => spill.cleanup)
    yield* Output.line(flags.json ? JSON.stringify({ deleted }) : `Deleted ${deleted} spilled output(s) past retention`)
  })
).pipe(Command.withDescription(
  "Delete this workspace's spilled outputs older than the retention (spill.retentionDays, default 7), " +
    "and old ones left at the top of spill.dir by earlier versions; files not named like a spill are never touched"
))

export const spill = Command.make("spill").pipe(
  Command.withDescription(
    "The spill store: full outputs of truncated tool calls, one private directory per workspace " +
      "under spill.dir (default: the user's data directory), or the objects under spill.s3's bucket and prefix; " +
      "--cwd selects the workspace"
  ),
  Command.withSubcommands([spillList, spillCleanup])
)
