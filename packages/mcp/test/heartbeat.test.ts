/**
 * `McpServer.serve` on an in-memory transport, under the TestClock: a long call sends heartbeat
 * progress every `progressInterval` when the client asked for progress.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Path } from "effect"
import { TestClock } from "effect/testing"
import { Events, ModuleLoader, Permission, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { MemoryFileSystem } from "@agent-tools/testing"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { z } from "zod"
import { McpServer } from "@agent-tools/mcp"

describe("heartbeat progress", () => {
  it.effect("a running call reports progress every interval until it finishes", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const Blocker = Tool.define("blocker", {
        description: "Runs until released",
        parameters: z.object({}),
        execute: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Deferred.await(release)),
            Effect.as({ title: "blocker", output: "released", metadata: {} })
          )
      })
      const Runtime = ToolRegistry.layer([Blocker]).pipe(
        Layer.provideMerge(Layer.mergeAll(Truncate.layer(), Permission.layer(), ModuleLoader.layerMemory({}), Workspace.layer({ root: "/ws" }))),
        Layer.provideMerge(Layer.mergeAll(SpillStorage.layerMemory(), Events.layer(), MemoryFileSystem.layer({ "/ws/.keep": "" }), Path.layer))
      )

      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const server = yield* McpServer.serve(serverSide, { progressInterval: "10 seconds" }).pipe(
        Effect.provide(Runtime),
        Effect.forkChild
      )
      const client = new Client({ name: "heartbeat-test", version: "0" })
      yield* Effect.promise(() => client.connect(clientSide))
      const progress: Array<string | undefined> = []
      const beat = yield* Deferred.make<void>()
      client.setNotificationHandler(ProgressNotificationSchema, (n) => {
        progress.push(n.params.message)
        Deferred.doneUnsafe(beat, Exit.void)
      })

      const call = client.callTool({ name: "blocker", arguments: {} }, undefined, { onprogress: () => {} })
      yield* Deferred.await(started)
      yield* TestClock.adjust("10 seconds")
      yield* Deferred.await(beat)
      yield* Deferred.succeed(release, undefined)
      const result = yield* Effect.promise(() => call)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "released" }])
      assert.deepStrictEqual(progress, ["blocker: running for 10s"])

      yield* Effect.promise(() => client.close())
      yield* Fiber.join(server)
    }))
})
