import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FileSystem, Layer, Path, Scope, Stream } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import * as SpillStorage from "../src/SpillStorage.ts"
import { assertSameBytes, readSpill, utf8, withTruncate } from "./TruncateHarness.ts"

const Node = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)
const NAME = /^tool_[0-9a-f]{16}_[0-9A-Za-z]{10}$/
const DAY = 24 * 60 * 60 * 1000

/** A file-system SpillStorage in a fresh temp dir (its `spill/` subdir does not exist yet). */
const withSpill = <A, E>(
  body: (
    spill: SpillStorage.SpillStorage["Service"],
    env: { readonly dir: string; readonly fs: FileSystem.FileSystem; readonly path: Path.Path }
  ) => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>,
  options: SpillStorage.Options = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-spill-" }), "spill")
    return yield* Effect.gen(function*() {
      return yield* body(yield* SpillStorage.SpillStorage, { dir, fs, path })
    }).pipe(Effect.provide(SpillStorage.layer({ dir, ...options })))
  }).pipe(Effect.provide(Node))

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

describe("SpillStorage.layer (file system)", () => {
  it.effect("writes strings and bytes as tool_<id> files in a directory it creates", () =>
    withSpill((spill, { dir, fs, path }) =>
      Effect.gen(function*() {
        assert.isFalse(yield* fs.exists(dir))
        const a = yield* spill.write("hello 日本 🙂\n")
        const b = yield* spill.write(new Uint8Array([0xff, 0x00, 0xfe]))
        assert.strictEqual(spill.directory, dir)
        for (const p of [a, b]) {
          assert.strictEqual(path.dirname(p), dir)
          assert.match(path.basename(p), NAME)
          assert.isTrue(spill.owns(p))
        }
        assert.strictEqual(yield* fs.readFileString(a), "hello 日本 🙂\n")
        assert.deepStrictEqual([...(yield* readSpill(spill, b))], [0xff, 0x00, 0xfe])
        assert.deepStrictEqual((yield* spill.list).map((e) => [e.path, e.size]), [[a, 18], [b, 3]])
        assert.isFalse(spill.owns(path.join(dir, "notes.txt")))
        assert.isFalse(spill.owns(path.join(path.dirname(dir), path.basename(a))))
      })))

  it.effect("names are unique and sort by creation", () =>
    withSpill((spill) =>
      Effect.gen(function*() {
        const written: Array<string> = []
        for (let i = 0; i < 40; i++) written.push(yield* spill.write(`${i}`))
        assert.strictEqual(new Set(written).size, 40)
        assert.deepStrictEqual((yield* spill.list).map((e) => e.path), written)
      })))

  it.effect("a writer is invisible until commit; closing its scope without commit leaves nothing", () =>
    withSpill((spill, { dir, fs }) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const w = yield* spill.writer.pipe(Scope.provide(scope))
        yield* w.write(utf8("partial output"))
        const names = yield* fs.readDirectory(dir)
        assert.strictEqual(names.length, 1)
        assert.match(names[0]!, /^\.tool_.*\.tmp$/)
        assert.deepStrictEqual(yield* spill.list, [])
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual(yield* fs.readDirectory(dir), [])
      })))

  it.effect("commit renames into place once; later writes fail", () =>
    withSpill((spill, { dir, fs }) =>
      Effect.gen(function*() {
        const p = yield* Effect.scoped(Effect.gen(function*() {
          const w = yield* spill.writer
          yield* w.write(utf8("one "))
          yield* w.write(utf8("two"))
          const p = yield* w.commit
          assert.strictEqual(yield* w.commit, p)
          const error = yield* Effect.flip(w.write(utf8("three")))
          assert.include(error.message, "already committed")
          return p
        }))
        assert.strictEqual(yield* fs.readFileString(p), "one two")
        assert.deepStrictEqual(yield* fs.readDirectory(dir), [p.slice(dir.length + 1)])
      })))

  it.effect("past maxBytes: a trailer, and never half a character", () =>
    withSpill((spill, { fs }) =>
      Effect.gen(function*() {
        assert.strictEqual(
          yield* fs.readFileString(yield* spill.write("aaaaaaaa日本")),
          "aaaaaaaa\n[spill truncated at 8 bytes]\n"
        )
        // The cap falls inside 日, which is split across two chunks.
        const bytes = utf8("aaaaaaaaa日zz")
        const p = yield* Effect.scoped(Effect.gen(function*() {
          const w = yield* spill.writer
          yield* w.write(bytes.slice(0, 10))
          yield* w.write(bytes.slice(10))
          return yield* w.commit
        }))
        assert.strictEqual(yield* fs.readFileString(p), "aaaaaaaaa\n[spill truncated at 9 bytes]\n")
        const emoji = yield* spill.write("abcdefg🙂")
        assert.strictEqual(text(yield* fs.readFile(emoji)), "abcdefg\n[spill truncated at 7 bytes]\n")
        const exact = yield* spill.write("0123456789")
        assert.strictEqual(yield* fs.readFileString(exact), "0123456789")
      }), { maxBytes: 10 }))

  it.effect("a large string goes through the chunked writer intact, a surrogate pair on a slice edge included", () =>
    withSpill((spill, { fs }) =>
      Effect.gen(function*() {
        const big = "a".repeat((1 << 20) - 1) + "🙂" + "b".repeat(9 << 20) + "日本"
        const p = yield* spill.write(big)
        assertSameBytes(yield* fs.readFile(p), utf8(big))
      })))

  it.effect("reading a spill that is gone says it expired; a foreign path is refused", () =>
    withSpill((spill, { fs, path, dir }) =>
      Effect.gen(function*() {
        const p = yield* spill.write("x")
        yield* fs.remove(p)
        const gone = yield* Effect.flip(Stream.runDrain(spill.read(p)))
        assert.include(gone.message, "has expired or was cleaned up")
        const foreign = yield* Effect.flip(Stream.runDrain(spill.read(path.join(dir, "..", "secret.txt"))))
        assert.include(foreign.message, "is not a spill of this store")
      })))

  it.effect("cleanup of a directory that does not exist yet deletes nothing", () =>
    withSpill((spill) => Effect.map(spill.cleanup, (n) => assert.strictEqual(n, 0))))

  it.live("cleanup deletes only tool_* files past the retention (by mtime) and stale temps", () =>
    withSpill((spill, { dir, fs, path }) =>
      Effect.gen(function*() {
        const now = Date.now()
        const age = (p: string, ms: number) => fs.utimes(p, new Date(now - ms), new Date(now - ms))
        const old = yield* spill.write("old")
        const fresh = yield* spill.write("fresh")
        const almost = yield* spill.write("six days")
        yield* age(old, 8 * DAY)
        yield* age(almost, 6 * DAY)
        const notes = path.join(dir, "notes.txt")
        const spillDir = path.join(dir, "tool_not_a_file")
        const oldTemp = path.join(dir, ".tool_dead.tmp")
        const newTemp = path.join(dir, ".tool_live.tmp")
        const outside = path.join(path.dirname(dir), "tool_outside")
        for (const p of [notes, oldTemp, newTemp, outside]) yield* fs.writeFileString(p, "x")
        yield* fs.makeDirectory(spillDir)
        for (const p of [notes, spillDir, outside]) yield* age(p, 30 * DAY)
        yield* age(oldTemp, 2 * 60 * 60 * 1000)

        assert.strictEqual(yield* spill.cleanup, 1)
        const left = new Set(yield* fs.readDirectory(dir))
        assert.isFalse(left.has(path.basename(old)))
        assert.isFalse(left.has(".tool_dead.tmp"))
        for (const p of [fresh, almost, notes, spillDir, newTemp]) assert.isTrue(left.has(path.basename(p)), p)
        assert.isTrue(yield* fs.exists(outside))
      })))

  it.effect("Truncate over the real file system: the spill file is byte-identical (string and stream)", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-truncate-" })
      const input = "\uFEFFstart\r\n" + "日本🙂 log line\n".repeat(20_000) + "end without newline"
      yield* withTruncate({}, ({ truncate }) =>
        Effect.gen(function*() {
          const a = yield* truncate.output(input, { direction: "head+tail" })
          const b = yield* truncate.stream(Stream.fromIterable(splitBytes(utf8(input), 65_536)), { direction: "tail" })
          for (const r of [a, b]) {
            assert.isTrue(r.truncated)
            assert.isTrue(r.outputPath!.startsWith(dir))
            assertSameBytes(yield* fs.readFile(r.outputPath!), utf8(input))
          }
          assert.isTrue(b.content.endsWith("日本🙂 log line\nend without newline"))
        }), SpillStorage.layer({ dir }).pipe(Layer.provide(Node)))
    }).pipe(Effect.provide(Node)))
})

const splitBytes = (bytes: Uint8Array, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size))
