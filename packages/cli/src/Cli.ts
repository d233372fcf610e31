/**
 * The `agent-tools` command: subcommands, how usage errors are shown, and `main`, which runs the
 * command line and returns the exit code of the contract instead of failing.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Stdio from "effect/Stdio"
import { CliError, CliOutput, Command } from "effect/cli"
import type { Tool } from "@agent-tools/core"
import * as Call from "./Call.ts"
import * as Commands from "./Commands.ts"
import * as Exit from "./Exit.ts"
import * as Flags from "./Flags.ts"
import * as Mcp from "./Mcp.ts"
import * as Output from "./Output.ts"
import * as Trust from "./Trust.ts"
import { VERSION } from "./Version.ts"

export const cli = Command.make("agent-tools").pipe(
  Command.withDescription(
    "The agent-tools tool layer from the command line: list tools, call one, explain its permissions, " +
      "serve them over MCP, trust a workspace's own config."
  ),
  Command.withSubcommands([Commands.tools, Call.command, Mcp.command, Commands.explain, Commands.spill, Trust.command])
)

/**
 * Help and version on stdout; a usage error (its messages, then the command's help) on stderr, so
 * that stdout only ever carries what was asked for.
 */
const present = Effect.fnUntraced(function*(event: CliOutput.Presenter.Event) {
  const formatter = yield* CliOutput.Formatter
  switch (event._tag) {
    case "Help":
      return yield* Output.line(formatter.formatHelpDoc(event.helpDoc))
    case "Version":
      return yield* Output.line(formatter.formatVersion(event.name, event.version))
    case "InvalidInvocation":
      yield* Output.errorLine(formatter.formatErrors(event.errors))
      return yield* Output.errorLine(formatter.formatHelpDoc(event.helpDoc))
  }
})

const presenterLayer = Layer.unwrap(Effect.gen(function*() {
  const stdio = yield* Stdio.Stdio
  return CliOutput.layerPresenter({ present: (event) => present(event).pipe(Effect.provideService(Stdio.Stdio, stdio)) })
}))

const exitCodeOf = (error: unknown): Effect.Effect<number, never, Stdio.Stdio> => {
  if (error instanceof Exit.CliFailure) return Effect.as(Output.errorLine(error.message), error.code)
  if (CliError.isCliError(error)) {
    // Already presented by the CLI: help for a command without a handler is not an error.
    return Effect.succeed(error._tag === "ShowHelp" && error.errors.length === 0 ? Exit.OK : Exit.USAGE)
  }
  const failure = Exit.classify(error)
  return Effect.as(Output.errorLine(failure.message), failure.code)
}

export interface MainOptions {
  /** The tool definitions to offer instead of the built-ins (for embedders and tests). */
  readonly tools?: ReadonlyArray<Tool.Definition<string, any, any>> | undefined
}

/**
 * Runs the command line `args` (without the node and script paths) and returns its exit code:
 * 0 success, 1 tool failure, 2 usage error, 3 permission rejected. Messages go to stderr. Logs go to
 * stderr at warning level and above unless `--log-level` says otherwise.
 */
export const main = (args: ReadonlyArray<string>, options: MainOptions = {}) =>
  Command.runWith(cli, { version: VERSION })(args).pipe(
    Effect.provideService(Flags.Tools, options.tools),
    Effect.as(Exit.OK),
    Effect.catch(exitCodeOf),
    Effect.catchDefect((defect) =>
      Effect.as(Output.errorLine(`agent-tools: internal error: ${Cause.pretty(Cause.die(defect))}`), Exit.TOOL_FAILURE)
    ),
    Effect.provide(Layer.mergeAll(
      presenterLayer,
      Layer.succeed(Logger.LogToStderr, true),
      Layer.succeed(References.MinimumLogLevel, "Warn")
    ))
  )
