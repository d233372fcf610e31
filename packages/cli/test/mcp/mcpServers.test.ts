/**
 * Tools from MCP servers through the node layer: an upstream written with the official SDK over
 * stdio and over streamable HTTP, and `agent-tools mcp` itself, lend their tools to the registry as
 * `<server>_<tool>`, started only when needed, asked as permissions, truncated like every tool, and
 * ended with the scope.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect, Option } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NODE, SOURCE } from "./harness.ts"
import { CLI, httpServer, logLines, makeDirs, stack, stdioServer } from "./upstream.ts"

const context = Tool.makeContext({ sessionID: "mcp-client" })

const UPSTREAM_TOOLS = ["up_echo", "up_big", "up_slow", "up_pid", "up_progress", "up_grow", "up_crash", "up_fails"]

describe("MCP servers in the node layer", () => {
  it.live("start when their tools are first listed, not before, and answer calls", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        assert.isFalse((yield* registry.ids).some((id) => id.startsWith("up_")))
        assert.deepStrictEqual(yield* logLines(dirs.log), [])

        const ids = (yield* registry.tools()).map((t) => t.id)
        assert.deepStrictEqual(ids.filter((id) => id.startsWith("up_")), UPSTREAM_TOOLS)
        assert.include(ids, "read")
        const echo = Option.getOrThrow(yield* registry.get("up_echo"))
        assert.deepStrictEqual(echo.annotations, { readOnly: true, destructive: undefined, openWorld: undefined })
        assert.deepStrictEqual(echo.jsonSchema.properties, { text: { type: "string" } })

        const ctx = yield* context
        const result = yield* registry.execute("up_echo", { text: "over stdio" }, ctx)
        assert.deepStrictEqual(result, { title: "echo", output: "over stdio", metadata: { truncated: false } })
        const failure = yield* Effect.flip(registry.execute("up_fails", {}, ctx))
        assert.strictEqual(failure.message, "it went wrong")
        assert.strictEqual((failure as Tool.ToolError).reason, "other")
        // An agent-tools server's error data comes back as the reason; an unknown one is `other`.
        const stale = yield* Effect.flip(registry.execute("up_fails", { reason: "stale" }, ctx))
        assert.deepStrictEqual([stale._tag, (stale as Tool.ToolError).reason], ["ToolError", "stale"])
        const unknown = yield* Effect.flip(registry.execute("up_fails", { reason: "on fire" }, ctx))
        assert.strictEqual((unknown as Tool.ToolError).reason, "other")
        // Listing again reuses the running server.
        yield* registry.tools()
        assert.strictEqual((yield* logLines(dirs.log)).length, 1)
      }).pipe(Effect.provide(stack(dirs, { up: stdioServer(dirs.log) })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("a call of one of its ids starts the server without a listing", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      const output = yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        return (yield* registry.execute("UP_ECHO", { text: "first call" }, yield* context)).output
      }).pipe(Effect.provide(stack(dirs, { up: stdioServer(dirs.log) })))
      assert.strictEqual(output, "first call")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("the scope closing ends the server process", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      const pid = yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        return Number((yield* registry.execute("up_pid", {}, yield* context)).output)
      }).pipe(Effect.provide(stack(dirs, { up: stdioServer(dirs.log) })))
      assert.deepStrictEqual(yield* logLines(dirs.log), [`started ${pid}`])
      assert.throws(() => process.kill(pid, 0), /ESRCH/)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("permission: rules on the tool ids allow, ask or deny each tool", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const ids = (yield* registry.tools()).map((t) => t.id)
        assert.notInclude(ids, "up_pid")
        assert.include(ids, "up_slow")
        const ctx = yield* context
        assert.strictEqual((yield* registry.execute("up_echo", { text: "allowed" }, ctx)).output, "allowed")
        const asked = yield* Effect.flip(registry.execute("up_slow", { ms: 1 }, ctx))
        assert.strictEqual(asked._tag, "PermissionRejectedError")
        const denied = yield* Effect.flip(registry.execute("up_pid", {}, ctx))
        assert.strictEqual(denied.message, `The up_pid tool is not available to agent "build": a permission rule denies it.`)
      }).pipe(Effect.provide(stack(dirs, { up: stdioServer(dirs.log) }, { "up_*": "ask", up_echo: "allow", up_pid: "deny" })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("a 1 MB result is truncated with a spill the read tool pages", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const ctx = yield* context
        const result = yield* registry.execute("up_big", { lines: 10_500 }, ctx)
        assert.isTrue(result.metadata.truncated)
        const outputPath = result.metadata.outputPath
        assert.isString(outputPath)
        assert.isBelow(Buffer.byteLength(result.output), 60_000)
        assert.isTrue(result.output.startsWith(
          `[Output truncated: 9988 lines (998800 bytes) omitted; showing the first 512 of 10500 lines. Full output: ${outputPath}]\n` +
            `00000001 ${"x".repeat(90)}\n`
        ))
        const page = yield* registry.execute("read", { filePath: outputPath, offset: 10_499, limit: 2 }, ctx)
        assert.include(page.output, `10499: 00010499 ${"x".repeat(90)}`)
        assert.include(page.output, `10500: 00010500 ${"x".repeat(90)}`)
      }).pipe(Effect.provide(stack(dirs, { up: stdioServer(dirs.log) })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("a server over streamable HTTP on 127.0.0.1", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      const url = yield* httpServer(dirs.log)
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const ids = (yield* registry.tools()).map((t) => t.id).filter((id) => id.startsWith("web_"))
        assert.deepStrictEqual(ids, UPSTREAM_TOOLS.map((id) => id.replace("up_", "web_")))
        const result = yield* registry.execute("web_echo", { text: "over http" }, yield* context)
        assert.strictEqual(result.output, "over http")
      }).pipe(Effect.provide(stack(dirs, { web: { type: "remote", url, headers: { "x-test": "1" } } })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("agent-tools mcp as an upstream: its read tool is <name>_read", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      const upstream = yield* makeDirs({ "notes.txt": "from the other workspace\n" })
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const result = yield* registry.execute("other_read", { filePath: "notes.txt" }, yield* context)
        assert.include(result.output, "1: from the other workspace")
        // The upstream's own title and metadata travel as structured content.
        const structured = result.metadata.structuredContent as { title: string; metadata: Record<string, unknown> }
        assert.strictEqual(structured.title, `${upstream.root}/notes.txt`)
        assert.strictEqual(structured.metadata.preview, "from the other workspace")
      }).pipe(Effect.provide(stack(dirs, {
        other: { type: "local", command: [NODE, SOURCE, CLI, "mcp", "--cwd", upstream.root, "--yes"] }
      })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })
})
