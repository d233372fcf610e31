import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, FileSystem, Layer, Path, Ref } from "effect"
import { TestClock } from "effect/testing"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { MemoryFileSystem } from "@agent-tools/testing"
import { FileTime } from "@agent-tools/core"

const T0 = Date.UTC(2026, 0, 1)
const enc = (s: string) => new TextEncoder().encode(s)

const memory = (files: Record<string, string> = { "/ws/a.txt": "line one\nline two\n" }) =>
  Layer.mergeAll(MemoryFileSystem.layer(files), Path.layer)

// Built inside each test, after setTime, so MemoryFileSystem mtimes follow this test's TestClock.
const withFileTime = <A, E>(
  body: (ft: FileTime.FileTime["Service"], fs: FileSystem.FileSystem) => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>,
  options: { files?: Record<string, string>; disabled?: boolean } = {}
) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    return yield* Effect.gen(function*() {
      return yield* body(yield* FileTime.FileTime, yield* FileSystem.FileSystem)
    }).pipe(
      Effect.provide(FileTime.layer({ disabled: options.disabled ?? false }).pipe(Layer.provideMerge(memory(options.files))))
    )
  })

describe("FileTime", () => {
  it.effect("assert before any read fails with FileNotReadError", () =>
    withFileTime((ft) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(ft.assert("s1", "/ws/a.txt"))
        assert.strictEqual(error._tag, "FileNotReadError")
        assert.strictEqual(error.message, "You must read file /ws/a.txt before overwriting it. Use the read tool first.")
      })))

  it.effect("read stamps hash, size, lines, mtime and readAt (file read when no content is given)", () =>
    withFileTime((ft) =>
      Effect.gen(function*() {
        yield* TestClock.adjust("5 seconds")
        yield* ft.read("s1", "/ws/sub/../a.txt") // the key is the resolved path
        const stamp = yield* ft.get("s1", "/ws/a.txt")
        assert.deepStrictEqual(stamp, {
          readAt: T0 + 5000,
          hash: FileTime.hash(enc("line one\nline two\n")),
          size: 18,
          mtime: T0,
          lines: 2
        })
        assert.isUndefined(yield* ft.get("s2", "/ws/a.txt"))
      })))

  it.effect("a touch with identical bytes is not a change", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.read("s1", "/ws/a.txt")
        yield* TestClock.adjust("1 hour")
        yield* fs.utimes("/ws/a.txt", new Date(T0 + 3_600_000), new Date(T0 + 3_600_000))
        yield* fs.writeFileString("/ws/a.txt", "line one\nline two\n") // formatter rewrote the same bytes
        yield* ft.assert("s1", "/ws/a.txt")
      })))

  it.effect("an external append fails with FileModifiedError describing the change", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.read("s1", "/ws/a.txt")
        yield* TestClock.adjust("1 minute")
        yield* fs.writeFileString("/ws/a.txt", "three\n", { flag: "a" })
        const error = yield* Effect.flip(ft.assert("s1", "/ws/a.txt"))
        assert.strictEqual(error._tag, "FileModifiedError")
        assert.strictEqual(
          error.message,
          "File /ws/a.txt has been modified since it was last read: size 18 → 24 bytes, 2 → 3 lines, " +
            "modified 2026-01-01T00:01:00.000Z (read at 2026-01-01T00:00:00.000Z)\nRead the file again before modifying it."
        )
      })))

  it.effect("same size, same mtime, different bytes is detected", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.read("s1", "/ws/a.txt")
        yield* fs.writeFileString("/ws/a.txt", "line ONE\nline two\n") // same ms: the mtime does not move
        const error = yield* Effect.flip(ft.assert("s1", "/ws/a.txt"))
        assert.strictEqual(
          error._tag === "FileModifiedError" ? error.details : error._tag,
          "same size (18 bytes) and line count (2) but different content, mtime unchanged 2026-01-01T00:00:00.000Z " +
            "(read at 2026-01-01T00:00:00.000Z)"
        )
      })))

  it.effect("recordWrite makes our own write not count as a change", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.read("s1", "/ws/a.txt")
        yield* TestClock.adjust("1 second")
        const next = enc("rewritten\n")
        yield* fs.writeFile("/ws/a.txt", next)
        yield* ft.recordWrite("s1", "/ws/a.txt", next)
        yield* ft.assert("s1", "/ws/a.txt")
        assert.strictEqual((yield* ft.get("s1", "/ws/a.txt"))?.lines, 1)
      })))

  it.effect("our own writes of two files: each later check passes on the written bytes and fails on others", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        const a = enc("a written\n")
        const b = enc("b written\nsecond\n")
        yield* fs.writeFile("/ws/a.txt", a)
        yield* ft.recordWrite("s1", "/ws/a.txt", a)
        yield* fs.writeFile("/ws/b.txt", b)
        yield* ft.recordWrite("s1", "/ws/b.txt", b)
        // The bytes as a later transaction reads them: a copy, equal byte for byte.
        yield* ft.assert("s1", "/ws/a.txt", a.slice())
        yield* ft.assert("s1", "/ws/b.txt", b.slice())
        assert.strictEqual((yield* ft.get("s1", "/ws/a.txt"))?.lines, 1)
        assert.strictEqual((yield* ft.get("s1", "/ws/b.txt"))?.lines, 2)
        const other = enc("b written\nsecond!\n")
        const error = yield* Effect.flip(ft.assert("s1", "/ws/b.txt", other))
        assert.strictEqual(
          error._tag === "FileModifiedError" ? error.details : error._tag,
          "size 17 → 18 bytes, 2 → 2 lines, modified 2026-01-01T00:00:00.000Z (read at 2026-01-01T00:00:00.000Z)"
        )
        assert.strictEqual((yield* Effect.flip(ft.assert("s1", "/ws/a.txt", enc("a written!\n"))))._tag, "FileModifiedError")
      }), { files: { "/ws/a.txt": "a\n", "/ws/b.txt": "b\n" } }))

  it.effect("a write's bytes are handed back once, when nothing holds them: replaced, read over, or stamped by get", () =>
    withFileTime((ft) =>
      Effect.gen(function*() {
        const released: Array<string> = []
        const release = (bytes: Uint8Array) => void released.push(new TextDecoder().decode(bytes))
        yield* ft.recordWrite("s1", "/ws/a.txt", enc("a1\n"), release)
        yield* ft.recordWrite("s1", "/ws/b.txt", enc("b1\n"), release)
        yield* ft.recordWrite("s2", "/ws/a.txt", enc("a1 in s2\n"), release)
        assert.deepStrictEqual(released, []) // all kept: several files, several sessions
        yield* ft.assert("s1", "/ws/a.txt", enc("a1\n"))
        yield* ft.recordWrite("s1", "/ws/a.txt", enc("a2\n"), release)
        assert.deepStrictEqual(released, ["a1\n"])
        yield* ft.read("s1", "/ws/b.txt", enc("b from a read\n"))
        assert.deepStrictEqual(released, ["a1\n", "b1\n"])
        assert.strictEqual((yield* ft.get("s2", "/ws/a.txt"))?.lines, 1)
        assert.deepStrictEqual(released, ["a1\n", "b1\n", "a1 in s2\n"])
        yield* ft.assert("s1", "/ws/a.txt", enc("a2\n"))
        yield* ft.assert("s2", "/ws/a.txt", enc("a1 in s2\n"))
        assert.strictEqual(released.length, 3)
      }), { files: { "/ws/a.txt": "a\n", "/ws/b.txt": "b\n" } }))

  it.effect("past the byte budget the oldest writes are stamped and handed back; checks still compare their content", () =>
    withFileTime((ft) =>
      Effect.gen(function*() {
        const released: Array<string> = []
        const big = (name: string) => {
          const bytes = new Uint8Array(FileTime.MAX_HELD_BYTES / 2 - 1024)
          bytes.set(enc(name))
          return bytes
        }
        const files = ["/ws/a.txt", "/ws/b.txt", "/ws/c.txt"]
        for (const file of files) yield* ft.recordWrite("s1", file, big(file), () => void released.push(file))
        assert.deepStrictEqual(released, ["/ws/a.txt"])
        for (const file of files) yield* ft.assert("s1", file, big(file))
        assert.strictEqual((yield* Effect.flip(ft.assert("s1", "/ws/a.txt", big("/ws/b.txt"))))._tag, "FileModifiedError")
        yield* ft.recordWrite("s1", "/ws/d.txt", enc("small\n"), () => void released.push("/ws/d.txt"))
        assert.deepStrictEqual(released, ["/ws/a.txt"])
      }), { files: { "/ws/a.txt": "a\n", "/ws/b.txt": "b\n", "/ws/c.txt": "c\n", "/ws/d.txt": "d\n" } }))

  it.effect("read with the tool's bytes hashes those bytes", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.read("s1", "/ws/a.txt", enc("line one\nline two\n"))
        yield* ft.assert("s1", "/ws/a.txt")
        yield* fs.writeFileString("/ws/a.txt", "x")
        assert.strictEqual((yield* Effect.flip(ft.assert("s1", "/ws/a.txt")))._tag, "FileModifiedError")
      })))

  it.effect("a file deleted since the read is reported as deleted", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.read("s1", "/ws/a.txt")
        yield* fs.remove("/ws/a.txt")
        const error = yield* Effect.flip(ft.assert("s1", "/ws/a.txt"))
        assert.strictEqual(
          error.message,
          "File /ws/a.txt has been modified since it was last read: the file was deleted (it had 18 bytes, 2 lines " +
            "when read at 2026-01-01T00:00:00.000Z)\nRead the file again before modifying it."
        )
      })))

  it.effect("sessions are independent", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.read("s1", "/ws/a.txt")
        assert.strictEqual((yield* Effect.flip(ft.assert("s2", "/ws/a.txt")))._tag, "FileNotReadError")
        yield* fs.writeFileString("/ws/a.txt", "changed\n")
        yield* ft.read("s2", "/ws/a.txt")
        yield* ft.assert("s2", "/ws/a.txt")
        assert.strictEqual((yield* Effect.flip(ft.assert("s1", "/ws/a.txt")))._tag, "FileModifiedError")
      })))

  it.effect("disabled: assert always succeeds", () =>
    withFileTime((ft, fs) =>
      Effect.gen(function*() {
        yield* ft.assert("s1", "/ws/never-read.txt")
        yield* ft.read("s1", "/ws/a.txt")
        yield* fs.writeFileString("/ws/a.txt", "changed\n")
        yield* ft.assert("s1", "/ws/a.txt")
      }), { disabled: true }))
})

