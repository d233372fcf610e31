/**
 * structuredContent is bounded like the text: a result whose metadata is bigger than the tool's
 * byte limit (todowrite's whole list, an upstream MCP server's structuredContent) comes back with
 * the big values replaced by a marker naming the spill, and the small keys intact.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TodoStore, Tool } from "@agent-tools/core"
import { Testing } from "@agent-tools/testing"
import { TodoWriteTool } from "@agent-tools/tools"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"
import { McpClient, McpServer } from "@agent-tools/mcp"

const MAX_BYTES = 51200
const size = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

/** About 1.5 MB of structured data, sent as text and as structuredContent, as MCP servers do. */
const upstreamPayload = { items: Array.from({ length: 15_000 }, (_, i) => ({ id: i, body: "x".repeat(80) })) }
const Upstream = Tool.define("docs_search", {
  description: "An upstream MCP server's tool",
  parameters: z.object({}),
  execute: () =>
    Effect.succeed(McpClient.toResult("docs_search", {
      content: [{ type: "text", text: JSON.stringify(upstreamPayload) }],
      structuredContent: upstreamPayload
    }))
})

const call = (name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = yield* McpServer.make()
    yield* Effect.promise(() => server.connect(serverSide))
    const client = new Client({ name: "bound-test", version: "0" })
    yield* Effect.promise(() => client.connect(clientSide))
    yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
    return (yield* Effect.promise(() => client.callTool({ name, arguments: args }))) as CallToolResult
  }).pipe(Effect.scoped)

const services = Testing.layer({ tools: [TodoWriteTool, Upstream], services: TodoStore.layerMemory })

describe("MCP structuredContent", () => {
  it.effect("an 8 MB todo list: the text and the structured metadata are both bounded", () =>
    Effect.gen(function*() {
      const todos = Array.from({ length: 80_000 }, (_, i) => ({ content: `todo number ${i} ${"t".repeat(50)}`, status: "pending" }))
      assert.isAbove(size(todos), 8_000_000)
      const result = yield* call("todowrite", { todos })
      const structured = result.structuredContent as { title: string; metadata: Record<string, unknown> }
      assert.isAtMost(size(structured.metadata), MAX_BYTES)
      assert.strictEqual(structured.title, "80000 todos")
      assert.isTrue(structured.metadata.truncated)
      const outputPath = structured.metadata.outputPath
      assert.isString(outputPath)
      assert.match(String(structured.metadata.todos), new RegExp(`^\\[left out: \\d+ bytes of metadata, over the ${MAX_BYTES}-byte limit of a result; the full output is in ${outputPath}\\]$`))
    }).pipe(Effect.provide(services)), 60_000)

  it.effect("an upstream result's structuredContent comes back bounded, not whole", () =>
    Effect.gen(function*() {
      assert.isAbove(size(upstreamPayload), 1_400_000)
      const result = yield* call("docs_search", {})
      const structured = result.structuredContent as { title: string; metadata: Record<string, unknown> }
      assert.isAtMost(size(structured), MAX_BYTES + 100)
      assert.isTrue(structured.metadata.truncated)
      assert.include(String(structured.metadata.structuredContent), `the full output is in ${structured.metadata.outputPath}`)
      // the text was cut as before
      assert.isAtMost(new TextEncoder().encode((result.content[0] as { text: string }).text).length, MAX_BYTES + 1000)
    }).pipe(Effect.provide(services)))

  it.effect("small metadata passes unchanged", () =>
    Effect.gen(function*() {
      const result = yield* call("todowrite", { todos: [{ content: "ship", status: "pending" }] })
      const structured = result.structuredContent as { metadata: Record<string, unknown> }
      assert.deepStrictEqual(structured.metadata.todos, [{ content: "ship", status: "pending", priority: "medium", id: "1" }])
    }).pipe(Effect.provide(services)))
})
