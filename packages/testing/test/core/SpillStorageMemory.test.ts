import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as PlatformError from "effect/PlatformError"
import { SpillStorage } from "@agent-tools/core"
import { MemoryFileSystem, SpillStorageContract } from "@agent-tools/testing"

const readSpill = SpillStorageContract.readSpill
const utf8 = (s: string) => new TextEncoder().encode(s)

const T0 = Date.UTC(2026, 0, 1)

/** Lets forked fibers (the first-use cleanup) run. */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

const withMemory = <A, E>(body: (spill: SpillStorage.SpillStorage["Service"]) => Effect.Effect<A, E>, options: SpillStorage.Options = {}) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    return yield* Effect.gen(function*() {
      return yield* body(yield* SpillStorage.SpillStorage)
    }).pipe(Effect.provide(SpillStorage.layerMemory(options)))
  })

describe("SpillStorage.layerMemory", () => {
  it.effect("stores spills under memory://spill/tool_… and reads them back", () =>
    withMemory((spill) =>
      Effect.gen(function*() {
        const p = yield* spill.write("日本 🙂")
        assert.match(p, /^memory:\/\/spill\/tool_[0-9a-f]{16}_[0-9A-Za-z]{10}$/)
        assert.isTrue(spill.owns(p))
        assert.isFalse(spill.owns("/tmp/tool_x"))
        assert.strictEqual(spill.directory, undefined)
        assert.deepStrictEqual(yield* readSpill(spill, p), utf8("日本 🙂"))
        assert.deepStrictEqual(yield* spill.list, [{ path: p, size: 11, mtime: T0 }])
        const gone = yield* Effect.flip(Stream.runDrain(spill.read(p.replace(/_[^_]+$/, "_missing000"))))
        assert.include(gone.message, "expired or was cleaned up")
      })))

  it.effect("background cleanup deletes spills older than 7 days by Clock time", () =>
    withMemory((spill) =>
      Effect.gen(function*() {
        const old = yield* spill.write("old output")
        yield* TestClock.adjust("3 days")
        const recent = yield* spill.write("recent output")
        yield* TestClock.adjust("5 days") // the hourly fiber has run by now
        assert.deepStrictEqual((yield* spill.list).map((e) => e.path), [recent])
        assert.notStrictEqual(old, recent)
      })))

  it.effect("with a workspace: spills under memory://spill/<workspace directory name>/, owned by that store only", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const store = (workspace: string) =>
        SpillStorage.SpillStorage.use((s) => Effect.map(s.write("out"), (p) => ({ p, owns: s.owns })))
          .pipe(Effect.provide(SpillStorage.layerMemory({ workspace })))
      const a = yield* store("/work/a")
      const b = yield* store("/work/b")
      assert.strictEqual(a.p.slice(0, a.p.lastIndexOf("/") + 1), `memory://spill/${yield* SpillStorage.workspaceDirectoryName("/work/a")}/`)
      assert.match(a.p, /^memory:\/\/spill\/a-[0-9a-f]{16}\/tool_[0-9a-f]{16}_[0-9A-Za-z]{10}$/)
      assert.isTrue(a.owns(a.p))
      assert.isFalse(a.owns(b.p))
      assert.isFalse(a.owns(`${a.p}/x`))
    }))

  it.effect("a total cap: committing deletes the oldest spills until the new one fits", () =>
    withMemory((spill) =>
      Effect.gen(function*() {
        const a = yield* spill.write("a".repeat(40))
        yield* TestClock.adjust("1 second")
        const b = yield* spill.write("b".repeat(40))
        yield* TestClock.adjust("1 second")
        const c = yield* spill.write("c".repeat(40))
        assert.deepStrictEqual((yield* spill.list).map((e) => e.path), [b, c])
        const d = yield* spill.write("d".repeat(90))
        assert.deepStrictEqual((yield* spill.list).map((e) => e.path), [d])
        assert.notStrictEqual(a, d)
        // one spill keeps at most the total cap of output
        const e = yield* spill.write("e".repeat(150))
        assert.deepStrictEqual((yield* spill.list).map((x) => x.path), [e])
        assert.match(new TextDecoder().decode(yield* readSpill(spill, e)), /^e{100}\n\[spill truncated at 100 bytes\]/)
      }), { maxTotalBytes: 100 }))

  it.effect("retention is configurable", () =>
    withMemory((spill) =>
      Effect.gen(function*() {
        yield* spill.write("x")
        yield* TestClock.adjust("25 hours")
        assert.deepStrictEqual(yield* spill.list, [])
      }), { retentionDays: 1 }))
})

