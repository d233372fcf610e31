/** multiedit: in order on the running text, one write, all or nothing, errors naming the edit. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { call, callError, memory, readText } from "../file/harness.ts"

const ws = { root: "/ws" }
const file = "const a = 1\nconst b = 2\nconst c = 3\n"

describe("multiedit", () => {
  it.effect("applies the edits in order, each on the result of the one before", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "m.ts" })
      const result = yield* call("multiedit", {
        filePath: "m.ts",
        edits: [
          { oldString: "const a = 1", newString: "const a = 10" },
          { oldString: "const a = 10\nconst b = 2", newString: "const a = 10\nconst b = 20" },
          { oldString: "const", newString: "let", replaceAll: true }
        ]
      })
      assert.strictEqual(result.output, "Applied 3 edits to m.ts.")
      assert.strictEqual(yield* readText("/ws/m.ts"), "let a = 10\nlet b = 20\nlet c = 3\n")
      const results = result.metadata.results as ReadonlyArray<{ strategy: string; replacements: number }>
      assert.deepStrictEqual(results.map((r) => [r.strategy, r.replacements]), [["exact", 1], ["exact", 1], ["multi-occurrence", 3]])
    }).pipe(Effect.provide(memory(ws, { "/ws/m.ts": file }))))

  it.effect("a failing edit writes nothing and is named", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "m.ts" })
      const error = yield* callError("multiedit", {
        filePath: "m.ts",
        edits: [
          { oldString: "const a = 1", newString: "const a = 10" },
          { oldString: "const b = 2", newString: "const b = 20" },
          { oldString: "const d = 4", newString: "const d = 40" }
        ]
      })
      assert.isTrue(error.startsWith("Edit 3 of 3 failed: Could not find oldString in m.ts."))
      assert.include(error, "No changes were written to m.ts.")
      assert.strictEqual(yield* readText("/ws/m.ts"), file)
      assert.strictEqual(
        yield* callError("multiedit", { filePath: "m.ts", edits: [{ oldString: "a", newString: "b" }, { oldString: "x", newString: "x" }] }),
        "Edit 2 of 2 failed: No changes to apply: oldString and newString are identical."
      )
    }).pipe(Effect.provide(memory(ws, { "/ws/m.ts": file }))))

  it.effect("creates a file when the first edit has an empty oldString", () =>
    Effect.gen(function*() {
      yield* call("multiedit", {
        filePath: "n.txt",
        edits: [{ oldString: "", newString: "hello world\n" }, { oldString: "world", newString: "there" }]
      })
      assert.strictEqual(yield* readText("/ws/n.txt"), "hello there\n")
    }).pipe(Effect.provide(memory(ws, { directories: ["/ws"] }))))
})
