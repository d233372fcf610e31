/**
 * `agent-tools call <tool> [<json>|-]`: one tool call in a workspace. The result's output goes to
 * stdout with a line per attachment (or `{title, output, metadata, attachments?}` with `--json`), failures to stderr with the contract's
 * exit code. Permission asks prompt on a TTY, are rejected without one, and approved with `--yes`.
 * A running tool's output (bash) streams to stderr only when stdout is not a terminal.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stdio from "effect/Stdio"
import type * as Terminal from "effect/Terminal"
import { Argument, Command } from "effect/cli"
import { MetadataBound, Permission, Tool, ToolRegistry } from "@agent-tools/core"
import * as Exit from "./Exit.ts"
import * as Flags from "./Flags.ts"
import * as Input from "./Input.ts"
import * as Output from "./Output.ts"
import * as Prompt from "./Prompt.ts"
import * as Questions from "./Questions.ts"

export const SESSION_ID = "cli"

const NO_TTY_HINT = "No terminal to ask on: permission asks are rejected. Pass --yes to approve them, " +
  "or allow them in agent-tools.json (\"permission\")."

/**
 * What `--json` prints for a result: its metadata bounded by the same byte limit as its text
 * (`MetadataBound`), so what the truncation cut does not come back whole beside it.
 */
export const resultJson = (result: Tool.Result, maxBytes: number) => ({
  title: result.title,
  output: result.output,
  metadata: MetadataBound.bound(result.metadata, maxBytes),
  ...(result.attachments === undefined || result.attachments.length === 0 ? {} : { attachments: result.attachments })
})

type Mode = "prompt" | "yes" | "reject"

/** Runs the call inside the tool layer; remembers whether a permission was refused. */
const execute = Effect.fnUntraced(function*(tool: string, args: unknown, mode: Mode) {
  const registry = yield* ToolRegistry.ToolRegistry
  // Streamed to stderr only when the result goes elsewhere: on one terminal it would show twice.
  const live = (yield* (yield* Stdio.Stdio).stdoutIsTerminal) ? undefined : yield* Output.liveOutput()
  const base = yield* Tool.makeContext({ sessionID: SESSION_ID, tool, ...(live === undefined ? {} : { metadata: live.update }) })
  const context = mode === "prompt" ? yield* Prompt.interactive(base) : base
  let refused: Permission.PermissionRejectedError | Permission.PermissionDeniedError | undefined
  type Refusal = Permission.PermissionRejectedError | Permission.PermissionDeniedError
  const remember = (asking: Effect.Effect<void, Refusal>) =>
    asking.pipe(Effect.tapError((e) => Effect.sync(() => void (refused = e))))
  const tracked: Tool.Context = {
    ...context,
    ask: (input) => remember(context.ask(input)),
    askAll: (inputs) => remember(context.askAll(inputs))
  }
  const result = yield* registry.execute(tool, args, tracked).pipe(
    Effect.ensuring(live?.finish ?? Effect.void),
    Effect.mapError((e) => {
      const failure = Exit.classify(e)
      // A tool may wrap a refusal in its own error: the exit code still says "permission".
      const code = refused !== undefined && failure.code === Exit.TOOL_FAILURE ? Exit.PERMISSION : failure.code
      const hint = mode === "reject" && refused?._tag === "PermissionRejectedError" ? `\n${NO_TTY_HINT}` : ""
      return new Exit.CliFailure({ code, message: failure.message + hint })
    })
  )
  return { result, maxBytes: yield* MetadataBound.maxBytesOf(tool, tracked) }
})

export const command = Command.make(
  "call",
  {
    tool: Argument.String("tool").pipe(Argument.withDescription("The tool to call, e.g. read (see `agent-tools tools`)")),
    input: Argument.String("json").pipe(
      Argument.withDescription("The arguments as a JSON object, or - to read them from stdin (default: {})"),
      Argument.optional
    ),
    cwd: Flags.cwd,
    config: Flags.config,
    json: Flags.json("Print the result as JSON: {title, output, metadata, attachments?} (attachments as data URLs)"),
    yes: Flags.yes("Approve the permission asks the rules leave at ask (deny rules still deny)")
  },
  Effect.fn("Cli.call")(function*(flags) {
    const args = yield* Input.parseArguments(flags.input)
    const stdio = yield* Stdio.Stdio
    // Arguments read from stdin leave no terminal to answer prompts on.
    const tty = (yield* stdio.stdinIsTerminal) && !(Option.isSome(flags.input) && flags.input.value === "-")
    const mode: Mode = flags.yes ? "yes" : tty ? "prompt" : "reject"
    const unattended: Permission.LayerOptions["unattended"] = mode === "yes" ? "allow" : mode === "prompt" ? "wait" : "reject"
    // The question tool asks at the terminal when there is one.
    const questions = Questions.layer(tty, yield* Effect.context<Terminal.Terminal | Stdio.Stdio>())
    const { result, maxBytes } = yield* execute(flags.tool, args, mode).pipe(
      // One-shot calls never read first: the read-before-edit check only makes sense in a session.
      // Nothing a one-shot call starts may outlive it: the job tools refuse, saying why.
      Effect.provide(Flags.agentLayer(flags, { unattended, fileTime: { disabled: true }, analysisWorker: false, jobs: false, services: questions })),
      Effect.mapError(Exit.classify)
    )
    if (flags.json) yield* Output.line(JSON.stringify(resultJson(result, maxBytes), null, 2))
    else yield* Output.line([result.output, ...(result.attachments ?? []).map(Output.attachmentLine)].join("\n"))
  })
).pipe(
  Command.withDescription(
    "Call one tool in a workspace. Prints the output (or --json); exit 0 success, 1 tool failure, " +
      "2 usage error, 3 permission rejected. On a terminal, permission asks and the question tool's " +
      "questions are put to you there."
  ),
  Command.withExamples([
    { command: `agent-tools call read '{"filePath":"README.md"}'`, description: "Read a file of the current directory" },
    { command: `echo '{"command":"ls","description":"list"}' | agent-tools call bash - --yes`, description: "Arguments from stdin" }
  ])
)
