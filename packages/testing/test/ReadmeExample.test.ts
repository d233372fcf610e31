// The example of packages/testing/README.md, kept compiling and passing.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, FileSystem } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { TestClock } from "effect/testing"
import { z } from "zod"
import { FileTime, Tool, Workspace } from "@agent-tools/core"
import { FakeSpawner, ScriptedPermission, Testing } from "../src/index.ts"

// A tool under test: counts the lines of a file, asking before it reads outside the workspace.
const Parameters = z.object({ filePath: z.string() })

const CountLines = Tool.define("count_lines", Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const workspace = yield* Workspace.Workspace
  const fileTime = yield* FileTime.FileTime
  return {
    description: "Count the lines of a file",
    parameters: Parameters,
    execute: Effect.fn("CountLines.execute")(function*(args: z.output<typeof Parameters>, ctx: Tool.Context) {
      const toolError = (e: { message: string }) => new Tool.ToolError({ tool: "count_lines", reason: "io", message: e.message, cause: e })
      const file = yield* workspace.resolve(args.filePath).pipe(Effect.mapError(toolError))
      if (!file.inside && !file.spill) {
        // Ask with the REAL target: a symlink in the workspace may point anywhere.
        yield* ctx.ask({ permission: "external_directory", patterns: [file.real] })
      }
      const bytes = yield* fs.readFile(file.real).pipe(Effect.mapError(toolError))
      yield* Effect.orDie(fileTime.read(ctx.sessionID, file.real, bytes))
      return { title: args.filePath, output: `${FileTime.countLines(bytes)} lines`, metadata: {} }
    })
  }
}))

const TestLayer = (script: ScriptedPermission.Script) =>
  Testing.layer({
    files: { "src/a.ts": "one\ntwo\n", "/outside/notes.txt": "x\n" },
    symlinks: { notes: "/outside/notes.txt" },
    tools: [CountLines],
    services: ScriptedPermission.layer(script)
  })

describe("README example", () => {
  it.effect("reads inside the workspace without asking", () =>
    Effect.gen(function*() {
      const result = yield* Testing.call("count_lines", { filePath: "src/a.ts" })
      assert.strictEqual(result.output, "2 lines")
      assert.deepStrictEqual(yield* ScriptedPermission.asked, [])
    }).pipe(Effect.provide(TestLayer([]))))

  it.effect("a symlink to outside asks for external_directory with the real target", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Testing.call("count_lines", { filePath: "notes" }))
      assert.strictEqual(error._tag, "PermissionRejectedError")
      const [ask] = yield* ScriptedPermission.asked
      assert.deepStrictEqual([ask?.request.permission, ask?.request.patterns], ["external_directory", ["/outside/notes.txt"]])
    }).pipe(Effect.provide(TestLayer(["reject"]))))

  it.effect("a process tool with FakeSpawner and TestClock", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const fiber = yield* Effect.forkChild(spawner.string(ChildProcess.make("npm", ["test"], { cwd: "/ws" })))
      yield* TestClock.adjust("30 seconds")
      const output = yield* Fiber.join(fiber)
      assert.strictEqual(output, "ok 1\nok 2\n")
      const [call] = yield* FakeSpawner.spawned
      assert.deepStrictEqual([call?.line, call?.cwd], ["npm test", "/ws"])
    }).pipe(Effect.provide(FakeSpawner.layer({
      "npm test": { chunks: [{ data: "ok 1\n" }, { data: "ok 2\n", delay: "20 seconds" }] }
    }))))
})
