/**
 * Tools of other MCP servers, added to a registry: each remote tool becomes a registry tool named
 * `<server>_<tool>` (provider-safe), with the server's JSON Schema (minus `$schema`),
 * its hints as annotations, a per-call timeout that progress resets, images and blobs as
 * attachments rather than base64 text, and the registry's truncation like any other tool.
 * Each call first asks the permission named after the tool (pattern `*`), so rules such as
 * `"github_create_issue": "allow"` decide, and unknown third-party tools default to asking.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Tool, ToolRegistry } from "@agent-tools/core"
import type { Truncate } from "@agent-tools/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"
import { ToolNames } from "@agent-tools/core"

export interface ServerConfig {
  /** Prefix of the tool ids (`<name>_<tool>`). */
  readonly name: string
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: Record<string, string> | undefined
  readonly cwd?: string | undefined
  /** The server's stderr: ours (default) or dropped. */
  readonly stderr?: "inherit" | "ignore" | undefined
  /** Per-call timeout, reset by progress notifications (default 5 minutes). */
  readonly timeout?: Duration.Input | undefined
}

export class McpClientError extends Schema.TaggedError<McpClientError>()("McpClientError", {
  server: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

const Arguments = z.record(z.string(), z.unknown())

const DATA = (mime: string, data: string) => `data:${mime};base64,${data}`

/** The registry result of an MCP call result. */
export const toResult = (tool: string, result: CallToolResult): Tool.Result => {
  const texts: Array<string> = []
  const attachments: Array<Tool.Attachment> = []
  for (const block of result.content) {
    if (block.type === "text") texts.push(block.text)
    else if (block.type === "image" || block.type === "audio") {
      attachments.push({ type: "file", mime: block.mimeType, url: DATA(block.mimeType, block.data) })
    } else if (block.type === "resource") {
      const r = block.resource
      if ("text" in r && typeof r.text === "string") texts.push(r.text)
      else if ("blob" in r && typeof r.blob === "string") {
        const mime = r.mimeType ?? "application/octet-stream"
        attachments.push({ type: "file", mime, url: DATA(mime, r.blob), filename: r.uri })
      }
    } else if (block.type === "resource_link") texts.push(`${block.name}: ${block.uri}`)
  }
  if (texts.length === 0 && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent))
  return {
    title: tool,
    output: texts.join("\n"),
    metadata: result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent },
    ...(attachments.length === 0 ? {} : { attachments })
  }
}

const definitionFor = (client: Client, server: ServerConfig, remote: McpTool, id: string) => {
  const timeout = Duration.toMillis(Duration.fromInputUnsafe(server.timeout ?? "5 minutes"))
  // One permission per remote tool, named after the tool: its rules allow, ask or deny it whole.
  const requests: ReadonlyArray<Tool.AskInput> = [
    { permission: id, patterns: ["*"], metadata: { server: server.name, tool: remote.name } }
  ]
  return Tool.define(id, {
    description: remote.description ?? remote.title ?? `${remote.name} (MCP server ${server.name})`,
    parameters: Arguments,
    annotations: { readOnly: remote.annotations?.readOnlyHint, destructive: remote.annotations?.destructiveHint },
    requests: () => Effect.succeed(requests),
    execute: (args, ctx) =>
      Effect.gen(function*() {
        yield* ctx.askAll(requests)
        const result = yield* Effect.tryPromise({
          try: (signal) =>
            client.callTool({ name: remote.name, arguments: args }, undefined, {
              signal: AbortSignal.any([signal, ctx.abort]),
              timeout,
              resetTimeoutOnProgress: true
            }) as Promise<CallToolResult>,
          catch: (cause) =>
            new Tool.ToolError({
              tool: id,
              message: `MCP server "${server.name}" failed on ${remote.name}: ${
                cause instanceof Error ? cause.message : String(cause)
              }`,
              cause
            })
        })
        const mapped = toResult(remote.name, result)
        if (result.isError === true) return yield* new Tool.ToolError({ tool: id, message: mapped.output })
        return mapped
      })
  })
}

/** Connects a client on `transport`; closed with the scope. */
export const connect = Effect.fn("McpClient.connect")(function*(server: ServerConfig, transport: Transport) {
  const client = new Client({ name: "agent-tools", version: "0.1.0" })
  yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => client.connect(transport),
      catch: (cause) => new McpClientError({ server: server.name, message: `could not connect: ${String(cause)}`, cause })
    }),
    () => Effect.promise(() => client.close())
  )
  return client
})

/** The remote tools of one connected server as built registry tools (its schema kept as is). */
export const toolsOf = Effect.fn("McpClient.toolsOf")(function*(client: Client, server: ServerConfig) {
  const { tools } = yield* Effect.tryPromise({
    try: () => client.listTools(),
    catch: (cause) => new McpClientError({ server: server.name, message: `tools/list failed: ${String(cause)}`, cause })
  })
  const names = ToolNames.assign(tools.map((t) => `${server.name}_${t.name}`))
  const built: Array<Tool.Built> = []
  for (const remote of tools) {
    const id = names.toName.get(`${server.name}_${remote.name}`)!
    const tool = yield* Tool.build(definitionFor(client, server, remote, id))
    const { $schema: _ignored, ...schema } = remote.inputSchema as Record<string, unknown>
    built.push({ ...tool, jsonSchema: schema })
  }
  return built
})

/**
 * Adds the tools of every server to the registry in context for the life of the scope: spawned
 * over stdio, unregistered and closed when the scope closes. Returns the registered ids.
 */
export const register = Effect.fn("McpClient.register")(function*(
  servers: ReadonlyArray<ServerConfig>
): Effect.fn.Return<ReadonlyArray<string>, McpClientError, ToolRegistry.ToolRegistry | Truncate.Truncate | Scope.Scope> {
  const registry = yield* ToolRegistry.ToolRegistry
  const ids: Array<string> = []
  for (const server of servers) {
    const transport = new StdioClientTransport({
      command: server.command,
      args: [...(server.args ?? [])],
      ...(server.env === undefined ? {} : { env: server.env }),
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
      stderr: server.stderr ?? "inherit"
    })
    const client = yield* connect(server, transport)
    for (const tool of yield* toolsOf(client, server)) {
      yield* registry.register(tool)
      yield* Effect.addFinalizer(() => registry.unregister(tool.id))
      ids.push(tool.id)
    }
  }
  return ids
})

/** `register` as a layer over a registry: the servers live as long as the layer. */
export const layer = (
  servers: ReadonlyArray<ServerConfig>
): Layer.Layer<never, McpClientError, ToolRegistry.ToolRegistry | Truncate.Truncate> =>
  Layer.effectDiscard(register(servers))
