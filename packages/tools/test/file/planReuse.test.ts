/**
 * The run of a file change takes over what its plan worked out when the file is still what the
 * plan read: the change's result, and also the refusal it ended in (a change depends on the file
 * alone), so a refused edit of a large file runs the matcher once, not once for the prompt and
 * again under the lock. A file changed in between is worked out again; a plan's work is taken once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import { Tool } from "@agent-tools/core"
import { type Change, planChange, transaction } from "../../src/internal/file/common.ts"
import { takeBuffer } from "../../src/internal/buffers.ts"
import { call, context, memory } from "./harness.ts"

const files = { "/ws/a.txt": "one\ntwo\n" }

/** A change that counts its runs: refuses, or upper-cases the file. */
const counted = (refuse: boolean) => {
  let runs = 0
  const change: Change<string, never> = (current) => {
    runs++
    return refuse
      ? Effect.fail(new Tool.ToolError({ tool: "t", reason: "no-match", message: `refused on run ${runs}` }))
      : Effect.succeed({ text: current.decoded!.text.toUpperCase(), encoding: { encoding: "utf-8", bom: false }, result: `run ${runs}` })
  }
  return { change, runs: () => runs }
}

describe("a file change's run and its plan", () => {
  it.effect("a refusal worked out by the plan is the run's, the change not made again", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      const { change, runs } = counted(true)
      const plan = yield* planChange("t", { filePath: "a.txt" }, change)
      const error = yield* Effect.flip(transaction("t", yield* context(), { filePath: "a.txt" }, change, {}, plan.state))
      assert.strictEqual(error.message, "refused on run 1")
      assert.strictEqual(runs(), 1)
    }).pipe(Effect.provide(memory({ root: "/ws" }, files))))

  it.effect("a file changed since the plan is worked out again, refusal or not", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { change, runs } = counted(true)
      const plan = yield* planChange("t", { filePath: "a.txt" }, change)
      yield* fs.writeFileString("/ws/a.txt", "one\nTWO\n")
      yield* call("read", { filePath: "a.txt" })
      const error = yield* Effect.flip(transaction("t", yield* context(), { filePath: "a.txt" }, change, {}, plan.state))
      assert.strictEqual(error.message, "refused on run 2")
      assert.strictEqual(runs(), 2)
    }).pipe(Effect.provide(memory({ root: "/ws" }, files))))

  it.effect("a plan's work is taken once: run again with the same plan, the change is made again on the file as it is", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      yield* call("read", { filePath: "a.txt" })
      const { change, runs } = counted(false)
      const plan = yield* planChange("t", { filePath: "a.txt" }, change)
      const first = yield* transaction("t", yield* context(), { filePath: "a.txt" }, change, {}, plan.state)
      assert.strictEqual(first.result, "run 1")
      assert.strictEqual(yield* fs.readFileString("/ws/a.txt"), "ONE\nTWO\n")
      const second = yield* transaction("t", yield* context(), { filePath: "a.txt" }, change, {}, plan.state)
      assert.strictEqual(second.result, "run 2")
      assert.strictEqual(runs(), 2)
    }).pipe(Effect.provide(memory({ root: "/ws" }, files))))

  it.effect("a refused change of a large file hands its read buffers back for the next call", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "big.txt" })
      const seen: Array<ArrayBufferLike> = []
      const change: Change<string, never> = (current) => {
        seen.push(current.bytes!.buffer)
        return Effect.fail(new Tool.ToolError({ tool: "t", reason: "no-match", message: "refused" }))
      }
      const plan = yield* planChange("t", { filePath: "big.txt" }, change)
      // Changed in between: the run reads the file again and makes the change on that read.
      yield* FileSystem.FileSystem.use((fs) => fs.writeFileString("/ws/big.txt", "y".repeat(200_000)))
      yield* call("read", { filePath: "big.txt" })
      yield* Effect.flip(transaction("t", yield* context(), { filePath: "big.txt" }, change, {}, plan.state))
      assert.strictEqual(seen.length, 2)
      const next = [takeBuffer(200_001), takeBuffer(200_001)].map((b) => b.buffer)
      assert.sameMembers(next, seen)
    }).pipe(Effect.provide(memory({ root: "/ws" }, { "/ws/big.txt": "x".repeat(200_000) }))))
})
