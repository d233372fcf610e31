/**
 * MCP servers that fail: a crash mid-call (the next call after the back-off restarts the server),
 * a server that cannot start (reported, the others serve on), a start that hangs and a call that
 * outlives its timeout (cancelled on the server), and a server given up after too many failures.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect, Logger } from "effect"
import { TestClock } from "effect/testing"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"
import { McpServers } from "@agent-tools/mcp"
import { NODE } from "./harness.ts"
import { awaitLog, logLines, makeDirs, stack, stdioServer } from "./upstream.ts"

const context = Tool.makeContext({ sessionID: "mcp-client-failures" })

describe("MCP servers that fail", () => {
  // On the test clock: the back-off passes by adjusting the clock, not by waiting for it.
  it.effect("a crash fails the call naming the server; a call after the back-off restarts it", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const ctx = yield* context
        const first = Number((yield* registry.execute("up_pid", {}, ctx)).output)
        const crash = yield* Effect.flip(registry.execute("up_crash", {}, ctx))
        const down = `MCP server "up" is down (it exited; its stderr ended with:\ncrashing on purpose); it is started again ` +
          `on the next use after 1000 ms (failure 1 of 5 allowed within 300 s)`
        assert.strictEqual(crash.message, `MCP server "up" exited during the call to crash: ${down}`)
        // During the back-off: the same reason, and the tools stay listed.
        const during = yield* Effect.flip(registry.execute("up_echo", { text: "too soon" }, ctx))
        assert.strictEqual(during.message, down)
        assert.include((yield* registry.tools()).map((t) => t.id), "up_echo")

        yield* TestClock.adjust("1100 millis")
        assert.strictEqual((yield* registry.execute("up_echo", { text: "back" }, ctx)).output, "back")
        const second = Number((yield* registry.execute("up_pid", {}, ctx)).output)
        assert.notStrictEqual(second, first)
        assert.deepStrictEqual(yield* logLines(dirs.log), [`started ${first}`, `started ${second}`])
        assert.throws(() => process.kill(first, 0), /ESRCH/)
      }).pipe(Effect.provide(stack(dirs, { up: stdioServer(dirs.log) })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("a server that cannot start is reported and left out; the others serve on", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => void logs.push(`${logLevel}: ${String(message)}`))
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const ids = (yield* registry.tools()).map((t) => t.id)
        assert.include(ids, "up_echo")
        assert.isFalse(ids.some((id) => id.startsWith("broken_")))
        const down = `MCP server "broken" is down (it failed to start: spawn /nonexistent/mcp-server ENOENT)`
        // The failed start is reported as a warning, with what happens next.
        assert.deepStrictEqual(logs.filter((l) => l.startsWith("Warn")), [
          `Warn: ${down}; it is started again on the next use after 1000 ms (failure 1 of 5 allowed within 300 s); its tools are left out`
        ])

        const ctx = yield* context
        const call = yield* Effect.flip(registry.execute("broken_anything", {}, ctx))
        assert.isTrue(call.message.startsWith(`The broken_anything tool is not available to agent "build": ${down}; it is started again`))
        assert.strictEqual((yield* registry.execute("up_echo", { text: "still here" }, ctx)).output, "still here")
      }).pipe(
        Effect.provide(stack(dirs, {
          broken: { type: "local", command: ["/nonexistent/mcp-server"] },
          up: stdioServer(dirs.log),
          off: { type: "local", command: ["/nonexistent/never-started"], enabled: false }
        })),
        Effect.provide(Logger.layer([logger]))
      )
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("a call past its timeout fails and is cancelled on the server; a start past its timeout fails", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const ctx = yield* context
        const slow = yield* Effect.flip(registry.execute("up_slow", { ms: 60_000 }, ctx))
        assert.strictEqual(slow.message, `MCP server "up" did not answer slow within 500 ms; the call was cancelled`)
        yield* awaitLog(dirs.log, "cancelled")
        assert.strictEqual((yield* registry.execute("up_slow", { ms: 1 }, ctx)).output, "done")

        const hang = yield* Effect.flip(registry.execute("hang_x", {}, ctx))
        assert.strictEqual(
          hang.message,
          `The hang_x tool is not available to agent "build": MCP server "hang" is down (it failed to start: no answer ` +
            `within the start-up timeout of 300 ms); it is started again on the next use after 1000 ms (failure 1 of 5 allowed within 300 s).`
        )
      }).pipe(Effect.provide(stack(dirs, {
        up: { ...stdioServer(dirs.log), timeout: { request: 500 } },
        // Never answers the handshake.
        hang: { type: "local", command: [NODE, "-e", "setInterval(() => {}, 1000)"], timeout: 300 }
      })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.effect("too many failures within the window: the server is not started again", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        yield* McpServers.register(
          { gone: { type: "local", command: ["/nonexistent/mcp-server"] } },
          { restart: { initialDelayMs: 20, maxDelayMs: 40, maxAttempts: 2, windowMs: 60_000 } }
        )
        const registry = yield* ToolRegistry.ToolRegistry
        const ctx = yield* context
        const first = yield* Effect.flip(registry.execute("gone_x", {}, ctx))
        assert.include(first.message, "(failure 1 of 2 allowed within 60 s)")
        yield* TestClock.adjust("50 millis")
        const second = yield* Effect.flip(registry.execute("gone_x", {}, ctx))
        assert.strictEqual(
          second.message,
          `The gone_x tool is not available to agent "build": MCP server "gone" failed 2 times within 60 s and is not started ` +
            `again (it failed to start: spawn /nonexistent/mcp-server ENOENT).`
        )
      }).pipe(Effect.provide(NodeAgentTools.layer({ cwd: dirs.root, config: { spill: { dir: dirs.spill } }, analysisWorker: false })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })
})
