/**
 * The tools of another MCP server as registry tools: each remote tool becomes a tool named
 * `<server>_<tool>` (provider-safe, at most 64 characters, a stable hash when cut), with the
 * server's JSON Schema (minus `$schema`), its hints as annotations, images and blobs as
 * attachments rather than base64 text, and the registry's truncation like any other tool.
 * Each call asks the permission named after the tool (pattern `*`), so rules such as
 * `"github_create_issue": "allow"` or `"github_*": "ask"` decide, and unknown third-party tools
 * default to asking.
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Tool, ToolNames } from "@agent-tools/core"
import type { CallToolResult, Progress, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"
import type { Connection } from "./client/Connection.ts"

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

/**
 * The reason of a remote tool's error: the one its `structuredContent.error.reason` names when it
 * is one of ours (an agent-tools server sends it), else `other`.
 */
const remoteReason = (result: { readonly structuredContent?: Record<string, unknown> | undefined }): Tool.ToolErrorReason => {
  const error = result.structuredContent?.error
  const reason = typeof error === "object" && error !== null && "reason" in error ? error.reason : undefined
  return Schema.is(Tool.ToolErrorReason)(reason) ? reason : "other"
}

/** The registry tool for one remote tool of a connected server. */
export const definitionFor = (connection: Connection, remote: McpTool, id: string) => {
  // One permission per remote tool, named after the tool: its rules allow, ask or deny it whole.
  const requests: ReadonlyArray<Tool.AskInput> = [
    { permission: id, patterns: ["*"], metadata: { server: connection.server, tool: remote.name } }
  ]
  return Tool.define(id, {
    description: remote.description ?? remote.title ?? `${remote.name} (MCP server ${connection.server})`,
    parameters: Arguments,
    annotations: {
      readOnly: remote.annotations?.readOnlyHint,
      destructive: remote.annotations?.destructiveHint,
      openWorld: remote.annotations?.openWorldHint
    },
    requests: () => Effect.succeed(requests),
    execute: (args, ctx) =>
      Effect.gen(function*() {
        // The server's progress reports become the call's own (an MCP caller gets them as progress),
        // in order, all of them before the result.
        const reports = yield* Queue.unbounded<Progress, Cause.Done>()
        const forwarding = yield* Effect.forkChild(Stream.runForEach(Stream.fromQueue(reports), (p) =>
          ctx.metadata({
            title: p.message ?? `${remote.name}: ${p.progress}${p.total === undefined ? "" : `/${p.total}`}`,
            metadata: { progress: p.progress, total: p.total }
          })))
        const result = yield* connection.call(remote.name, args, ctx.abort, (p) => void Queue.offerUnsafe(reports, p)).pipe(
          Effect.mapError((e) => new Tool.ToolError({ tool: id, reason: "unavailable", message: e.message, cause: e })),
          Effect.ensuring(Effect.andThen(Queue.end(reports), Fiber.join(forwarding)))
        )
        const mapped = toResult(remote.name, result)
        if (result.isError === true) return yield* new Tool.ToolError({ tool: id, reason: remoteReason(result), message: mapped.output })
        return mapped
      })
  })
}

/**
 * The registry ids of a server's tools: `<prefix>_<tool>`, provider-safe and unique, the same
 * names for the same tools on every run.
 */
export const idsOf = (prefix: string, names: ReadonlyArray<string>): ReadonlyMap<string, string> => {
  const assigned = ToolNames.assign(names.map((name) => `${prefix}_${name}`))
  return new Map(names.map((name) => [name, assigned.toName.get(`${prefix}_${name}`)!]))
}

/** The remote tools of one server as built registry tools (their schemas kept as they are). */
export const toolsOf = Effect.fn("McpClient.toolsOf")(function*(
  connection: Connection,
  prefix: string,
  remotes: ReadonlyArray<McpTool>
) {
  const ids = idsOf(prefix, remotes.map((t) => t.name))
  const built: Array<Tool.Built> = []
  for (const remote of remotes) {
    const tool = yield* Tool.build(definitionFor(connection, remote, ids.get(remote.name)!))
    const { $schema: _ignored, ...schema } = remote.inputSchema as Record<string, unknown>
    built.push({ ...tool, jsonSchema: schema })
  }
  return built
})