describe("FileTime.withLock", () => {
  const built = FileTime.make().pipe(Effect.provide(memory()))

  it.effect("serialises one path, runs different paths concurrently, and drops idle locks", () =>
    Effect.gen(function*() {
      const { service: ft, lockCount } = yield* built
      const log = yield* Ref.make<ReadonlyArray<string>>([])
      const job = (path: string, name: string) =>
        ft.withLock(
          path,
          Effect.gen(function*() {
            yield* Ref.update(log, (l) => [...l, `${name} start`])
            yield* Effect.sleep("1 second")
            yield* Ref.update(log, (l) => [...l, `${name} end`])
          })
        )
      const fibers = yield* Effect.forEach(
        [["/ws/a.txt", "a1"], ["/ws/./a.txt", "a2"], ["/ws/b.txt", "b"]] as const,
        ([p, n]) => Effect.forkChild(job(p, n))
      )
      yield* Effect.yieldNow
      assert.deepStrictEqual(yield* Ref.get(log), ["a1 start", "b start"])
      assert.strictEqual(yield* lockCount, 2)
      yield* TestClock.adjust("1 second")
      const afterOne = yield* Ref.get(log)
      // b finished after 1 s too: it never waited for a1. a2 started only once a1 had ended.
      assert.deepStrictEqual([...afterOne].sort(), ["a1 end", "a1 start", "a2 start", "b end", "b start"])
      assert.isTrue(afterOne.indexOf("a1 end") < afterOne.indexOf("a2 start"))
      assert.strictEqual(yield* lockCount, 1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.joinAll(fibers)
      assert.deepStrictEqual((yield* Ref.get(log)).at(-1), "a2 end")
      assert.strictEqual(yield* lockCount, 0)
    }))

  it.effect("is released after a failure and after interruption (holder or waiter)", () =>
    Effect.gen(function*() {
      const { service: ft, lockCount } = yield* built
      const failed = yield* Effect.flip(ft.withLock("/ws/a.txt", Effect.fail("boom")))
      assert.strictEqual(failed, "boom")
      assert.strictEqual(yield* lockCount, 0)

      const holding = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(ft.withLock("/ws/a.txt", Deferred.succeed(holding, undefined).pipe(Effect.andThen(Effect.never))))
      yield* Deferred.await(holding)
      const waiter = yield* Effect.forkChild(ft.withLock("/ws/a.txt", Effect.void))
      yield* Effect.yieldNow
      assert.strictEqual(yield* lockCount, 1)
      yield* Fiber.interrupt(waiter)
      yield* Fiber.interrupt(holder)
      assert.strictEqual(yield* lockCount, 0)
      assert.strictEqual(yield* ft.withLock("/ws/a.txt", Effect.succeed("acquired")), "acquired")
      assert.strictEqual(yield* lockCount, 0)
    }))

  it.effect("many distinct paths leave no lock entries behind", () =>
    Effect.gen(function*() {
      const { service: ft, lockCount } = yield* built
      yield* Effect.forEach(Array.from({ length: 200 }, (_, i) => `/ws/f${i}.txt`), (p) => ft.withLock(p, Effect.void), {
        concurrency: 16
      })
      assert.strictEqual(yield* lockCount, 0)
    }))
})

describe("FileTime.base and the lock file", () => {
  const built = (processAlive: (pid: number) => boolean = () => true) =>
    FileTime.make({ processAlive })

  it.effect("the bytes of the last read are kept for a small file, and stay kept when it changed since", () =>
    Effect.gen(function*() {
      const { service: ft } = yield* built()
      const fs = yield* FileSystem.FileSystem
      assert.isUndefined(yield* ft.base("s1", "/ws/a.txt"))
      yield* ft.read("s1", "/ws/a.txt", enc("line one\nline two\n"))
      yield* fs.writeFileString("/ws/a.txt", "line one\nline 2\n")
      const error = yield* Effect.flip(ft.assert("s1", "/ws/a.txt", enc("line one\nline 2\n")))
      assert.strictEqual(error._tag, "FileModifiedError")
      assert.deepStrictEqual(yield* ft.base("s1", "/ws/a.txt"), enc("line one\nline two\n"))
      // A file over the limit keeps only its hash.
      yield* ft.read("s1", "/ws/a.txt", new Uint8Array(FileTime.MAX_BASE_BYTES + 1))
      assert.isUndefined(yield* ft.base("s1", "/ws/a.txt"))
    }).pipe(Effect.provide(memory())))

  it.effect("withLock holds `.<name>.agent-tools.lock` beside the file and removes it after, failure or not", () =>
    Effect.gen(function*() {
      const { service: ft } = yield* built()
      const fs = yield* FileSystem.FileSystem
      const seen = yield* ft.withLock("/ws/a.txt", fs.readFileString("/ws/.a.txt.agent-tools.lock"))
      assert.strictEqual(seen, `${process.pid}\n`)
      assert.isFalse(yield* fs.exists("/ws/.a.txt.agent-tools.lock"))
      yield* Effect.flip(ft.withLock("/ws/a.txt", Effect.fail("boom")))
      assert.isFalse(yield* fs.exists("/ws/.a.txt.agent-tools.lock"))
    }).pipe(Effect.provide(memory())))

  it.effect("a lock file of a live process is waited for; one of a dead process is taken over", () =>
    Effect.gen(function*() {
      const alive = new Set([4242])
      const { service: ft } = yield* built((pid) => alive.has(pid))
      const fs = yield* FileSystem.FileSystem
      yield* fs.writeFileString("/ws/.a.txt.agent-tools.lock", "4242\n")
      const waiting = yield* Effect.forkChild(ft.withLock("/ws/a.txt", Effect.succeed("mine")))
      yield* TestClock.adjust("1 second")
      assert.isUndefined(waiting.pollUnsafe())
      // The other process ends without removing its lock: it is taken over.
      alive.delete(4242)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Fiber.join(waiting), "mine")
      assert.isFalse(yield* fs.exists("/ws/.a.txt.agent-tools.lock"))
    }).pipe(Effect.provide(memory())))
})