/** The file-system layer over MemoryFileSystem, built after the clock is set so mtimes follow TestClock. */
const onMemoryFs = (fs: FileSystem.FileSystem, options: SpillStorage.Options = {}) =>
  SpillStorage.layer({ dir: "/spill", ...options }).pipe(
    Layer.provideMerge(Layer.mergeAll(Layer.succeed(FileSystem.FileSystem, fs), Path.layer))
  )

describe("SpillStorage.layer on MemoryFileSystem", () => {
  it.effect("background cleanup: old spills deleted, fresh ones and other files untouched", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const fs = yield* MemoryFileSystem.make({
        files: { "/spill/notes.txt": "keep", "/elsewhere/tool_old": "keep" },
        directories: ["/spill/tool_dir"]
      })
      yield* Effect.gen(function*() {
        const spill = yield* SpillStorage.SpillStorage
        const old = yield* spill.write("old output")
        yield* TestClock.adjust("3 days")
        const recent = yield* spill.write("recent output")
        yield* TestClock.adjust("5 days")
        assert.isFalse(yield* fs.exists(old))
        assert.isTrue(yield* fs.exists(recent))
        assert.deepStrictEqual((yield* fs.readDirectory("/spill")).sort(), ["notes.txt", recent.slice(7), "tool_dir"].sort())
        assert.isTrue(yield* fs.exists("/elsewhere/tool_old"))
      }).pipe(Effect.provide(onMemoryFs(fs)))
    }))

  it.effect("the first use triggers a cleanup without waiting for the hourly run", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const fs = yield* MemoryFileSystem.make({
        "/spill/tool_0000000000000000_lastWeek00": "old",
        "/spill/.tool_0000000000000000_diedWrite0.tmp": "died mid-write"
      })
      yield* TestClock.adjust("8 days")
      yield* Effect.gen(function*() {
        const spill = yield* SpillStorage.SpillStorage
        assert.isTrue(yield* fs.exists("/spill/tool_0000000000000000_lastWeek00")) // lazy: nothing at build
        const p = yield* spill.write("new")
        yield* settle
        assert.deepStrictEqual(yield* fs.readDirectory("/spill"), [p.slice(7)])
      }).pipe(Effect.provide(onMemoryFs(fs)))
    }))

  it.effect("a failing cleanup is swallowed: spills keep working", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const base = yield* MemoryFileSystem.make()
      const broken: FileSystem.FileSystem = {
        ...base,
        readDirectory: (p) =>
          Effect.fail(PlatformError.systemError({ _tag: "PermissionDenied", module: "FileSystem", method: "readDirectory", pathOrDescriptor: p }))
      }
      yield* Effect.gen(function*() {
        const spill = yield* SpillStorage.SpillStorage
        yield* spill.write("one")
        yield* settle
        yield* TestClock.adjust("3 hours")
        const error = yield* Effect.flip(spill.cleanup)
        assert.strictEqual(error._tag, "SpillError")
        assert.isTrue(yield* base.exists(yield* spill.write("two")))
      }).pipe(Effect.provide(onMemoryFs(broken)))
    }))

  it.effect("with a workspace: files 0600 in its own 0700 subdirectory", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const fs = yield* MemoryFileSystem.make({ directories: ["/ws"] })
      yield* Effect.gen(function*() {
        const spill = yield* SpillStorage.SpillStorage
        const p = yield* spill.write("x")
        assert.strictEqual(spill.directory, `/spill/${yield* SpillStorage.workspaceDirectoryName("/ws")}`)
        assert.strictEqual(p.slice(0, p.lastIndexOf("/")), spill.directory)
        const mode = (q: string) => Effect.map(fs.stat(q), (i) => i.mode & 0o7777)
        assert.deepStrictEqual([yield* mode("/spill"), yield* mode(spill.directory!), yield* mode(p)], [0o700, 0o700, 0o600])
      }).pipe(Effect.provide(onMemoryFs(fs, { workspace: "/ws" })))
    }))

  it.effect("an uncommitted writer leaves no file, temp included", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const fs = yield* MemoryFileSystem.make()
      yield* Effect.gen(function*() {
        const spill = yield* SpillStorage.SpillStorage
        yield* Effect.scoped(Effect.flatMap(spill.writer, (w) => w.write(utf8("abandoned"))))
        assert.deepStrictEqual(yield* fs.readDirectory("/spill"), [])
      }).pipe(Effect.provide(onMemoryFs(fs)))
    }))
})
