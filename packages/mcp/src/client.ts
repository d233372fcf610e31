/**
 * `@agent-tools/mcp/client`: tools of other MCP servers in a registry. A module of its own so a
 * host that configures servers loads only this (the SDK's client follows when a server starts).
 */
export * as McpClient from "./McpClient.ts"
export * as McpConnection from "./client/Connection.ts"
export * as McpServers from "./client/McpServers.ts"
export * as ServerConfig from "./client/ServerConfig.ts"
