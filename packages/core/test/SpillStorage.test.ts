import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FileSystem, Layer, Path, Scope, Stream } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import * as SpillStorage from "../src/SpillStorage.ts"
import { assertSameBytes, readSpill, utf8, withTruncate } from "./TruncateHarness.ts"

const Node = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)
const NAME = /^tool_[0-9a-f]{16}_[0-9A-Za-z]{10}$/
const DAY = 24 * 60 * 60 * 1000
/** A valid spill id: 16 hex digits, `_`, 10 base62 characters. */
const ID = "0123456789abcdef_AbCdEfGhIj"

const modeOf = (fs: FileSystem.FileSystem, p: string) => Effect.map(fs.stat(p), (info) => info.mode & 0o7777)

/** A file-system SpillStorage in a fresh temp dir (its `spill/` subdir does not exist yet). */
const withSpill = <A, E>(
  body: (
    spill: SpillStorage.SpillStorage["Service"],
    env: { readonly dir: string; readonly fs: FileSystem.FileSystem; readonly path: Path.Path }
  ) => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>,
  options: SpillStorage.Options & { readonly direct?: boolean } = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-spill-" }), "spill")
    return yield* Effect.gen(function*() {
      return yield* body(yield* SpillStorage.SpillStorage, { dir, fs, path })
    }).pipe(Effect.provide(SpillStorage.layer({ dir, ...options })))
  }).pipe(Effect.provide(Node))


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

  it.effect("a string of many slices is written whole and in order, pairs across slice edges kept", () =>
    withSpill((spill, { fs }) =>
      Effect.gen(function*() {
        // Several slices of 1 Mi units, each line ending differently, a surrogate pair on every edge.
        const slice = 1 << 20
        const parts: Array<string> = []
        for (let i = 0; i < 5; i++) parts.push(`${i}`.repeat(slice - 1 - (i === 0 ? 0 : 1)), "🙂", `é${i}\n`)
        const text = parts.join("")
        for (const content of [text, text + "x"]) {
          const written = yield* spill.write(content)
          const back = yield* fs.readFile(written)
          assertSameBytes(back, utf8(content))
          if (spill.writeInBackground !== undefined) {
            const later = yield* spill.writeInBackground(content)
            yield* spill.ready!(later)
            assertSameBytes(yield* fs.readFile(later), utf8(content))
          }
        }
      }), { maxBytes: 64 * 1024 * 1024 }))

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
        const spillDir = path.join(dir, `tool_${ID}`)
        const oldTemp = path.join(dir, `.tool_${ID}.tmp`)
        const newTemp = path.join(dir, `.tool_${ID.replace("a", "b")}.tmp`)
        const outside = path.join(path.dirname(dir), `tool_${ID}`)
        // A user's files that merely look like spills: never deleted, however old.
        const lookalikes = [`tool_${ID}.txt`, `tool_${ID}_`, `tool_${ID.toUpperCase()}`, "tool_", ".tool_dead.tmp", `x.tool_${ID}`]
          .map((name) => path.join(dir, name))
        for (const p of [notes, oldTemp, newTemp, outside, ...lookalikes]) yield* fs.writeFileString(p, "x")
        yield* fs.makeDirectory(spillDir)
        for (const p of [notes, spillDir, outside, ...lookalikes]) yield* age(p, 30 * DAY)
        yield* age(oldTemp, 2 * 60 * 60 * 1000)

        assert.strictEqual(yield* spill.cleanup, 1)
        const left = new Set(yield* fs.readDirectory(dir))
        assert.isFalse(left.has(path.basename(old)))
        assert.isFalse(left.has(path.basename(oldTemp)))
        for (const p of [fresh, almost, notes, spillDir, newTemp, ...lookalikes]) assert.isTrue(left.has(path.basename(p)), p)
        assert.isTrue(yield* fs.exists(outside))
        assert.deepStrictEqual((yield* spill.list).map((e) => e.path), [fresh, almost].sort())
      })))

  it.live("a total cap: the oldest spills are deleted to make room; one still being written is never touched", () =>
    withSpill((spill, { dir, fs, path }) =>
      Effect.gen(function*() {
        assert.strictEqual(spill.maxBytes, 100, "one spill is at most the total cap")
        const now = Date.now()
        const age = (p: string, ms: number) => fs.utimes(p, new Date(now - ms), new Date(now - ms))
        const a = yield* spill.write("a".repeat(40))
        const b = yield* spill.write("b".repeat(40))
        yield* age(a, 3000)
        yield* age(b, 2000)
        const c = yield* spill.write("c".repeat(40))
        assert.deepStrictEqual((yield* spill.list).map((e) => e.path), [b, c])
        yield* age(c, 1000)
        yield* Effect.scoped(Effect.gen(function*() {
          // A spill being written (a temp) while others commit: not counted, never deleted.
          const open = yield* spill.writer
          yield* open.write(utf8("w".repeat(30)))
          const d = yield* spill.write("d".repeat(90))
          assert.deepStrictEqual((yield* spill.list).map((e) => e.path), [d])
          yield* age(d, 500)
          const w = yield* open.commit
          assert.strictEqual(yield* fs.readFileString(w), "w".repeat(30))
          // 90 + 30 is over 100: the older d makes room for the spill being committed
          assert.deepStrictEqual((yield* spill.list).map((e) => [e.path, e.size]), [[w, 30]])
        }))
        // A process writing straight into its spill: its size counts at commit.
        const e = yield* Effect.scoped(Effect.gen(function*() {
          const direct = yield* spill.direct!
          yield* direct.append(utf8("e".repeat(80)))
          return yield* direct.commit()
        }))
        assert.deepStrictEqual((yield* spill.list).map((x) => [x.path, x.size]), [[e, 80]])
        // Nothing but spills is ever deleted to make room.
        const notes = path.join(dir, "notes.txt")
        yield* fs.writeFileString(notes, "n".repeat(500))
        yield* spill.write("f".repeat(60))
        assert.isTrue(yield* fs.exists(notes))
      }), { maxTotalBytes: 100, direct: true }))

  it.effect("spill files are 0600 in a directory made 0700; an existing directory open to others is tightened", () =>
    withSpill((spill, { dir, fs, path }) =>
      Effect.gen(function*() {
        const small = yield* spill.write("small")
        const streamed = yield* Effect.scoped(Effect.gen(function*() {
          const w = yield* spill.writer
          yield* w.write(utf8("streamed"))
          return yield* w.commit
        }))
        assert.strictEqual(yield* modeOf(fs, dir), 0o700)
        for (const p of [small, streamed]) assert.strictEqual(yield* modeOf(fs, p), 0o600, p)

        const other = path.join(path.dirname(dir), "other")
        yield* fs.makeDirectory(other)
        yield* fs.chmod(other, 0o755)
        yield* SpillStorage.SpillStorage.use((s) => s.write("x")).pipe(Effect.provide(SpillStorage.layer({ dir: other })))
        assert.strictEqual(yield* modeOf(fs, other), 0o700)
      })))

  it.effect("with a workspace: one private subdirectory per real root; the root dir is created 0700", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const tmp = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-spill-" }))
      const root = path.join(tmp, "spill")
      const a = path.join(tmp, "a", "project")
      const b = path.join(tmp, "b", "project")
      for (const d of [a, b]) yield* fs.makeDirectory(d, { recursive: true })
      yield* fs.symlink(a, path.join(tmp, "link"))
      const store = (workspace: string) =>
        SpillStorage.SpillStorage.use((s) => Effect.map(s.write("out"), (p) => ({ p, directory: s.directory, owns: s.owns })))
          .pipe(Effect.provide(SpillStorage.layer({ dir: root, workspace })))
      const inA = yield* store(a)
      const inB = yield* store(b)
      const viaLink = yield* store(path.join(tmp, "link"))

      assert.strictEqual(inA.directory, path.join(root, yield* SpillStorage.workspaceDirectoryName(a)))
      assert.match(path.basename(inA.directory!), /^project-[0-9a-f]{16}$/)
      assert.notStrictEqual(inA.directory, inB.directory)
      assert.strictEqual(viaLink.directory, inA.directory)
      assert.strictEqual(path.dirname(inA.p), inA.directory)
      assert.isFalse(inA.owns(inB.p))
      assert.isTrue(inA.owns(viaLink.p))
      for (const d of [root, inA.directory!, inB.directory!]) assert.strictEqual(yield* modeOf(fs, d), 0o700, d)
    }).pipe(Effect.provide(Node)))

  it.effect("workspace directory names: the base name made safe, the same root always the same name", () =>
    Effect.gen(function*() {
      const name = SpillStorage.workspaceDirectoryName
      assert.strictEqual(yield* name("/home/u/my app"), yield* name("/home/u/my app"))
      assert.match(yield* name("/home/u/my app"), /^my_app-[0-9a-f]{16}$/)
      assert.match(yield* name("/"), /^root-[0-9a-f]{16}$/)
      assert.match(yield* name("/srv/..hidden"), /^hidden-[0-9a-f]{16}$/)
      assert.match(yield* name(`/x/${"long".repeat(20)}`), new RegExp(`^${"long".repeat(8)}-[0-9a-f]{16}$`))
      assert.notStrictEqual(yield* name("/a/project"), yield* name("/b/project"))
    }))

  it.effect("an existing workspace directory is tightened; a symlink in its place is refused", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const tmp = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-spill-" }))
      const root = path.join(tmp, "spill")
      const ws = path.join(tmp, "ws")
      yield* fs.makeDirectory(ws)
      const own = path.join(root, yield* SpillStorage.workspaceDirectoryName(ws))
      yield* fs.makeDirectory(own, { recursive: true })
      yield* fs.chmod(root, 0o755)
      yield* fs.chmod(own, 0o777)
      const write = SpillStorage.SpillStorage.use((s) => s.write("x")).pipe(
        Effect.provide(SpillStorage.layer({ dir: root, workspace: ws }))
      )
      yield* write
      assert.strictEqual(yield* modeOf(fs, own), 0o700)
      assert.strictEqual(yield* modeOf(fs, root), 0o700)

      yield* fs.remove(own, { recursive: true })
      const elsewhere = path.join(tmp, "elsewhere")
      yield* fs.makeDirectory(elsewhere)
      yield* fs.symlink(elsewhere, own)
      const refused = yield* Effect.flip(write)
      assert.strictEqual(refused.message, `the spill directory ${own} is not a directory of its own (SymbolicLink)`)
      assert.deepStrictEqual(yield* fs.readDirectory(elsewhere), [])
    }).pipe(Effect.provide(Node)))

  it.effect("a shared sticky root such as /tmp keeps its mode; the workspace directory is still private", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-spill-" }))
      yield* fs.chmod(root, 0o1777)
      const p = yield* SpillStorage.SpillStorage.use((s) => s.write("x")).pipe(
        Effect.provide(SpillStorage.layer({ dir: root, workspace: root }))
      )
      assert.strictEqual(yield* modeOf(fs, root), 0o1777)
      assert.strictEqual(yield* modeOf(fs, path.dirname(p)), 0o700)
    }).pipe(Effect.provide(Node)))

  it.live("with a workspace, cleanup also retires spills left directly in the root, and nothing else there", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-spill-" }))
      const now = Date.now()
      const legacy = path.join(root, `tool_${ID}`)
      const recent = path.join(root, `tool_${ID.replace("a", "c")}`)
      const foreign = path.join(root, "tool_notes")
      for (const p of [legacy, recent, foreign]) yield* fs.writeFileString(p, "x")
      for (const p of [legacy, foreign]) yield* fs.utimes(p, new Date(now - 30 * DAY), new Date(now - 30 * DAY))
      const { deleted, listed } = yield* SpillStorage.SpillStorage.use((s) =>
        Effect.map(Effect.all([s.cleanup, s.list]), ([deleted, listed]) => ({ deleted, listed }))
      ).pipe(Effect.provide(SpillStorage.layer({ dir: root, workspace: root })))
      assert.strictEqual(deleted, 1)
      assert.deepStrictEqual(listed, [])
      assert.isFalse(yield* fs.exists(legacy))
      assert.isTrue(yield* fs.exists(recent))
      assert.isTrue(yield* fs.exists(foreign))
    }).pipe(Effect.provide(Node)))

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
