/**
 * apply_patch beyond the codex corpus: all-or-nothing with rollback, context placement and
 * diagnostics, final newlines, byte-exact line endings and encodings, syntax errors
 * with line numbers, the permission ask, and the pure update function.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path } from "effect"
import * as PlatformError from "effect/PlatformError"
import { MemoryFileSystem, ScriptedPermission } from "@agent-tools/testing"
import { Patch } from "@agent-tools/tools"
import { call, callError, callPatch, callPatchError, memory, readText, registry } from "../file/harness.ts"

const ws = { root: "/ws" }
const patch = (...lines: ReadonlyArray<string>) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")

const exists = (file: string) => FileSystem.FileSystem.use((fs) => fs.exists(file))

describe("apply_patch: the freshness check of write and edit", () => {
  const setUp = { "/ws/a.txt": "a\n", "/ws/b.txt": "one\ntwo\n" }
  const update = patch("*** Add File: new.txt", "+new", "*** Update File: b.txt", "@@", "-one", "+ONE")

  it.effect("a file changed since the session read it is refused with the stale-edit error; nothing is written", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      yield* call("read", { filePath: "b.txt" })
      yield* fs.writeFileString("/ws/b.txt", "one!\ntwo\n")
      const error = yield* callError("apply_patch", { patchText: update })
      // The very refusal a stale edit and a stale write get.
      assert.strictEqual(error, yield* callError("edit", { filePath: "b.txt", oldString: "one", newString: "ONE" }))
      assert.strictEqual(error, yield* callError("write", { filePath: "b.txt", content: "ONE\ntwo\n" }))
      assert.include(error, "File /ws/b.txt has been modified since it was last read")
      assert.strictEqual(yield* readText("/ws/b.txt"), "one!\ntwo\n")
      assert.isFalse(yield* exists("/ws/new.txt"))
    }).pipe(Effect.provide(memory(ws, setUp))))

  it.effect("a file the session never read is refused like an edit of it; a read file is patched", () =>
    Effect.gen(function*() {
      const error = yield* callError("apply_patch", { patchText: update })
      assert.strictEqual(error, yield* callError("edit", { filePath: "b.txt", oldString: "one", newString: "ONE" }))
      assert.isFalse(yield* exists("/ws/new.txt"))
      yield* call("read", { filePath: "b.txt" })
      yield* call("apply_patch", { patchText: update })
      assert.strictEqual(yield* readText("/ws/b.txt"), "ONE\ntwo\n")
      // Its own write counts as read: the next patch needs no new read.
      yield* call("apply_patch", { patchText: patch("*** Update File: b.txt", "@@", "-two", "+TWO") })
      assert.strictEqual(yield* readText("/ws/b.txt"), "ONE\nTWO\n")
    }).pipe(Effect.provide(memory(ws, setUp))))
})

describe("apply_patch: all or nothing", () => {
  it.effect("a failing third hunk leaves the added, deleted and updated files as they were", () =>
    Effect.gen(function*() {
      const error = yield* callPatchError({
        patchText: patch("*** Add File: new.txt", "+new", "*** Delete File: a.txt", "*** Update File: b.txt", "@@", "-nope", "+x")
      })
      assert.isTrue(error.startsWith("apply_patch failed at hunk 3 (patch line 5): Failed to find expected lines in b.txt:\nnope"), error)
      assert.include(error, "No files were changed.")
      assert.isFalse(yield* exists("/ws/new.txt"))
      assert.strictEqual(yield* readText("/ws/a.txt"), "a\n")
      assert.strictEqual(yield* readText("/ws/b.txt"), "b\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": "a\n", "/ws/b.txt": "b\n" }))))

  // A FileSystem whose rename onto /ws/c.txt fails: the commit must undo the files before it.
  const failingRename = Layer.effect(
    FileSystem.FileSystem,
    Effect.map(MemoryFileSystem.make({ "/ws/a.txt": "a\n", "/ws/b.txt": "b\n", "/ws/c.txt": "c\n" }), (fs) =>
      FileSystem.make({
        ...fs,
        rename: (from, to) =>
          to === "/ws/c.txt"
            ? Effect.fail(PlatformError.systemError({ _tag: "PermissionDenied", module: "FileSystem", method: "rename", pathOrDescriptor: to }))
            : fs.rename(from, to)
      }))
  )

  it.effect("a write failure during the commit restores every file already replaced, and removes created ones", () =>
    Effect.gen(function*() {
      const error = yield* callPatchError({
        patchText: patch(
          "*** Update File: a.txt", "@@", "-a", "+A",
          "*** Add File: sub/new.txt", "+new",
          "*** Delete File: b.txt",
          "*** Update File: c.txt", "@@", "-c", "+C"
        )
      })
      assert.strictEqual(error, "Failed to write c.txt: permission denied. No files were changed (everything written so far was restored).")
      assert.strictEqual(yield* readText("/ws/a.txt"), "a\n")
      assert.strictEqual(yield* readText("/ws/b.txt"), "b\n")
      assert.strictEqual(yield* readText("/ws/c.txt"), "c\n")
      assert.isFalse(yield* exists("/ws/sub"))
      const fs = yield* FileSystem.FileSystem
      assert.deepStrictEqual((yield* fs.readDirectory("/ws")).sort(), ["a.txt", "b.txt", "c.txt"])
    }).pipe(Effect.provide(registry(ws, Layer.mergeAll(failingRename, Path.layer)))))

  it.effect("sequential mode keeps the hunks before the failing one and says so", () =>
    Effect.gen(function*() {
      const error = yield* callPatchError({
        patchText: patch("*** Add File: created.txt", "+hello", "*** Update File: missing.txt", "@@", "-old", "+new")
      })
      assert.strictEqual(
        error,
        "apply_patch failed at hunk 2 (patch line 4): Failed to read file to update missing.txt: No such file or directory\n" +
          "The hunks before it were applied (sequential mode):\nA created.txt"
      )
      assert.strictEqual(yield* readText("/ws/created.txt"), "hello\n")
    }).pipe(Effect.provide(memory({ ...ws, mode: "sequential" }, { directories: ["/ws"] }))))
})

describe("apply_patch: placement and diagnostics", () => {
  it.effect("a pure addition under @@ context goes right after that line (atomic), to the end in sequential mode", () =>
    Effect.gen(function*() {
      const text = patch("*** Update File: f.py", "@@ def foo():", "+    pass")
      yield* callPatch({ patchText: text })
      assert.strictEqual(yield* readText("/ws/f.py"), "def foo():\n    pass\n\ndef bar():\n    return 1\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/f.py": "def foo():\n\ndef bar():\n    return 1\n" }))))

  it.effect("missing context names the closest line; an applied patch is recognised", () =>
    Effect.gen(function*() {
      const missing = yield* callPatchError({ patchText: patch("*** Update File: f.ts", "@@", " const a = 1", "-const b = 3", "+const b = 4") })
      assert.include(missing, "Failed to find expected lines in f.ts:\nconst a = 1\nconst b = 3")
      assert.include(missing, 'The closest line to "const a = 1" is line 1: "const a = 1".')
      const again = yield* callPatchError({ patchText: patch("*** Update File: f.ts", "@@", "-const b = 1", "+const b = 2") })
      assert.include(again, "already in the file: the patch may have been applied already")
    }).pipe(Effect.provide(memory(ws, { "/ws/f.ts": "const a = 1\nconst b = 2\n" }))))

  it.effect("a file without a final newline keeps it that way; End of File anchors at the last occurrence", () =>
    Effect.gen(function*() {
      yield* callPatch({ patchText: patch("*** Update File: n.txt", "@@", "-a", "+A") })
      assert.strictEqual(yield* readText("/ws/n.txt"), "A\nb")
      yield* callPatch({ patchText: patch("*** Update File: e.txt", "@@", " x", "+c", "*** End of File") })
      assert.strictEqual(yield* readText("/ws/e.txt"), "x\ny\nx\nc\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/n.txt": "a\nb", "/ws/e.txt": "x\ny\nx\n" }))))
})

describe("apply_patch: bytes and syntax", () => {
  it.effect("CRLF, a BOM and Latin-1 are kept; typographic quotes in context still match", () =>
    Effect.gen(function*() {
      yield* callPatch({
        patchText: patch(
          "*** Update File: crlf.txt", "@@", " one", "-two", "+TWO", "+2.5",
          "*** Update File: latin.txt", "@@", "-x = 1", "+x = 2",
          "*** Update File: q.txt", "@@", " it’s here", "-old", "+new"
        )
      })
      assert.strictEqual(yield* readText("/ws/crlf.txt"), "\uFEFFone\r\nTWO\r\n2.5\r\nthree\r\n")
      const latin = yield* FileSystem.FileSystem.use((fs) => fs.readFile("/ws/latin.txt"))
      assert.deepStrictEqual(Array.from(latin), [0x63, 0x61, 0x66, 0xe9, 0x0a, ...new TextEncoder().encode("x = 2\n")])
      assert.strictEqual(yield* readText("/ws/q.txt"), "it's here\nnew\n")
    }).pipe(Effect.provide(memory(ws, {
      "/ws/crlf.txt": "\uFEFFone\r\ntwo\r\nthree\r\n",
      "/ws/latin.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, ...new TextEncoder().encode("x = 1\n")]),
      "/ws/q.txt": "it's here\nold\n"
    }))))

  it.effect("syntax errors carry the patch line number and write nothing; a heredoc wrapper is accepted", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* callPatchError({ patchText: patch("*** Add File: ok.txt", "+ok", "*** Update File: a.txt", "@@", "oops") }),
        "Invalid patch hunk on line 6: Unexpected line found in update hunk: 'oops'. Every line should start with ' ' (context line), " +
          "'+' (added line), or '-' (removed line)\nNo files were changed."
      )
      assert.strictEqual(
        yield* callPatchError({ patchText: "*** Begin Patch\n*** Add File: x\n+x" }),
        "Invalid patch: The last line of the patch must be '*** End Patch'\nNo files were changed."
      )
      assert.strictEqual(yield* callPatchError({ patchText: "  " }), "patchText is required")
      assert.isFalse(yield* exists("/ws/ok.txt"))
      yield* callPatch({ patchText: `cat <<'EOF'\n${patch("*** Update File: a.txt", "@@", "-a", "+b")}\nEOF` })
      assert.strictEqual(yield* readText("/ws/a.txt"), "b\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": "a\n" }))))
})

describe("apply_patch: result and permission", () => {
  it.effect("one edit ask for all files, the diff in the result; output lists A / M / D", () =>
    Effect.gen(function*() {
      const result = yield* callPatch({
        patchText: patch(
          "*** Add File: docs/new.md", "+# New",
          "*** Update File: src/a.ts", "*** Move to: src/b.ts", "@@", "-export const a = 1", "+export const b = 1",
          "*** Delete File: old.txt"
        )
      })
      assert.strictEqual(result.output, "Success. Updated the following files:\nA docs/new.md\nM src/b.ts\nD old.txt")
      const asks = yield* ScriptedPermission.asked
      assert.strictEqual(asks.length, 1)
      assert.strictEqual(asks[0]!.request.permission, "edit")
      assert.deepStrictEqual([...asks[0]!.request.patterns].sort(), ["docs/new.md", "old.txt", "src/a.ts", "src/b.ts"])
      assert.include(String(result.metadata.diff), "-export const a = 1")
      assert.isFalse(yield* exists("/ws/src/a.ts"))
      assert.strictEqual(yield* readText("/ws/src/b.ts"), "export const b = 1\n")
    }).pipe(Effect.provide(memory(
      { ...ws, permission: ScriptedPermission.layer(() => "once") },
      { "/ws/src/a.ts": "export const a = 1\n", "/ws/old.txt": "old\n" }
    ))))
})

describe("apply_patch: a pure rename", () => {
  const files = { "/ws/src/a.ts": "export const a = 1\nexport const b = 2\n" }
  for (
    const [name, lines] of [
      ["without chunks", ["*** Update File: src/a.ts", "*** Move to: src/c.ts"]],
      ["with a chunk that changes nothing", ["*** Update File: src/a.ts", "*** Move to: src/c.ts", "@@", " export const a = 1"]]
    ] as const
  ) {
    it.effect(`${name} is shown as a rename, not the file deleted and added`, () =>
      Effect.gen(function*() {
        const result = yield* callPatch({ patchText: patch(...lines) })
        assert.strictEqual(result.metadata.diff, "renamed src/a.ts → src/c.ts")
        const entries = result.metadata.files as ReadonlyArray<Record<string, unknown>>
        assert.deepStrictEqual(entries.map((f) => [f.relativePath, f.type, f.movePath, f.additions, f.deletions]), [
          ["src/a.ts", "move", "src/c.ts", 0, 0]
        ])
        assert.strictEqual(yield* readText("/ws/src/c.ts"), files["/ws/src/a.ts"])
        assert.isFalse(yield* exists("/ws/src/a.ts"))
      }).pipe(Effect.provide(memory(ws, files))))
  }
})

describe("deriveUpdate", () => {
  const chunk = (lines: ReadonlyArray<string>) => Patch.parsePatch(patch("*** Update File: f", ...lines))[0]!
  const update = (text: string, lines: ReadonlyArray<string>, semantics: Patch.Semantics = "atomic") => {
    const hunk = chunk(lines)
    return hunk.type === "update" ? Patch.deriveUpdate(text, hunk.chunks, "f", semantics) : assert.fail("not an update")
  }

  it("new lines take the ending of the line they replace, inserted ones the dominant ending", () => {
    assert.strictEqual(update("a\r\nb\nc\r\n", ["@@", " a", "-b", "+B", "+B2"]), "a\r\nB\nB2\r\nc\r\n")
  })
  it("sequential semantics always end with a newline, in the file's dominant ending", () => {
    assert.strictEqual(update("one\r\ntwo", ["@@", "-one", "+ONE"], "sequential"), "ONE\r\ntwo\r\n")
    assert.strictEqual(update("one\r\ntwo", ["@@", "-one", "+ONE"], "atomic"), "ONE\r\ntwo")
  })
  it("chunks apply in file order; context lines keep the file's bytes", () => {
    assert.strictEqual(update("a  \nb\nc\nd\n", ["@@", " a", "-b", "+B", "@@", "-d", "+D"]), "a  \nB\nc\nD\n")
  })
})

describe("apply_patch: context that occurs more than once", () => {
  const twice = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n"
  const unanchored = patch("*** Update File: m.py", "@@", "     x = 1", "-    return x", "+    return x + 1")

  it.effect("without an @@ line it is refused, naming the candidate lines, and nothing is written", () =>
    Effect.gen(function*() {
      const error = yield* callPatchError({ patchText: unanchored })
      assert.strictEqual(
        error,
        "apply_patch failed at hunk 1 (patch line 2): The lines to change occur 2 times in m.py, at lines 2-3, 6-7:\n" +
          "    x = 1\n    return x\n" +
          "Add an `@@` line naming the function or class they are in (for example `@@ def handler`), or more context " +
          "lines, so they match one place only.\nNo files were changed."
      )
      assert.strictEqual(yield* readText("/ws/m.py"), twice)
    }).pipe(Effect.provide(memory(ws, { "/ws/m.py": twice }))))

  it.effect("an @@ line picks the copy", () =>
    Effect.gen(function*() {
      yield* callPatch({
        patchText: patch("*** Update File: m.py", "@@ def b():", "     x = 1", "-    return x", "+    return x + 1")
      })
      assert.strictEqual(yield* readText("/ws/m.py"), twice.replace(/return x\n$/, "return x + 1\n"))
    }).pipe(Effect.provide(memory(ws, { "/ws/m.py": twice }))))

  it.effect("sequential (codex) mode keeps codex's behaviour: the first copy", () =>
    Effect.gen(function*() {
      yield* callPatch({ patchText: unanchored })
      assert.strictEqual(yield* readText("/ws/m.py"), twice.replace("return x\n", "return x + 1\n"))
    }).pipe(Effect.provide(memory({ ...ws, mode: "sequential" }, { "/ws/m.py": twice }))))

  it("sequential mode takes the first copy after the previous chunk", () => {
    const hunk = Patch.parsePatch(patch("*** Update File: f", "@@", "-a", "+A", "@@", "-b", "+B"))[0]!
    if (hunk.type !== "update") return assert.fail("not an update")
    assert.strictEqual(Patch.deriveUpdate("b\na\nb\nb\n", hunk.chunks, "f", "sequential"), "b\nA\nB\nb\n")
    assert.throws(() => Patch.deriveUpdate("b\na\nb\nb\n", hunk.chunks, "f", "atomic"), /occur 2 times in f, at lines 3, 4/)
  })

  it("the pure update function refuses the same way", () => {
    assert.throws(
      () =>
        Patch.deriveUpdate("a\nb\na\nb\n", [{ changeContext: undefined, oldLines: ["a"], newLines: ["A"], lines: [{ op: "-", text: "a" }, { op: "+", text: "A" }], isEndOfFile: false, line: 2 }], "f", "atomic"),
      /occur 2 times in f, at lines 1, 3/
    )
  })
})
