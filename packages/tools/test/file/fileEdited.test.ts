/**
 * Every tool that writes a file publishes `FileEdited` (real path, tool, session) once the file is
 * written: write, edit, multiedit and apply_patch; a failed call publishes nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Events } from "@agent-tools/core"
import { call, callError, callPatch, memory, recordingEvents } from "./harness.ts"

const ws = { root: "/ws" }
const patch = (...lines: ReadonlyArray<string>) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")

const edited = (published: ReadonlyArray<Events.Event>) =>
  published.filter((e) => e._tag === "FileEdited")

describe("FileEdited events", () => {
  it.effect("write: a new file and an overwrite", () => {
    const published: Array<Events.Event> = []
    return Effect.gen(function*() {
      yield* call("write", { filePath: "new.txt", content: "hello\n" }, "s1")
      yield* call("read", { filePath: "a.txt" }, "s2")
      yield* call("write", { filePath: "a.txt", content: "b\n" }, "s2")
      assert.deepStrictEqual(edited(published), [
        { _tag: "FileEdited", path: "/ws/new.txt", tool: "write", sessionID: "s1" },
        { _tag: "FileEdited", path: "/ws/a.txt", tool: "write", sessionID: "s2" }
      ])
    }).pipe(Effect.provide(memory({ ...ws, events: recordingEvents(published) }, { "/ws/a.txt": "a\n" })))
  })

  it.effect("edit and multiedit; a failing edit publishes nothing", () => {
    const published: Array<Events.Event> = []
    return Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      yield* call("edit", { filePath: "a.txt", oldString: "one", newString: "uno" })
      yield* call("multiedit", { filePath: "a.txt", edits: [{ oldString: "uno", newString: "1" }, { oldString: "two", newString: "2" }] })
      yield* callError("edit", { filePath: "a.txt", oldString: "missing", newString: "x" })
      assert.deepStrictEqual(edited(published), [
        { _tag: "FileEdited", path: "/ws/a.txt", tool: "edit", sessionID: "s1" },
        { _tag: "FileEdited", path: "/ws/a.txt", tool: "multiedit", sessionID: "s1" }
      ])
    }).pipe(Effect.provide(memory({ ...ws, events: recordingEvents(published) }, { "/ws/a.txt": "one\ntwo\n" })))
  })

  it.effect("apply_patch: each added, updated and moved file; not deleted ones", () => {
    const published: Array<Events.Event> = []
    return Effect.gen(function*() {
      yield* callPatch({
        patchText: patch(
          "*** Add File: new.txt",
          "+new",
          "*** Update File: a.txt",
          "@@",
          "-a",
          "+A",
          "*** Update File: b.txt",
          "*** Move to: moved/b.txt",
          "@@",
          "-b",
          "+B",
          "*** Delete File: c.txt"
        )
      })
      assert.deepStrictEqual(edited(published).map((e) => e._tag === "FileEdited" ? [e.path, e.tool, e.sessionID] : []).sort(), [
        ["/ws/a.txt", "apply_patch", "s1"],
        ["/ws/moved/b.txt", "apply_patch", "s1"],
        ["/ws/new.txt", "apply_patch", "s1"]
      ])
    }).pipe(Effect.provide(memory({ ...ws, events: recordingEvents(published) }, { "/ws/a.txt": "a\n", "/ws/b.txt": "b\n", "/ws/c.txt": "c\n" })))
  })
})
