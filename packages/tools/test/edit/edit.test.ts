/**
 * The edit tool through the registry on the in-memory file system: read-before-edit by content
 * hash, byte-exact preservation (CRLF, mixed endings, lone CR, BOM, Latin-1, UTF-16, no final
 * newline), clear refusals that write nothing, and what the result and the permission ask carry.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path } from "effect"
import { TestClock } from "effect/testing"
import { MemoryFileSystem, ScriptedPermission } from "@agent-tools/testing"
import { bytes, call, callError, memory, readBytes, readText, registry } from "../file/harness.ts"

const ws = { root: "/ws" }
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ")

const readThenEdit = (file: string, oldString: string, newString: string, replaceAll?: boolean) =>
  Effect.gen(function*() {
    yield* call("read", { filePath: file })
    return yield* call("edit", { filePath: file, oldString, newString, ...(replaceAll === undefined ? {} : { replaceAll }) })
  })

describe("edit: read before write", () => {
  it.effect("an unread file is refused and left alone; after a read two edits need no re-read", () =>
    Effect.gen(function*() {
      const error = yield* callError("edit", { filePath: "a.txt", oldString: "one", newString: "1" })
      assert.strictEqual(error, "You must read file /ws/a.txt before overwriting it. Use the read tool first.")
      yield* call("read", { filePath: "a.txt" })
      yield* call("edit", { filePath: "a.txt", oldString: "one", newString: "1" })
      yield* call("edit", { filePath: "/ws/a.txt", oldString: "two", newString: "2" })
      assert.strictEqual(yield* readText("/ws/a.txt"), "1\n2\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": "one\ntwo\n" }))))

  it.effect("an external change between read and edit is detected; a touch with the same bytes is not", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      yield* call("read", { filePath: "a.txt" })
      yield* TestClock.adjust("10 seconds")
      yield* fs.utimes("/ws/a.txt", new Date(), new Date(Date.now() + 60_000))
      yield* call("edit", { filePath: "a.txt", oldString: "one", newString: "1" })
      yield* fs.writeFileString("/ws/a.txt", "1\ntwo\nthree\n") // someone else appends a line
      const error = yield* callError("edit", { filePath: "a.txt", oldString: "two", newString: "2" })
      assert.include(error, "has been modified since it was last read")
      assert.strictEqual(yield* readText("/ws/a.txt"), "1\ntwo\nthree\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": "one\ntwo\n" }))))

  const five = "one\ntwo\nthree\nfour\nfive\n"

  it.effect("a change elsewhere in the file since the read: the edit is made on the current content, and says so", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      yield* call("read", { filePath: "a.txt" })
      yield* fs.writeFileString("/ws/a.txt", five.replace("one", "ONE")) // someone else, two lines away
      const result = yield* call("edit", { filePath: "a.txt", oldString: "four", newString: "4" })
      assert.strictEqual(
        result.output,
        "Edit applied successfully. The file had been changed since you read it, in other lines than this edit touches: " +
          "the edit was re-based over that change. Read the file again to see it."
      )
      assert.strictEqual(result.metadata.rebased, true)
      assert.strictEqual(yield* readText("/ws/a.txt"), "ONE\ntwo\nthree\n4\nfive\n")
      // multiedit alike; its own write is what the next edit compares with.
      yield* fs.writeFileString("/ws/a.txt", "ONE\ntwo\nthree\n4\nFIVE\n")
      const multi = yield* call("multiedit", { filePath: "a.txt", edits: [{ oldString: "ONE", newString: "1" }, { oldString: "two", newString: "2" }] })
      assert.include(multi.output, "re-based")
      assert.strictEqual(yield* readText("/ws/a.txt"), "1\n2\nthree\n4\nFIVE\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": five }))))

  it.effect("a change in or next to the edited lines, or one that removed oldString, is refused as stale and nothing is written", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      yield* call("read", { filePath: "a.txt" })
      for (const changed of [five.replace("four", "FOUR"), five.replace("three", "THREE"), five.replace("four\n", "")]) {
        yield* fs.writeFileString("/ws/a.txt", changed)
        const error = yield* callError("edit", { filePath: "a.txt", oldString: "four", newString: "4" })
        assert.include(error, "has been modified since it was last read")
        assert.strictEqual(yield* readText("/ws/a.txt"), changed)
      }
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": five }))))
})

describe("edit: byte-exact preservation", () => {
  it.effect("CRLF file, LF oldString and newString: CRLF kept, no bare LF, no doubled blank line", () =>
    Effect.gen(function*() {
      yield* readThenEdit("c.txt", "b\nc\n", "B\nC\n")
      assert.strictEqual(yield* readText("/ws/c.txt"), "a\r\nB\r\nC\r\nd\r\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/c.txt": "a\r\nb\r\nc\r\nd\r\n" }))))

  it.effect("mixed endings: an edit on an LF line leaves the CRLF lines as they were", () =>
    Effect.gen(function*() {
      yield* readThenEdit("m.txt", "five", "FIVE\nfive-and-a-half")
      assert.strictEqual(yield* readText("/ws/m.txt"), "one\r\ntwo\r\nthree\r\nfour\nFIVE\nfive-and-a-half\nsix\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/m.txt": "one\r\ntwo\r\nthree\r\nfour\nfive\nsix\n" }))))

  it.effect("a lone CR and a missing final newline survive", () =>
    Effect.gen(function*() {
      yield* readThenEdit("r.txt", "c", "C")
      assert.strictEqual(yield* readText("/ws/r.txt"), "a\rb\nC")
    }).pipe(Effect.provide(memory(ws, { "/ws/r.txt": "a\rb\nc" }))))

  it.effect("UTF-8 BOM kept, never matched as text", () =>
    Effect.gen(function*() {
      yield* readThenEdit("bom.txt", "hello", "hello2")
      assert.strictEqual(hex(yield* readBytes("/ws/bom.txt")), hex(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes("hello2\n")])))
    }).pipe(Effect.provide(memory(ws, { "/ws/bom.txt": new Uint8Array([0xef, 0xbb, 0xbf, ...bytes("hello\n")]) }))))

  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, ...bytes("x = 1\n")]) // "café\nx = 1\n" in ISO-8859-1

  it.effect("Latin-1 stays Latin-1 byte for byte", () =>
    Effect.gen(function*() {
      const read = yield* call("read", { filePath: "l.txt" })
      assert.include(read.output, "1: café")
      yield* call("edit", { filePath: "l.txt", oldString: "x = 1", newString: "x = 2" })
      yield* call("edit", { filePath: "l.txt", oldString: "café", newString: "thé" })
      assert.strictEqual(hex(yield* readBytes("/ws/l.txt")), hex(new Uint8Array([0x74, 0x68, 0xe9, 0x0a, ...bytes("x = 2\n")])))
    }).pipe(Effect.provide(memory(ws, { "/ws/l.txt": latin1 }))))

  it.effect("a character Latin-1 cannot hold is refused, nothing written, never U+FFFD", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "l.txt" })
      const error = yield* callError("edit", { filePath: "l.txt", oldString: "x = 1", newString: "x = 1 ✅" })
      assert.include(error, "ISO-8859-1")
      assert.include(error, "✅")
      assert.strictEqual(hex(yield* readBytes("/ws/l.txt")), hex(latin1))
    }).pipe(Effect.provide(memory(ws, { "/ws/l.txt": latin1 }))))

  it.effect("UTF-16LE with BOM round-trips", () =>
    Effect.gen(function*() {
      const encode16 = (s: string) => new Uint8Array([0xff, 0xfe, ...Array.from(s).flatMap((c) => [c.charCodeAt(0), 0])])
      yield* readThenEdit("w.txt", "two", "deux")
      assert.strictEqual(hex(yield* readBytes("/ws/w.txt")), hex(encode16("one\r\ndeux\r\n")))
    }).pipe(Effect.provide(memory(ws, { "/ws/w.txt": new Uint8Array([0xff, 0xfe, ...Array.from("one\r\ntwo\r\n").flatMap((c) => [c.charCodeAt(0), 0])]) }))))
})

describe("edit: errors write nothing", () => {
  it.effect("ambiguity names the lines; not found names the closest line and the strategies tried", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.ts" })
      const ambiguous = yield* callError("edit", { filePath: "a.ts", oldString: "return x", newString: "return y" })
      assert.strictEqual(
        ambiguous,
        "Found 2 matches for oldString in a.ts (exact match) at lines 2, 5. Include more surrounding lines in oldString to " +
          "pick one, or set replaceAll to true to change every occurrence."
      )
      const missing = yield* callError("edit", { filePath: "a.ts", oldString: "function gamma() {", newString: "x" })
      assert.include(missing, "Could not find oldString in a.ts. Tried exact, indentation-flexible, line-trimmed")
      assert.include(missing, "The closest line in the file is line 4")
      assert.strictEqual(yield* readText("/ws/a.ts"), "function alpha() {\n  return x\n}\nfunction beta() {\n  return x\n}\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.ts": "function alpha() {\n  return x\n}\nfunction beta() {\n  return x\n}\n" }))))

  it.effect("identical strings, empty oldString on an existing file, a directory, a missing file", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* callError("edit", { filePath: "a.txt", oldString: "x", newString: "x" }),
        "No changes to apply: oldString and newString are identical."
      )
      yield* call("read", { filePath: "a.txt" })
      assert.include(yield* callError("edit", { filePath: "a.txt", oldString: "", newString: "y" }), "oldString cannot be empty")
      assert.strictEqual(yield* callError("edit", { filePath: "dir", oldString: "a", newString: "b" }), "Path is a directory, not a file: dir")
      assert.strictEqual(
        yield* callError("edit", { filePath: "A.txt.bak", oldString: "a", newString: "b" }),
        "File not found: A.txt.bak\n\nDid you mean one of these?\n/ws/a.txt"
      )
      assert.strictEqual(yield* readText("/ws/a.txt"), "x\n")
    }).pipe(Effect.provide(memory(ws, { files: { "/ws/a.txt": "x\n" }, directories: ["/ws/dir"] }))))

  it.effect("a binary file and a file over the 10 MB edit limit are refused", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* callError("edit", { filePath: "b.bin", oldString: "a", newString: "b" }),
        "b.bin is a binary file; the edit tool only changes text files."
      )
      assert.include(
        yield* callError("edit", { filePath: "big.txt", oldString: "a", newString: "b" }),
        "File big.txt is too large to edit (10485761 bytes; the limit is 10 MB)"
      )
    }).pipe(Effect.provide(memory(ws, {
      "/ws/b.bin": new Uint8Array([1, 2, 0, 3]),
      "/ws/big.txt": "a".repeat(10 * 1024 * 1024 + 1)
    }))))

  it.effect("an empty oldString on a missing path creates the file and its directories", () =>
    Effect.gen(function*() {
      const result = yield* call("edit", { filePath: "new/dir/f.txt", oldString: "", newString: "hello\n" })
      assert.strictEqual(result.output, "Created new/dir/f.txt.")
      assert.strictEqual(yield* readText("/ws/new/dir/f.txt"), "hello\n")
    }).pipe(Effect.provide(memory(ws, { directories: ["/ws"] }))))
})

describe("edit: what the result says about a loose match", () => {
  it.effect("typographic quotes and a cut-off last line are named like the other fuzzy matches", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.ts" })
      const quotes = yield* call("edit", { filePath: "a.ts", oldString: "greet(“hi”)", newString: "greet(“hello”)" })
      assert.strictEqual(quotes.output, "Edit applied successfully. (quote-normalized match at line 1)")
      assert.strictEqual(quotes.metadata.strategy, "quote-normalized")
      const cut = yield* call("edit", { filePath: "a.ts", oldString: "x = f", newString: "x = g();" })
      assert.strictEqual(
        cut.output,
        "Edit applied successfully. (exact match at line 2; oldString stopped inside a line and newString's last line ends " +
          "like it, so the whole line was replaced)"
      )
      assert.strictEqual(yield* readText("/ws/a.ts"), 'greet("hello")\nx = g();\n')
    }).pipe(Effect.provide(memory(ws, { "/ws/a.ts": 'greet("hi")\nx = f();\n' }))))
})

describe("edit: result and permission", () => {
  it.effect("names the strategy and matched lines; one edit ask for the file, the diff in the result", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "src/deep.ts" })
      const result = yield* call("edit", { filePath: "src/deep.ts", oldString: "if (a) {\n  go()\n}", newString: "if (a) {\n  go(1)\n}" })
      assert.strictEqual(
        result.output,
        "Edit applied successfully. (indentation-flexible match at lines 3-5; added lines re-indented to the file's indentation)"
      )
      assert.strictEqual(result.metadata.strategy, "indentation-flexible")
      assert.strictEqual(result.metadata.matchedLines, "3-5")
      const ask = (yield* ScriptedPermission.asked).find((a) => a.request.permission === "edit")
      assert.deepStrictEqual(ask!.request.patterns, ["src/deep.ts"])
      assert.strictEqual(ask!.request.metadata!.filepath, "/ws/src/deep.ts")
      const diff = String(result.metadata.diff)
      assert.include(diff, "@@ -1,7 +1,7 @@\n class A {\n   m() {\n     if (a) {\n-      go()\n+      go(1)\n")
      assert.strictEqual(yield* readText("/ws/src/deep.ts"), "class A {\n  m() {\n    if (a) {\n      go(1)\n    }\n  }\n}\n")
    }).pipe(Effect.provide(memory(
      { ...ws, permission: ScriptedPermission.layer(() => "once") },
      { "/ws/src/deep.ts": "class A {\n  m() {\n    if (a) {\n      go()\n    }\n  }\n}\n" }
    ))))

  it.effect("a rejected ask writes nothing", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      const error = yield* callError("edit", { filePath: "a.txt", oldString: "x", newString: "y" })
      assert.include(error, "rejected")
      assert.strictEqual(yield* readText("/ws/a.txt"), "x\n")
    }).pipe(Effect.provide(memory({ ...ws, permission: ScriptedPermission.layer((r) => (r.permission === "edit" ? "reject" : "once")) }, { "/ws/a.txt": "x\n" }))))
})

describe("one file transaction", () => {
  // A FileSystem that counts what is done to /ws/a.txt.
  const counted = () => {
    const counts = { realPath: 0, stat: 0, open: 0, readFile: 0, created: 0, rename: 0 }
    const order: Array<string> = []
    const layer = Layer.effect(
      FileSystem.FileSystem,
      Effect.map(MemoryFileSystem.make({ "/ws/a.txt": "one\ntwo\n" }), (fs) =>
        FileSystem.make({
          ...fs,
          realPath: (p) => (p === "/ws/a.txt" && counts.realPath++, fs.realPath(p)),
          stat: (p) => (p === "/ws/a.txt" && counts.stat++, fs.stat(p)),
          readFile: (p) => (p === "/ws/a.txt" && counts.readFile++, fs.readFile(p)),
          open: (p, options) =>
            p === "/ws/a.txt"
              ? (counts.open++, order.push(`open ${counts.open}`), Effect.tap(fs.open(p, options), () => {
                const n = counts.open
                return Effect.addFinalizer(() => Effect.sync(() => order.push(`close ${n}`)))
              }))
              : (p.startsWith("/ws/.a.txt.") && counts.created++, fs.open(p, options)),
          writeFile: (p, data, options) => (p.startsWith("/ws/.a.txt.") && counts.created++, fs.writeFile(p, data, options)),
          rename: (from, to) => (to === "/ws/a.txt" && (counts.rename++, order.push("rename")), fs.rename(from, to))
        }))
    )
    return { counts, order, layer: registry(ws, Layer.mergeAll(layer, Path.layer)) }
  }

  // created: the temp file, and the advisory lock file other processes' writers wait on.
  // The first open is the plan's read (the diff the prompt shows, before any lock); the
  // transaction reads again under the lock, as the bytes it writes over must be those it checked.
  it.effect("the file read stays open until the rename has replaced it (the old file is freed at that close), then closes", () => {
    const { counts, order, layer } = counted()
    return Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      counts.open = 0
      yield* call("edit", { filePath: "a.txt", oldString: "one", newString: "1" })
      // The closes are not waited for: they happen once the call's fiber lets them run.
      for (let i = 0; i < 10 && order.length < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(order.slice(0, 3), ["open 1", "open 2", "rename"])
      assert.deepStrictEqual(order.slice(3).sort(), ["close 1", "close 2"])
      order.length = 0
      counts.open = 0
      const created = counts.created
      yield* callError("edit", { filePath: "a.txt", oldString: "absent", newString: "x" })
      // A failed change: the run's read is closed before the call ends, the plan's soon after; the
      // refusal the plan reached, confirmed by that read, took no lock (no lock file was created).
      assert.deepStrictEqual(order.filter((s) => s !== "close 1"), ["open 1", "open 2", "close 2"])
      assert.strictEqual(counts.created, created)
      for (let i = 0; i < 10 && order.length < 4; i++) yield* Effect.yieldNow
      assert.include(order, "close 1")
    }).pipe(Effect.provide(layer))
  })

  it.effect("the temp file is closed after its rename, the lock file after its removal, neither close waited for", () => {
    const steps: Array<string> = []
    const name = (p: string) => p.endsWith(".agent-tools.lock") ? "lock" : "temp"
    const layer = Layer.effect(
      FileSystem.FileSystem,
      Effect.map(MemoryFileSystem.make({ "/ws/a.txt": "one\ntwo\n" }), (fs) =>
        FileSystem.make({
          ...fs,
          open: (p, options) =>
            p.startsWith("/ws/.a.txt.")
              ? Effect.tap(fs.open(p, options), () => (steps.push(`${name(p)} open`), Effect.addFinalizer(() => Effect.sync(() => steps.push(`${name(p)} close`)))))
              : fs.open(p, options),
          remove: (p, options) => (p.startsWith("/ws/.a.txt.") && steps.push(`${name(p)} removed`), fs.remove(p, options)),
          rename: (from, to) => (to === "/ws/a.txt" && steps.push("rename"), fs.rename(from, to))
        }))
    )
    return Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt" })
      yield* call("edit", { filePath: "a.txt", oldString: "one", newString: "1" })
      const returned = [...steps]
      for (let i = 0; i < 10 && steps.length < 6; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(returned, ["lock open", "temp open", "rename", "lock removed"])
      assert.deepStrictEqual([...steps].sort(), ["lock close", "lock open", "lock removed", "rename", "temp close", "temp open"])
      assert.strictEqual(yield* readText("/ws/a.txt"), "1\ntwo\n")
    }).pipe(Effect.provide(registry(ws, Layer.mergeAll(layer, Path.layer))))
  })

  for (const tool of ["edit", "multiedit", "write"] as const) {
    it.effect(`${tool}: the path resolved once, one read for the plan and one under the lock, one temp file renamed over it`, () => {
      const { counts, layer } = counted()
      const args = tool === "edit"
        ? { filePath: "a.txt", oldString: "one", newString: "1" }
        : tool === "multiedit"
        ? { filePath: "a.txt", edits: [{ oldString: "one", newString: "1" }, { oldString: "two", newString: "2" }] }
        : { filePath: "a.txt", content: "1\n2\n" }
      return Effect.gen(function*() {
        yield* call("read", { filePath: "a.txt" })
        Object.assign(counts, { realPath: 0, stat: 0, open: 0, readFile: 0, created: 0, rename: 0 })
        yield* call(tool, args)
        assert.deepStrictEqual(counts, { realPath: 1, stat: 2, open: 2, readFile: 0, created: 2, rename: 1 })
        assert.strictEqual(yield* readText("/ws/a.txt"), tool === "edit" ? "1\ntwo\n" : "1\n2\n")
      }).pipe(Effect.provide(layer))
    })
  }
})

describe("edit: placeholders", () => {
  it.effect("newString with `// ... existing code ...` where oldString has lines is refused and nothing is written", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "f.ts" })
      const error = yield* callError("edit", {
        filePath: "f.ts",
        oldString: "function f() {\n  const a = 1\n  return a\n}",
        newString: "function f() {\n  // ... existing code ...\n  return a + 1\n}"
      })
      assert.strictEqual(
        error,
        'newString line 2 is a placeholder, "// ... existing code ...", where oldString has 1 real line: the edit replaces ' +
          "text literally, so those lines would be deleted from f.ts. Spell those lines out in newString (quote only the " +
          'lines you change in oldString to keep it short); do not abbreviate with "..." or comments like "... rest of code ...".'
      )
      assert.strictEqual(yield* readText("/ws/f.ts"), "function f() {\n  const a = 1\n  return a\n}\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/f.ts": "function f() {\n  const a = 1\n  return a\n}\n" }))))
})
