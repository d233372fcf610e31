/**
 * `agent-tools mcp`: the workspace's tools as an MCP server on stdio (see `@agent-tools/mcp`).
 * stdout carries only protocol messages; logs and diagnostics go to stderr.
 */
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import * as Exit from "./Exit.ts"
import * as Flags from "./Flags.ts"
import { VERSION } from "./Version.ts"

export const command = Command.make(
  "mcp",
  {
    cwd: Flags.cwd,
    config: Flags.config,
    yes: Flags.yes("When the client cannot show permission prompts (no elicitation), approve asks instead of rejecting them")
  },
  Effect.fn("Cli.mcp")(function*(flags) {
    // Loaded on demand: the MCP SDK is only needed by this command.
    const { ClientServices, McpServer } = yield* Effect.promise(() => import("@agent-tools/mcp"))
    // The client's user answers the question tool, its model runs the task tool's sub-agents.
    const client = ClientServices.make()
    // The server answers asks itself (elicitation, else --yes): Permission must wait for its replies.
    yield* McpServer.serveStdioWith(Flags.agentLayer(flags, { unattended: "wait", services: client.layer }), {
      yes: flags.yes,
      version: VERSION,
      client
    }).pipe(Effect.mapError(Exit.classify))
  })
).pipe(
  Command.withDescription(
    "Serve the workspace's tools over MCP on stdio until the client closes stdin. Permission asks go " +
      "to the client as elicitations when it supports them, else follow the config and --yes. The question " +
      "tool is listed to clients that support elicitation, the task tool (a sub-agent on the client's model) " +
      "to clients that offer sampling. A message " +
      "over the size limit (10 MiB) gets its own error; the server keeps serving the others. The workspace's own " +
      "agent-tools.json applies in full only once you ran `agent-tools trust` on it (else it may only narrow your " +
      "config, and what it would change is a warning on stderr); --config FILE names a trusted config instead."
  )
)
