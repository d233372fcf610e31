/**
 * Upstream MCP servers start independently behind `agent-tools mcp`: a call to one server's tool
 * does not wait for another server that is still starting (one that never answers, with a start-up
 * timeout far longer than this test may run).
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@agent-tools/mcp"
import { NODE } from "./harness.ts"
import { makeDirs, stack, stdioServer } from "./upstream.ts"

describe("upstream MCP servers start independently", () => {
  it.live("a call to a working server's tool does not wait for a server that never answers", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        const server = yield* McpServer.make()
        const [ours, theirs] = InMemoryTransport.createLinkedPair()
        yield* Effect.promise(() => server.connect(ours))
        const client = new Client({ name: "test", version: "0" })
        yield* Effect.acquireRelease(Effect.promise(() => client.connect(theirs)), () => Effect.promise(() => client.close()))
        const first = yield* Effect.promise(() => client.callTool({ name: "up_echo", arguments: { text: "one" } }))
        assert.deepStrictEqual(first.content, [{ type: "text", text: "one" }])
        const second = yield* Effect.promise(() => client.callTool({ name: "up_echo", arguments: { text: "two" } }))
        assert.deepStrictEqual(second.content, [{ type: "text", text: "two" }])
      }).pipe(Effect.provide(stack(dirs, {
        up: stdioServer(dirs.log),
        // Never answers the handshake; its start-up timeout outlasts the test's.
        hang: { type: "local", command: [NODE, "-e", "setInterval(() => {}, 1000)"], timeout: 600_000 }
      })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })
})
