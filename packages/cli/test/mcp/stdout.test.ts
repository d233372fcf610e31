/**
 * stdout of the server carries only protocol messages: a raw JSON-RPC session over a child
 * process's pipes, where every stdout line must parse as a JSON-RPC message even while a tool
 * writes to stdout on purpose. Closing stdin ends the server with exit code 0.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { makeWorkspace, NODE, NodePlatform, SERVER, SOURCE } from "./harness.ts"
import { Stdio } from "@agent-tools/mcp"

const { awayFromProtocol } = Stdio

interface Message {
  readonly jsonrpc: string
  readonly id?: number
  readonly method?: string
  readonly params?: Record<string, unknown>
  readonly result?: Record<string, unknown>
}

const spawnServer = (root: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(NODE, [SOURCE, SERVER, root], { cwd: root, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, AGENT_TOOLS_TEST_OPTIONS: "{}" } })
    ),
    (child) => Effect.sync(() => child.exitCode === null && child.kill())
  )

/** Collects stdout and stderr; `response(id)` waits for the response to request `id`. */
const session = (child: ChildProcessWithoutNullStreams) => {
  let stdout = ""
  let stderr = ""
  const waiters: Array<() => void> = []
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
    for (const wake of waiters.splice(0)) wake()
  })
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
    for (const wake of waiters.splice(0)) wake()
  })
  const lines = () => stdout.split("\n").filter((line) => line !== "")
  const responded = (id: number) =>
    lines().some((line) => {
      try {
        return (JSON.parse(line) as Message).id === id
      } catch {
        return false
      }
    })
  const response = (id: number): Effect.Effect<void> =>
    Effect.callback<void>((resume) => {
      const check = () => responded(id) ? resume(Effect.void) : void waiters.push(check)
      check()
    })
  const send = (message: Record<string, unknown>) =>
    Effect.sync(() => void child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`))
  const exit = Effect.callback<number | null>((resume) => {
    if (child.exitCode !== null) return resume(Effect.succeed(child.exitCode))
    child.once("exit", (code) => resume(Effect.succeed(code)))
  })
  const stderrIncludes = (text: string): Effect.Effect<void> =>
    Effect.callback<void>((resume) => {
      const check = () => stderr.includes(text) ? resume(Effect.void) : void waiters.push(check)
      check()
    })
  return { send, response, exit, lines, stderrIncludes }
}

describe("stdout of the MCP server", () => {
  it.live("carries only JSON-RPC messages, even when a tool writes to stdout", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({ "a.txt": "hello\n" })
      const child = yield* spawnServer(root)
      const s = session(child)
      yield* s.send({
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
      })
      yield* s.response(1)
      yield* s.send({ method: "notifications/initialized" })
      yield* s.send({ id: 2, method: "tools/list" })
      yield* s.send({ id: 3, method: "tools/call", params: { name: "noisy", arguments: {} } })
      yield* s.send({
        id: 4,
        method: "tools/call",
        params: { name: "steps", arguments: { count: 2 }, _meta: { progressToken: "p4" } }
      })
      yield* s.send({ id: 5, method: "tools/call", params: { name: "echo", arguments: { text: 1 } } })
      for (const id of [2, 3, 4, 5]) yield* s.response(id)
      yield* Effect.sync(() => child.stdin.end())
      assert.strictEqual(yield* s.exit, 0)

      const messages = s.lines().map((line) => JSON.parse(line) as Message)
      for (const message of messages) {
        assert.strictEqual(message.jsonrpc, "2.0")
        assert.isTrue(message.id !== undefined || message.method !== undefined, JSON.stringify(message))
      }
      // Requests run concurrently, so responses may come in any order; progress precedes its response.
      assert.deepStrictEqual(messages.flatMap((m) => m.id ?? []).sort(), [1, 2, 3, 4, 5])
      assert.deepStrictEqual(messages.flatMap((m) => m.id === undefined ? [m.method] : []), [
        "notifications/progress",
        "notifications/progress"
      ])
      const at = (p: (m: Message) => boolean) => messages.findIndex(p)
      assert.isBelow(at((m) => m.method !== undefined), at((m) => m.id === 4))
      assert.deepStrictEqual(messages.filter((m) => m.method === "notifications/progress").map((m) => m.params), [
        { progressToken: "p4", progress: 1, message: "step 1" },
        { progressToken: "p4", progress: 2, message: "step 2" }
      ])
      assert.deepStrictEqual(messages.find((m) => m.id === 3)?.result, {
        content: [{ type: "text", text: "quiet on stdout" }],
        structuredContent: { title: "noisy", metadata: { truncated: false } }
      })
      assert.strictEqual(messages.find((m) => m.id === 5)?.result?.isError, true)
      // stderr is another pipe: wait for the noise instead of racing it (the test timeout bounds this).
      for (const noise of ["console.log noise", "console.info noise", "process.stdout.write noise", "Effect.log noise"]) {
        yield* s.stderrIncludes(noise)
      }
    }).pipe(Effect.provide(NodePlatform)), { timeout: 60_000 })
})

describe("a child's stdio under the stdout guard", () => {
  it("withholds our stdin and sends what would reach our stdout to stderr", () => {
    assert.deepStrictEqual(awayFromProtocol("inherit"), ["ignore", 2, "inherit"])
    assert.deepStrictEqual(awayFromProtocol(["inherit", "inherit", "pipe", "ipc"]), ["ignore", 2, "pipe", "ipc"])
    assert.deepStrictEqual(awayFromProtocol([0, process.stdout, process.stderr]), ["ignore", 2, process.stderr])
    assert.deepStrictEqual(awayFromProtocol(["pipe", "pipe", 1]), ["pipe", "pipe", 2])
    assert.strictEqual(awayFromProtocol("pipe"), "pipe")
    assert.strictEqual(awayFromProtocol(undefined), undefined)
  })
})
