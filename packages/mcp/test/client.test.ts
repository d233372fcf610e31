/**
 * MCP client tools in a registry: our own test server, spawned over stdio, lends its tools to an
 * in-process registry.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Path } from "effect"
import { Events, ModuleLoader, Permission, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { MemoryFileSystem } from "@agent-tools/testing"
import { McpClient } from "@agent-tools/mcp"
import { makeWorkspace, NODE, NodePlatform, SERVER, SOURCE } from "./harness.ts"
import { LONG_ID } from "./fixtures/fakes.ts"
import { ToolNames } from "@agent-tools/core"

const { assign } = ToolNames

const Registry = (rules: Permission.Ruleset) =>
  ToolRegistry.layer<never>([]).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Truncate.layer(),
      Permission.layer({ rules }),
      ModuleLoader.layerMemory({}),
      Workspace.layer({ root: "/ws" })
    )),
    Layer.provideMerge(Layer.mergeAll(SpillStorage.layerMemory(), Events.layer())),
    // Kept inside: the test's own FileSystem is the real one (the workspace the server runs in).
    Layer.provide(Layer.merge(MemoryFileSystem.layer({ "/ws/.keep": "" }), Path.layer))
  )

describe("McpClient", () => {
  it.live("registers a server's tools under provider-safe names and calls them", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({ "a.txt": "hello\n" })
      const ids = yield* McpClient.register([{
        name: "fixture",
        command: NODE,
        args: [SOURCE, SERVER, root],
        env: { AGENT_TOOLS_TEST_OPTIONS: "{}" },
        stderr: "ignore"
      }])
      const longId = assign([`fixture_${assign([LONG_ID]).toName.get(LONG_ID)!}`]).toName.values().next().value!
      assert.includeMembers([...ids], ["fixture_echo", "fixture_fail", "fixture_steps", longId])
      for (const id of ids) assert.match(id, /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/)

      const registry = yield* ToolRegistry.ToolRegistry
      const echo = Option.getOrThrow(yield* registry.get("fixture_echo"))
      assert.deepStrictEqual(echo.jsonSchema, { type: "object", properties: { text: { type: "string" } }, required: ["text"] })
      assert.deepStrictEqual(echo.annotations, { readOnly: true, destructive: false })

      const ctx = yield* Tool.makeContext({ sessionID: "client-test" })
      const result = yield* registry.execute("fixture_echo", { text: "over the wire" }, ctx)
      assert.deepStrictEqual(result, {
        title: "echo",
        output: "over the wire",
        metadata: { structuredContent: { title: "echo", metadata: { length: 13, truncated: false } }, truncated: false }
      })
      const failure = yield* Effect.flip(registry.execute("fixture_fail", { message: "remote fire" }, ctx))
      assert.strictEqual(failure.message, "remote fire")
      const bad = yield* Effect.flip(registry.execute("fixture_echo", "not an object", ctx))
      assert.strictEqual(bad._tag, "InvalidArgumentsError")
    }).pipe(
      Effect.provide(Registry([{ permission: "*", pattern: "*", action: "allow" }])),
      Effect.provide(NodePlatform)
    ), { timeout: 60_000 })

  it.live("asks the permission named after the tool: a deny rule stops the call", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({})
      yield* McpClient.register([{ name: "fixture", command: NODE, args: [SOURCE, SERVER, root], stderr: "ignore" }])
      const registry = yield* ToolRegistry.ToolRegistry
      const ctx = yield* Tool.makeContext({ sessionID: "client-deny", ruleset: [{ permission: "fixture_echo", pattern: "*", action: "deny" }] })
      const error = yield* Effect.flip(registry.execute("fixture_echo", { text: "x" }, ctx))
      assert.strictEqual(error._tag, "PermissionDeniedError")
    }).pipe(
      Effect.provide(Registry([{ permission: "*", pattern: "*", action: "allow" }])),
      Effect.provide(NodePlatform)
    ), { timeout: 60_000 })
})
