/**
 * `@agent-tools/mcp`: the MCP server over a ToolRegistry (stdio for `agent-tools mcp`).
 *
 * @example
 * ```ts
 * import { McpServer } from "@agent-tools/mcp"
 * // Permission must wait for replies (unattended "wait"): the server answers asks itself.
 * // The client's user answers the question tool and its model runs the task tool's sub-agents.
 * const client = ClientServices.make()
 * McpServer.serveStdioWith(NodeAgentTools.layer({ cwd, config, services: client.layer }), { yes, version, client })
 *   .pipe(NodeRuntime.runMain)
 * ```
 */
export * as ClientServices from "./ClientServices.ts"
export * as Elicitation from "./Elicitation.ts"
export * as Mapping from "./Mapping.ts"
export * as McpClient from "./McpClient.ts"
export * as McpConnection from "./client/Connection.ts"
export * as McpServers from "./client/McpServers.ts"
export * as McpServerConfig from "./client/ServerConfig.ts"
export * as McpServer from "./Server.ts"
export * as QuestionForm from "./QuestionForm.ts"
export * as Sampling from "./Sampling.ts"
export * as Responder from "./Responder.ts"
export * as Stdio from "./Stdio.ts"
export * as StdioTransport from "./StdioTransport.ts"
export * as MessageEnvelope from "./MessageEnvelope.ts"
