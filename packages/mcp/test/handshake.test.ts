/**
 * `McpServer.makeWith` on services still being built (as `serveStdioWith` builds the tool layer):
 * the `initialize` handshake is answered at once, requests wait for the services, and services
 * that fail to build fail the requests with their reason.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Layer, Path, Schema } from "effect"
import { Events, ModuleLoader, Permission, SpillStorage, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { MemoryFileSystem } from "@agent-tools/testing"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@agent-tools/mcp"
import { Tool } from "@agent-tools/core"
import { z } from "zod"

const Echo = Tool.define("echo", {
  description: "Echo the text back",
  parameters: z.object({ text: z.string() }),
  annotations: { readOnly: true },
  execute: (args) => Effect.succeed({ title: "echo", output: args.text, metadata: { length: args.text.length } })
})

const Runtime = ToolRegistry.layer([Echo]).pipe(
  Layer.provideMerge(Layer.mergeAll(Truncate.layer(), Permission.layer(), ModuleLoader.layerMemory({}), Workspace.layer({ root: "/ws" }))),
  Layer.provideMerge(Layer.mergeAll(SpillStorage.layerMemory(), Events.layer(), MemoryFileSystem.layer({ "/ws/.keep": "" }), Path.layer))
)

class SetupError extends Schema.TaggedError<SetupError>()("SetupError", { message: Schema.String }) {}

/** A server on `services`, connected to a client over an in-memory transport. */
const connected = <E>(services: Effect.Effect<Context.Context<McpServer.Requirements>, E>) =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const server = yield* McpServer.makeWith(services)
    yield* Effect.promise(() => server.connect(serverSide))
    const client = new Client({ name: "handshake-test", version: "0" })
    yield* Effect.promise(() => client.connect(clientSide))
    yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
    return client
  })

describe("MCP handshake before the tools are built", () => {
  it.effect("initialize is answered while the services are pending; tools/list waits for them", () =>
    Effect.gen(function*() {
      const built = yield* Deferred.make<Context.Context<McpServer.Requirements>>()
      const client = yield* connected(Deferred.await(built))
      // connect() returned: the handshake was answered with nothing built yet.
      assert.strictEqual(client.getServerVersion()?.name, "agent-tools")
      let listed = false
      const list = client.listTools().then((r) => {
        listed = true
        return r
      })
      yield* Effect.yieldNow
      assert.isFalse(listed)
      yield* Deferred.done(built, Exit.succeed(yield* Layer.build(Runtime)))
      const tools = yield* Effect.promise(() => list)
      assert.deepStrictEqual(tools.tools.map((t) => t.name), ["echo"])
    }).pipe(Effect.scoped))

  it.effect("services that fail to build fail each request with their reason", () =>
    Effect.gen(function*() {
      const client = yield* connected(Effect.fail(new SetupError({ message: "agent-tools.json: permission.bash: expected an object" })))
      const error = yield* Effect.promise(() => client.listTools().then(() => undefined, (e: Error) => e))
      assert.include(error?.message, "The tools are unavailable: agent-tools.json: permission.bash: expected an object")
    }).pipe(Effect.scoped))
})
