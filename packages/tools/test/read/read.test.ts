/**
 * The read tool: paging and its limits, directories, binary refusal, attachments, did-you-mean,
 * encodings, the FileTime record, and spill files (file and non-file stores).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SpillStorage, Truncate } from "@agent-tools/core"
import { ScriptedPermission } from "@agent-tools/testing"
import { bytes, call, callError, memory } from "../file/harness.ts"

const ws = { root: "/ws" }
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

describe("read: text paging", () => {
  it.effect("the default page is 2000 lines with a continuation footer; offset and limit page on", () =>
    Effect.gen(function*() {
      const first = yield* call("read", { filePath: "big.txt" })
      assert.isTrue(first.metadata.truncated)
      assert.isTrue(first.output.startsWith("<path>/ws/big.txt</path>\n<type>file</type>\n<content>\n1: line 1\n"))
      assert.include(first.output, "2000: line 2000\n\n(Showing lines 1-2000 of 2500. Use offset=2001 to continue.)\n</content>")
      const last = yield* call("read", { filePath: "big.txt", offset: 2001, limit: 1000 })
      assert.include(last.output, "2001: line 2001")
      assert.include(last.output, "(End of file - total 2500 lines)")
      assert.isFalse(last.metadata.truncated)
      const zero = yield* call("read", { filePath: "big.txt", offset: 0, limit: 1 })
      assert.include(zero.output, "1: line 1\n\n(Showing lines 1-1 of 2500. Use offset=2 to continue.)")
    }).pipe(Effect.provide(memory(ws, { "/ws/big.txt": numbered(2500) }))))

  it.effect("an empty filePath is an argument error naming the field, not a listing of the root", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* callError("read", { filePath: "" }),
        "The read tool was called with invalid arguments:\n- filePath: must not be empty: give the path of a file or directory\n" +
          "Please rewrite the input so it satisfies the expected schema."
      )
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": "a\n" }))))

  it.effect("the page shrinks to fit the configured limits, frame included, so it is never cut again", () =>
    Effect.gen(function*() {
      const truncate = yield* Truncate.Truncate
      yield* truncate.update({ maxLines: 100 })
      const byLines = yield* call("read", { filePath: "big.txt" })
      assert.include(byLines.output, "93: line 93\n\n(Showing lines 1-93 of 2500. Use offset=94 to continue.)\n</content>")
      assert.isTrue(Truncate.fits(byLines.output, truncate.limits({ tool: "read" })))
      yield* truncate.setToolConfig("read", { maxBytes: 1024 })
      const byBytes = yield* call("read", { filePath: "big.txt" })
      assert.include(byBytes.output, "(Output capped at 1 KB. Showing lines 1-59. Use offset=60 to continue.)")
      // The page leaves room for the largest frame: 826 bytes here.
      assert.strictEqual(new TextEncoder().encode(byBytes.output).length, 826)
      assert.isUndefined(byBytes.metadata.outputPath)
    }).pipe(Effect.provide(memory(ws, { "/ws/big.txt": numbered(2500) }))))

  it.effect("an offset past the end names the line count; the last line is readable", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* callError("read", { filePath: "a.txt", offset: 4 }), "Offset 4 is out of range for this file (3 lines)")
      assert.include((yield* call("read", { filePath: "a.txt", offset: 3 })).output, "3: line 3\n\n(End of file - total 3 lines)")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": numbered(3) }))))

  it.effect("long lines are cut at 2000 characters and the page at 50 KB", () =>
    Effect.gen(function*() {
      const result = yield* call("read", { filePath: "wide.txt" })
      assert.include(result.output, `1: ${"x".repeat(2000)}... (line truncated to 2000 chars)\n`)
      // Numbered lines of 2038-2039 bytes: 24 fit the page budget (the 51200-byte limit less room for the frame).
      assert.include(result.output, "(Output capped at 50 KB. Showing lines 1-24. Use offset=25 to continue.)")
      assert.strictEqual(new TextEncoder().encode(result.output).length, 49065)
      assert.isTrue(result.metadata.truncated)
      assert.isUndefined(result.metadata.outputPath)
    }).pipe(Effect.provide(memory(ws, { "/ws/wide.txt": `${"x".repeat(5000)}\n`.repeat(100) }))))

  it.effect("CRLF lines come out without their CR; non-UTF-8 bytes are shown as Latin-1", () =>
    Effect.gen(function*() {
      const crlf = yield* call("read", { filePath: "crlf.txt" })
      assert.include(crlf.output, "1: a\n2: b\n\n(End of file - total 2 lines)")
      const latin = yield* call("read", { filePath: "latin.txt" })
      assert.include(latin.output, "1: café")
      assert.include(latin.output, "not valid UTF-8")
    }).pipe(Effect.provide(memory(ws, {
      "/ws/crlf.txt": "a\r\nb\r\n",
      "/ws/latin.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a])
    }))))

  it.effect("a file over the in-memory limit is paged from a stream, without counting to the end", () =>
    Effect.gen(function*() {
      const result = yield* call("read", { filePath: "huge.log", offset: 3, limit: 2 })
      assert.include(result.output, `3: row 3 ${"-".repeat(20)}\n4: row 4 ${"-".repeat(20)}\n\n(Showing lines 3-4. Use offset=5 to continue.)`)
    }).pipe(Effect.provide(memory(ws, { "/ws/huge.log": Array.from({ length: 500_000 }, (_, i) => `row ${i + 1} ${"-".repeat(20)}`).join("\n") }))))
})

describe("read: other kinds of path", () => {
  it.effect("a directory lists its entries, subdirectories with a slash", () =>
    Effect.gen(function*() {
      const result = yield* call("read", { filePath: "." })
      assert.strictEqual(result.output, "<path>/ws</path>\n<type>directory</type>\n<entries>\na.txt\nb.txt\nsub/\n(3 entries)\n</entries>")
      const paged = yield* call("read", { filePath: "/ws", offset: 2, limit: 1 })
      assert.include(paged.output, "b.txt\n(Showing 1 of 3 entries. Use 'offset' parameter to read beyond entry 2)")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": "", "/ws/b.txt": "", "/ws/sub/c.txt": "" }))))

  it.effect("binary files are refused: NUL byte, control characters, known extension", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* callError("read", { filePath: "nul.dat2" }), "Cannot read binary file: /ws/nul.dat2 (4 bytes)")
      assert.include(yield* callError("read", { filePath: "ctl.txt" }), "Cannot read binary file")
      assert.include(yield* callError("read", { filePath: "a.zip" }), "Cannot read binary file")
    }).pipe(Effect.provide(memory(ws, {
      "/ws/nul.dat2": new Uint8Array([0x61, 0, 0x62, 0x63]),
      "/ws/ctl.txt": new Uint8Array([1, 2, 3, 4, 5, 0x61]),
      "/ws/a.zip": "PK"
    }))))

  it.effect("images and PDFs, recognised by their magic bytes, become attachments", () =>
    Effect.gen(function*() {
      const png = yield* call("read", { filePath: "shot.dat" })
      assert.strictEqual(png.output, "Image read successfully")
      assert.strictEqual(png.attachments?.[0]?.mime, "image/png")
      assert.isTrue(png.attachments?.[0]?.url.startsWith("data:image/png;base64,iVBORw0KGgo"))
      const pdf = yield* call("read", { filePath: "doc.pdf" })
      assert.strictEqual(pdf.output, "PDF read successfully")
      const webp = yield* call("read", { filePath: "i.webp" })
      assert.strictEqual(webp.attachments?.[0]?.mime, "image/webp")
    }).pipe(Effect.provide(memory(ws, {
      "/ws/shot.dat": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      "/ws/doc.pdf": bytes("%PDF-1.7\n%\xff"),
      "/ws/i.webp": new Uint8Array([...bytes("RIFF"), 0, 0, 0, 0, ...bytes("WEBPVP8 ")])
    }))))

  it.effect("a missing file suggests up to 3 similar names", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* callError("read", { filePath: "src/util.ts" }),
        "File not found: /ws/src/util.ts\n\nDid you mean one of these?\n/ws/src/Util.tsx\n/ws/src/utils.ts\n/ws/src/util.js"
      )
      assert.strictEqual(yield* callError("read", { filePath: "nothing-like-it" }), "File not found: /ws/nothing-like-it")
    }).pipe(Effect.provide(memory(ws, {
      "/ws/src/utils.ts": "",
      "/ws/src/Util.tsx": "",
      "/ws/src/util.js": "",
      "/ws/src/unrelated.md": ""
    }))))
})

describe("read: FileTime and spills", () => {
  it.effect("a text read lets write replace the file; a partial read counts too", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.txt", limit: 1 })
      yield* call("write", { filePath: "a.txt", content: "new\n" })
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": numbered(10) }))))

  it.effect("spill files of a file store are readable without an external_directory ask; other outside files are not", () =>
    Effect.gen(function*() {
      const spill = yield* SpillStorage.SpillStorage
      const file = yield* spill.write(numbered(5))
      assert.isTrue(file.startsWith("/spill/"))
      const result = yield* call("read", { filePath: file, offset: 5 })
      assert.include(result.output, "5: line 5")
      assert.include(yield* callError("read", { filePath: "/outside/secret.txt" }), "external_directory")
    }).pipe(Effect.provide(memory(
      { ...ws, spillDir: "/spill", rules: [{ permission: "*", pattern: "*", action: "allow" }, { permission: "external_directory", pattern: "*", action: "deny" }] },
      { files: { "/outside/secret.txt": "s" }, directories: ["/ws", "/spill"] }
    ))))

  it.effect("spills of a non-file store are paged through SpillStorage.read", () =>
    Effect.gen(function*() {
      const spill = yield* SpillStorage.SpillStorage
      const id = yield* spill.write(numbered(3000))
      const result = yield* call("read", { filePath: id, offset: 2999 })
      assert.include(result.output, "2999: line 2999\n3000: line 3000\n\n(End of file - total 3000 lines)")
    }).pipe(Effect.provide(memory(ws, { directories: ["/ws"] }))))

  it.effect("a symlink inside that points out asks external_directory with the real target", () =>
    Effect.gen(function*() {
      yield* callError("read", { filePath: "link/secret.txt" })
      const asked = yield* ScriptedPermission.asked
      assert.strictEqual(asked.length, 1)
      const [external, read] = asked[0]!.request.requests
      assert.strictEqual(external!.permission, "external_directory")
      assert.deepStrictEqual(external!.patterns, ["/outside/*"])
      assert.strictEqual(external!.metadata!.filepath, "/outside/secret.txt")
      assert.deepStrictEqual([read!.permission, read!.patterns], ["read", ["/outside/secret.txt"]])
    }).pipe(Effect.provide(memory(
      { ...ws, permission: ScriptedPermission.layer(["reject"]) },
      { files: { "/outside/secret.txt": "s" }, directories: ["/ws"], symlinks: { "/ws/link": "/outside" } }
    ))))
})
