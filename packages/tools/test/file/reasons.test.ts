/**
 * Every tool failure says why in a reason code can match on, and keeps the core error it came
 * from as its cause: what a runtime, the CLI's exit code and MCP's error data read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import type { Tool } from "@agent-tools/core"
import { call, memory } from "./harness.ts"

const root = "/ws"
const files = { "/ws/a.txt": "one\ntwo\none\n", "/ws/dir/x.txt": "x\n" }

/** The failure of a call, which must be a ToolError. */
const toolError = (tool: string, args: unknown) =>
  Effect.map(Effect.flip(call(tool, args)), (e) => {
    assert.strictEqual(e._tag, "ToolError", e.message)
    return e as Tool.ToolError
  })

describe("tool error reasons", () => {
  it.effect("not-found, is-directory, not-read, no-match and ambiguous", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* toolError("read", { filePath: "missing.txt" })).reason, "not-found")
      assert.strictEqual((yield* toolError("edit", { filePath: "dir", oldString: "x", newString: "y" })).reason, "is-directory")
      const unread = yield* toolError("edit", { filePath: "a.txt", oldString: "two", newString: "2" })
      assert.strictEqual(unread.reason, "not-read")
      assert.strictEqual((unread.cause as { _tag: string })._tag, "FileNotReadError")
      yield* call("read", { filePath: "a.txt" })
      assert.strictEqual((yield* toolError("edit", { filePath: "a.txt", oldString: "three", newString: "3" })).reason, "no-match")
      assert.strictEqual((yield* toolError("edit", { filePath: "a.txt", oldString: "one", newString: "1" })).reason, "ambiguous")
      assert.strictEqual((yield* toolError("edit", { filePath: "a.txt", oldString: "two", newString: "two" })).reason, "invalid")
    }).pipe(Effect.provide(memory({ root }, files))))

  it.effect("stale: the file changed since it was read, with FileTime's error as the cause", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      yield* call("read", { filePath: "a.txt" })
      yield* fs.writeFileString("/ws/a.txt", "changed by someone else\n")
      const stale = yield* toolError("write", { filePath: "a.txt", content: "mine\n" })
      assert.strictEqual(stale.reason, "stale")
      assert.strictEqual((stale.cause as { _tag: string })._tag, "FileModifiedError")
    }).pipe(Effect.provide(memory({ root }, files))))

  it.effect("apply_patch: context not in the file is no-match; a patch without sections is invalid", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      const patch = (body: string) => ({ patchText: `*** Begin Patch\n${body}*** End Patch` })
      const noMatch = yield* toolError("apply_patch", patch("*** Update File: a.txt\n@@\n-three\n+3\n"))
      assert.strictEqual(noMatch.reason, "no-match")
      assert.strictEqual((yield* toolError("apply_patch", patch(""))).reason, "invalid")
    }).pipe(Effect.provide(memory({ root }, files))))
})