describe("FileTime on a real file system", () => {
  const Real = FileTime.layer().pipe(Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)))

  it.live("touch is fine, same-size rewrite and append are detected", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const ft = yield* FileTime.FileTime
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "filetime-" })
      const file = `${dir}/a.txt`
      yield* fs.writeFileString(file, "hello\n")
      yield* ft.read("s1", file)
      yield* fs.utimes(file, new Date(), new Date(Date.now() + 5000)) // +5 s, same bytes
      yield* ft.assert("s1", file)

      const before = yield* fs.stat(file)
      yield* fs.writeFileString(file, "HELLO\n")
      yield* fs.utimes(file, new Date(), before.mtime.pipe((m) => (m._tag === "Some" ? m.value : new Date())))
      const sameSize = yield* Effect.flip(ft.assert("s1", file))
      assert.isTrue(sameSize._tag === "FileModifiedError" && sameSize.details.startsWith("same size (6 bytes) and line count (1)"))

      yield* ft.read("s1", file)
      yield* fs.writeFileString(file, "more\n", { flag: "a" })
      const appended = yield* Effect.flip(ft.assert("s1", file))
      assert.isTrue(appended._tag === "FileModifiedError" && appended.details.startsWith("size 6 → 11 bytes, 1 → 2 lines, modified "))

      yield* fs.remove(file)
      const deleted = yield* Effect.flip(ft.assert("s1", file))
      assert.isTrue(deleted._tag === "FileModifiedError" && deleted.details.startsWith("the file was deleted (it had 6 bytes"))
    }).pipe(Effect.provide(Real), Effect.scoped))
})
