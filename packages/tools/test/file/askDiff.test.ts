/**
 * The change in the ask: write, edit, multiedit and apply_patch work their change out in the
 * call's plan, so the prompt's `edit` request carries the diff, and the run writes that very
 * change. A file changed while the prompt waits is still checked under the lock: refused as stale,
 * nothing written.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import * as NodeFs from "node:fs"
import { ScriptedPermission } from "@agent-tools/testing"
import { call, callError, memory, node, readText } from "./harness.ts"

const ws = { root: "/ws" }
const patch = (...lines: ReadonlyArray<string>) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")

/** The display of the `edit` request of the one prompt that asked for one. */
const askedDiff = Effect.gen(function*() {
  const asked = (yield* ScriptedPermission.asked).filter((a) => a.request.requests.some((r) => r.permission === "edit"))
  assert.strictEqual(asked.length, 1)
  return asked[0]!.request.requests.find((r) => r.permission === "edit")!.display
})

const recorded = (files: Record<string, string>) =>
  memory({ ...ws, permission: ScriptedPermission.layer(() => "once") }, files)

describe("the diff in the ask", () => {
  it.effect("edit: the ask shows the diff the call then writes", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      const result = yield* call("edit", { filePath: "a.txt", oldString: "two", newString: "2" })
      const display = yield* askedDiff
      assert.deepStrictEqual(display, { kind: "diff", path: "a.txt", diff: result.metadata.diff as string })
      assert.include(display?.kind === "diff" ? display.diff : "", "-two\n+2\n")
      assert.strictEqual(yield* readText("/ws/a.txt"), "one\n2\n")
    }).pipe(Effect.provide(recorded({ "/ws/a.txt": "one\ntwo\n" }))))

  it.effect("multiedit: one diff of every edit", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      const result = yield* call("multiedit", {
        filePath: "a.txt",
        edits: [{ oldString: "one", newString: "1" }, { oldString: "two", newString: "2" }]
      })
      const display = yield* askedDiff
      assert.deepStrictEqual(display, { kind: "diff", path: "a.txt", diff: result.metadata.diff as string })
      assert.include(display?.kind === "diff" ? display.diff : "", "-one\n-two\n+1\n+2\n")
    }).pipe(Effect.provide(recorded({ "/ws/a.txt": "one\ntwo\n" }))))

  it.effect("write: a new file's whole content as the diff", () =>
    Effect.gen(function*() {
      const created = yield* call("write", { filePath: "new.txt", content: "fresh\n" })
      assert.deepStrictEqual(yield* askedDiff, { kind: "diff", path: "new.txt", diff: created.metadata.diff as string })
      assert.include(created.metadata.diff as string, "+fresh\n")
    }).pipe(Effect.provide(recorded({ "/ws/a.txt": "one\n" }))))

  it.effect("apply_patch: the diff of every file of the patch", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      const result = yield* call("apply_patch", {
        patchText: patch("*** Add File: b.txt", "+bee", "*** Update File: a.txt", "@@", "-one", "+ONE")
      })
      const display = yield* askedDiff
      assert.deepStrictEqual(display, { kind: "diff", path: "b.txt, a.txt", diff: result.metadata.diff as string })
      const diff = display?.kind === "diff" ? display.diff : ""
      assert.include(diff, "-one\n+ONE\n")
      assert.include(diff, "+bee\n")
    }).pipe(Effect.provide(recorded({ "/ws/a.txt": "one\n" }))))

  it.effect("an edit that cannot apply asks without a diff, and fails after the prompt as before", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      const error = yield* callError("edit", { filePath: "a.txt", oldString: "absent", newString: "x" })
      assert.include(error, "Could not find oldString in a.txt")
      assert.isUndefined(yield* askedDiff)
    }).pipe(Effect.provide(recorded({ "/ws/a.txt": "one\n" }))))
})

const Platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

describe("a file changed while the prompt waits", () => {
  for (const tool of ["edit", "apply_patch"] as const) {
    it.effect(`${tool}: the change shown is not written over it; refused as stale, the other change kept`, () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-askdiff-" }))
        const file = `${dir}/a.txt`
        yield* fs.writeFileString(file, "one\ntwo\n")
        // The user takes their time: meanwhile the line the change is about is changed on disk.
        const permission = ScriptedPermission.layer((request) => {
          if (request.requests.some((r) => r.permission === "edit")) NodeFs.writeFileSync(file, "one\nTWO (theirs)\n")
          return "once"
        })
        const args = tool === "edit"
          ? { filePath: "a.txt", oldString: "two", newString: "2" }
          : { patchText: patch("*** Update File: a.txt", "@@", "-two", "+2") }
        const error = yield* Effect.gen(function*() {
          yield* call("read", { filePath: "a.txt" })
          return yield* callError(tool, args)
        }).pipe(Effect.provide(node({ root: dir, permission })))
        assert.include(error, `File ${file} has been modified since it was last read`)
        assert.strictEqual(yield* fs.readFileString(file), "one\nTWO (theirs)\n")
      }).pipe(Effect.scoped, Effect.provide(Platform)))
  }
})
