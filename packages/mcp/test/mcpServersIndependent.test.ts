/**
 * Upstream MCP servers behind `agent-tools mcp` (served in process to an SDK client): listing the
 * tools and calling one server's tool do not wait for another server that is still starting (one
 * that never answers, with a start-up timeout far longer than this test may run); an upstream's progress reaches our
 * caller as progress, and its tools/list_changed becomes ours; an upstream started through a
 * wrapper leaves no process behind when it is shut down.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Deferred, Effect, FileSystem, Schedule } from "effect"
import { ToolRegistry, Tool } from "@agent-tools/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { McpServer } from "@agent-tools/mcp"
import { NODE, SOURCE } from "./harness.ts"
import { makeDirs, stack, stdioServer, UPSTREAM } from "./upstream.ts"

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Our server on the registry in context, and a connected SDK client. */
const connected = (options: McpServer.Options = {}) => Effect.gen(function*() {
  const server = yield* McpServer.make(options)
  const [ours, theirs] = InMemoryTransport.createLinkedPair()
  yield* Effect.promise(() => server.connect(ours))
  const client = new Client({ name: "test", version: "0" })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect(theirs)), () => Effect.promise(() => client.close()))
  return client
})

describe("upstream MCP servers behind agent-tools mcp", () => {
  it.live("listing and calling a working server's tools do not wait for a server that never answers", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        // Listing waits for servers still starting at most `listWait`, far less than the other's start-up timeout.
        const client = yield* connected({ listWait: "20 seconds" })
        const listed = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
        assert.include(listed, "up_echo")
        assert.isFalse(listed.some((name) => name.startsWith("hang_")))
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

  it.live("an upstream's progress is forwarded to the call; its list_changed is announced and its new tool served", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      yield* Effect.gen(function*() {
        const client = yield* connected()
        const messages: Array<string | undefined> = []
        const progress = yield* Effect.promise(() =>
          client.callTool({ name: "up_progress", arguments: {} }, undefined, { onprogress: (p) => void messages.push(p.message) })
        )
        assert.deepStrictEqual(progress.content, [{ type: "text", text: "done" }])
        assert.deepStrictEqual(messages.filter((m) => m?.startsWith("step")), ["step 1", "step 2"], JSON.stringify(messages))

        const announced = yield* Deferred.make<void>()
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void Deferred.doneUnsafe(announced, Effect.void))
        const before = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
        assert.include(before, "up_grow")
        assert.notInclude(before, "up_added")
        yield* Effect.promise(() => client.callTool({ name: "up_grow", arguments: {} }))
        yield* Deferred.await(announced)
        const after = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
        assert.include(after, "up_added")
        const added = yield* Effect.promise(() => client.callTool({ name: "up_added", arguments: {} }))
        assert.deepStrictEqual(added.content, [{ type: "text", text: "added here" }])
      }).pipe(Effect.provide(stack(dirs, { up: stdioServer(dirs.log) })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })

  it.live("an upstream started through a wrapper: closing ends the wrapper's other children too", () =>
    Effect.gen(function*() {
      const dirs = yield* makeDirs()
      const fs = yield* FileSystem.FileSystem
      const pidFile = `${dirs.log}.sleeper`
      // Like npx: a wrapper whose child outlives the server's stdin closing.
      const sleeper = `${NODE} -e 'require("fs").writeFileSync(process.env.SLEEPER_PID, String(process.pid)); setInterval(() => {}, 1000)'`
      const wrapped = {
        type: "local" as const,
        command: ["sh", "-c", `${sleeper} & exec ${NODE} ${SOURCE} ${UPSTREAM} stdio`],
        environment: { UPSTREAM_LOG: dirs.log, SLEEPER_PID: pidFile }
      }
      const pids = yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const server = Number((yield* registry.execute("up_pid", {}, yield* Tool.makeContext({ sessionID: "s" }))).output)
        const child = yield* fs.readFileString(pidFile).pipe(
          Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 200 }),
          Effect.map(Number)
        )
        assert.isTrue(isAlive(child))
        return { server, child }
      }).pipe(Effect.provide(stack(dirs, { up: wrapped })), Effect.scoped)
      // The layer's scope is closed: the server and its wrapper's other child are gone.
      const gone = (pid: number) =>
        Effect.suspend(() => isAlive(pid) ? Effect.fail(`process ${pid} is still alive`) : Effect.void).pipe(
          Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 100 })
        )
      yield* gone(pids.server)
      yield* gone(pids.child)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), { timeout: 60_000 })
})
