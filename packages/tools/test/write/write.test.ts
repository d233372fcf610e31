/**
 * The write tool: new files need no read, existing ones need a fresh one; the replacement keeps
 * mode, encoding, BOM and CRLF, and reports a diff with +/− counts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import { call, callError, memory, readBytes, readText } from "../file/harness.ts"

const ws = { root: "/ws" }
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ")

describe("write", () => {
  it.effect("creates a new file and its parent directories without a read", () =>
    Effect.gen(function*() {
      const result = yield* call("write", { filePath: "a/b/new.txt", content: "one\ntwo\n" })
      assert.strictEqual(result.output, "Created a/b/new.txt (+2 −0 lines).")
      assert.strictEqual(result.metadata.additions, 2)
      assert.strictEqual(yield* readText("/ws/a/b/new.txt"), "one\ntwo\n")
    }).pipe(Effect.provide(memory(ws, { directories: ["/ws"] }))))

  it.effect("an existing file must be read first, and unchanged since", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      assert.include(yield* callError("write", { filePath: "a.txt", content: "x" }), "You must read file /ws/a.txt")
      yield* call("read", { filePath: "a.txt" })
      yield* fs.writeFileString("/ws/a.txt", "changed by someone\n")
      assert.include(yield* callError("write", { filePath: "a.txt", content: "x" }), "has been modified since it was last read")
      yield* call("read", { filePath: "a.txt" })
      const result = yield* call("write", { filePath: "a.txt", content: "fresh\n" })
      assert.strictEqual(result.output, "Wrote a.txt (+1 −1 lines).")
      assert.include(String(result.metadata.diff), "-changed by someone\n+fresh")
      assert.strictEqual(yield* readText("/ws/a.txt"), "fresh\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/a.txt": "old\n" }))))

  it.effect("keeps the file mode, a CRLF file's endings and a BOM", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      yield* fs.chmod("/ws/run.sh", 0o755)
      yield* call("read", { filePath: "run.sh" })
      const result = yield* call("write", { filePath: "run.sh", content: "echo one\necho two\n" })
      assert.include(result.output, "kept CRLF line endings")
      assert.strictEqual((yield* fs.stat("/ws/run.sh")).mode & 0o777, 0o755)
      assert.strictEqual(hex(yield* readBytes("/ws/run.sh")), hex(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("echo one\r\necho two\r\n")])))
    }).pipe(Effect.provide(memory(ws, { "/ws/run.sh": new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("echo hi\r\n")]) }))))

  it.effect("a Latin-1 file stays Latin-1, or the write is refused", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "l.txt" })
      assert.include(yield* callError("write", { filePath: "l.txt", content: "日本\n" }), "ISO-8859-1")
      yield* call("write", { filePath: "l.txt", content: "naïve\n" })
      assert.strictEqual(hex(yield* readBytes("/ws/l.txt")), "6e 61 ef 76 65 0a")
    }).pipe(Effect.provide(memory(ws, { "/ws/l.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]) }))))

  it.effect("a file over the 10 MB edit limit is replaced, its diff counted in lines instead of shown", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "big.txt" })
      const result = yield* call("write", { filePath: "big.txt", content: "small\n" })
      assert.strictEqual(result.output, "Wrote big.txt (+1 −2 lines).")
      assert.strictEqual(
        result.metadata.diff,
        "big.txt: 2 lines replaced by 1 line (the diff is not shown: the file is over 10 MB)"
      )
      assert.strictEqual(yield* readText("/ws/big.txt"), "small\n")
    }).pipe(Effect.provide(memory(ws, { "/ws/big.txt": "a".repeat(10 * 1024 * 1024) + "\nb\n" }))))

  it.effect("a directory or a binary file is refused", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* callError("write", { filePath: "d", content: "x" }), "Path is a directory, not a file: d")
      assert.strictEqual(yield* callError("write", { filePath: "b.png", content: "x" }), "b.png is a binary file; the write tool only changes text files.")
    }).pipe(Effect.provide(memory(ws, { files: { "/ws/b.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]) }, directories: ["/ws/d"] }))))
})
