/**
 * `@agent-tools/mcp`: the MCP server over a ToolRegistry (stdio for `agent-tools mcp`).
 *
 * @example
 * ```ts
 * import { McpServer } from "@agent-tools/mcp"
 * // Permission must wait for replies (unattended "wait"): the server answers asks itself.
 * McpServer.serveStdioWith(NodeLayer.layer({ cwd, config }), { yes, version }).pipe(NodeRuntime.runMain)
 * ```
 */
export * as Elicitation from "./Elicitation.ts"
export * as Mapping from "./Mapping.ts"
export * as McpClient from "./McpClient.ts"
export * as McpServer from "./Server.ts"
export * as Responder from "./Responder.ts"
export * as Stdio from "./Stdio.ts"
export * as StdioTransport from "./StdioTransport.ts"
export * as MessageEnvelope from "./MessageEnvelope.ts"
