/**
 * A long call never holds up the MCP server: while one bash call runs, the server in a real child
 * process answers tools/list and other calls. The long call waits for a file the test creates only
 * afterwards, so it cannot finish first; no clock is involved.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Path, Schedule } from "effect"
import { AnalysisWorker } from "@agent-tools/node"
import { connect, makeWorkspace, NodePlatform, text } from "./harness.ts"

describe("MCP server: calls in parallel", () => {
  it.live("while a bash call runs, tools/list and other calls (bash included) are answered", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* makeWorkspace({ "a.txt": "alpha\n" })
      const { client, call } = yield* connect({ root, server: { permission: { "*": "allow" } } })

      let settled = false
      const long = client.callTool({
        name: "bash",
        arguments: {
          command: "touch started; while [ ! -e go ]; do sleep 0.02; done; echo released",
          description: "Wait for the test to release it"
        }
      }).finally(() => void (settled = true))
      // The long call is running once its process has made `started`.
      yield* fs.exists(path.join(root, "started")).pipe(
        Effect.repeat({ until: (exists) => exists, schedule: Schedule.spaced("20 millis") })
      )

      const tools = yield* Effect.promise(() => client.listTools())
      assert.isTrue(tools.tools.some((t) => t.name === "bash"))
      assert.strictEqual(text(yield* call("echo", { text: "meanwhile" })), "meanwhile")
      assert.include(text(yield* call("read", { filePath: "a.txt" })), "alpha")
      assert.include(text(yield* call("bash", { command: "echo second", description: "A second bash call" })), "second")
      assert.isFalse(settled)

      yield* fs.writeFileString(path.join(root, "go"), "")
      assert.include(text((yield* Effect.promise(() => long)) as never), "released")
    }).pipe(Effect.scoped, Effect.provide(NodePlatform)), { timeout: 60_000 })

  it.live("a big command is analysed on the worker thread inside the server, with tools/list beside it", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({})
      const { client, stderr } = yield* connect({ root, server: { permission: { "*": "allow" } } })
      const words = Array.from({ length: 1500 }, (_, i) => `w${i}`)
      const command = `echo ${words.join(" ")} | wc -w`
      assert.isAtLeast(command.length, AnalysisWorker.OFFLOAD_CHARS)
      const [result, tools] = yield* Effect.promise(() =>
        Promise.all([client.callTool({ name: "bash", arguments: { command, description: "Count many words" } }), client.listTools()])
      )
      assert.strictEqual(text(result as never).trim(), "1500")
      assert.isTrue(tools.tools.some((t) => t.name === "bash"))
      assert.notInclude(stderr(), "analysing on the main thread")
    }).pipe(Effect.scoped, Effect.provide(NodePlatform)), { timeout: 60_000 })
})
