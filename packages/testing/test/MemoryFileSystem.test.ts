import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FileSystem, Option, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { MemoryFileSystem } from "../src/index.ts"

const withFs = <A, E, R>(
  initial: Parameters<typeof MemoryFileSystem.layer>[0],
  f: (fs: FileSystem.FileSystem) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    return yield* f(yield* FileSystem.FileSystem)
  }).pipe(Effect.provide(MemoryFileSystem.layer(initial)))

const reasonOf = <A, R>(eff: Effect.Effect<A, unknown, R>) =>
  Effect.map(Effect.flip(eff), (e) => {
    const err = e as { reason: { _tag: string; cause?: { code?: string } } }
    return `${err.reason._tag}/${err.reason.cause?.code ?? "-"}`
  })

const text = (s: string) => new TextEncoder().encode(s)

describe("MemoryFileSystem", () => {
  it.effect("reads initial files, creates their parents, derives readFileString/exists", () =>
    withFs({ "/ws/src/a.ts": "export {}\n" }, (fs) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* fs.readFileString("/ws/src/a.ts"), "export {}\n")
        assert.isTrue(yield* fs.exists("/ws/src"))
        assert.isFalse(yield* fs.exists("/ws/nope"))
        assert.deepStrictEqual(yield* fs.readDirectory("/ws"), ["src"])
        assert.deepStrictEqual(yield* fs.readDirectory("/ws", { recursive: true }), ["src", "src/a.ts"])
        const info = yield* fs.stat("/ws/src/a.ts")
        assert.strictEqual(info.type, "File")
        assert.strictEqual(Number(info.size), 10)
        assert.strictEqual(info.mode & 0o777, 0o644)
        assert.strictEqual((yield* fs.stat("/ws")).type, "Directory")
      })))

  it.effect("errors carry Node's reason tags and errno codes", () =>
    withFs({ "/ws/a.txt": "a" }, (fs) =>
      Effect.gen(function*() {
        const e = yield* Effect.flip(fs.readFile("/ws/missing"))
        assert.strictEqual(e.message, "NotFound: FileSystem.readFile (/ws/missing)")
        assert.strictEqual(yield* reasonOf(fs.readFile("/ws")), "BadResource/EISDIR")
        assert.strictEqual(yield* reasonOf(fs.readFile("/ws/a.txt/x")), "BadResource/ENOTDIR")
        assert.strictEqual(yield* reasonOf(fs.writeFileString("/ws/new/deep.txt", "x")), "NotFound/ENOENT")
        assert.strictEqual(yield* reasonOf(fs.makeDirectory("/ws")), "AlreadyExists/EEXIST")
        assert.strictEqual(yield* reasonOf(fs.makeDirectory("/ws/x/y")), "NotFound/ENOENT")
        assert.strictEqual(yield* reasonOf(fs.makeDirectory("/ws/a.txt/y", { recursive: true })), "BadResource/ENOTDIR")
        assert.strictEqual(yield* reasonOf(fs.remove("/ws")), "Unknown/ERR_FS_EISDIR") // as Node reports it
        assert.strictEqual(yield* reasonOf(fs.readDirectory("/ws/a.txt")), "BadResource/ENOTDIR")
        assert.strictEqual(yield* reasonOf(fs.writeFileString("/ws/a.txt", "x", { flag: "wx" })), "AlreadyExists/EEXIST")
        assert.strictEqual(yield* reasonOf(fs.readLink("/ws/a.txt")), "Unknown/EINVAL")
      })))

  it.effect("makeDirectory recursive, remove recursive/force", () =>
    withFs({}, (fs) =>
      Effect.gen(function*() {
        yield* fs.makeDirectory("/a/b/c", { recursive: true })
        yield* fs.makeDirectory("/a/b/c", { recursive: true }) // idempotent, like mkdir -p
        yield* fs.writeFileString("/a/b/c/f.txt", "x")
        yield* fs.remove("/a", { recursive: true })
        assert.isFalse(yield* fs.exists("/a"))
        yield* fs.remove("/a", { force: true })
        assert.strictEqual(yield* reasonOf(fs.remove("/a")), "NotFound/ENOENT")
      })))

  it.effect("symlinks: stat/readFile follow, lstat/readLink do not, realPath resolves every component", () =>
    withFs({
      files: { "/outside/secret.txt": "s", "/ws/real/f.txt": "f" },
      symlinks: { "/ws/link": "/outside", "/ws/rel": "real", "/ws/real/up": "../link" }
    }, (fs) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* fs.readFileString("/ws/link/secret.txt"), "s")
        assert.strictEqual(yield* fs.readFileString("/ws/rel/f.txt"), "f")
        assert.strictEqual((yield* fs.stat("/ws/link")).type, "Directory")
        assert.strictEqual((yield* fs.lstat("/ws/link")).type, "SymbolicLink")
        assert.strictEqual(yield* fs.readLink("/ws/link"), "/outside")
        assert.strictEqual(yield* fs.realPath("/ws/rel/up/secret.txt"), "/outside/secret.txt")
        assert.strictEqual(yield* fs.realPath("/ws/rel/../link"), "/outside")
        // `..` after a symlink is physical: /ws/link/.. is the parent of /outside, i.e. /
        assert.strictEqual(yield* fs.realPath("/ws/link/.."), "/")
        assert.strictEqual(yield* reasonOf(fs.realPath("/ws/link/missing")), "NotFound/ENOENT")
        assert.deepStrictEqual(
          (yield* fs.readDirectoryEntries("/ws")).map((e) => `${e.name}:${e.type}`),
          ["link:SymbolicLink", "real:Directory", "rel:SymbolicLink"]
        )
      })))

  it.effect("symlink loops fail with ELOOP; dangling links; writes through a dangling link create the target", () =>
    withFs({ directories: ["/ws"], symlinks: { "/ws/a": "b", "/ws/b": "a", "/ws/dangling": "/ws/target.txt" } }, (fs) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* reasonOf(fs.realPath("/ws/a")), "BadResource/ELOOP")
        assert.strictEqual(yield* reasonOf(fs.stat("/ws/a/x")), "BadResource/ELOOP")
        assert.strictEqual((yield* fs.lstat("/ws/a")).type, "SymbolicLink")
        assert.strictEqual(yield* reasonOf(fs.stat("/ws/dangling")), "NotFound/ENOENT")
        assert.isFalse(yield* fs.exists("/ws/dangling"))
        yield* fs.writeFileString("/ws/dangling", "hi")
        assert.strictEqual(yield* fs.readFileString("/ws/target.txt"), "hi")
        assert.strictEqual(yield* reasonOf(fs.symlink("/x", "/ws/a")), "AlreadyExists/EEXIST")
        yield* fs.remove("/ws/dangling") // removes the link, not the target
        assert.isTrue(yield* fs.exists("/ws/target.txt"))
      })))

  it.effect("mtime follows the Clock; utimes sets it (numbers are seconds, as in Node)", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 0, 1))
      yield* withFs({ "/f": "a" }, (fs) =>
        Effect.gen(function*() {
          const mtime = (p: string) => Effect.map(fs.stat(p), (i) => Option.getOrThrow(i.mtime).toISOString())
          assert.strictEqual(yield* mtime("/f"), "2026-01-01T00:00:00.000Z")
          yield* TestClock.adjust("90 seconds")
          yield* fs.writeFileString("/f", "b")
          assert.strictEqual(yield* mtime("/f"), "2026-01-01T00:01:30.000Z")
          yield* fs.utimes("/f", new Date(0), new Date(Date.UTC(2025, 5, 1)))
          assert.strictEqual(yield* mtime("/f"), "2025-06-01T00:00:00.000Z")
          yield* fs.utimes("/f", 0, 60)
          assert.strictEqual(yield* mtime("/f"), "1970-01-01T00:01:00.000Z")
        }))
    }))

  it.effect("rename moves files and whole directories atomically; guards like Node", () =>
    withFs({ "/a/x.txt": "x", "/a/sub/y.txt": "y", "/b/z.txt": "z" }, (fs) =>
      Effect.gen(function*() {
        yield* fs.rename("/a", "/c")
        assert.isFalse(yield* fs.exists("/a"))
        assert.strictEqual(yield* fs.readFileString("/c/sub/y.txt"), "y")
        yield* fs.rename("/c/x.txt", "/b/z.txt") // replaces a file
        assert.strictEqual(yield* fs.readFileString("/b/z.txt"), "x")
        assert.strictEqual(yield* reasonOf(fs.rename("/c", "/c/sub/inside")), "Unknown/EINVAL")
        assert.strictEqual(yield* reasonOf(fs.rename("/c", "/b")), "Unknown/ENOTEMPTY")
        assert.strictEqual(yield* reasonOf(fs.rename("/b/z.txt", "/c")), "BadResource/EISDIR")
        assert.strictEqual(yield* reasonOf(fs.rename("/nope", "/d")), "NotFound/ENOENT")
      })))

  it.effect("chmod keeps the mode; copyFile copies bytes and mode; copy is recursive; truncate", () =>
    withFs({ "/bin/run.sh": "#!/bin/sh\n", "/d/a/b.txt": "b" }, (fs) =>
      Effect.gen(function*() {
        yield* fs.chmod("/bin/run.sh", 0o755)
        assert.strictEqual((yield* fs.stat("/bin/run.sh")).mode & 0o777, 0o755)
        yield* fs.copyFile("/bin/run.sh", "/bin/copy.sh")
        assert.strictEqual((yield* fs.stat("/bin/copy.sh")).mode & 0o777, 0o755)
        assert.strictEqual(yield* fs.readFileString("/bin/copy.sh"), "#!/bin/sh\n")
        yield* fs.copy("/d", "/e")
        assert.strictEqual(yield* fs.readFileString("/e/a/b.txt"), "b")
        yield* fs.truncate("/bin/copy.sh", 2)
        assert.strictEqual(yield* fs.readFileString("/bin/copy.sh"), "#!")
        yield* fs.truncate("/bin/copy.sh", 4)
        assert.deepStrictEqual([...(yield* fs.readFile("/bin/copy.sh"))], [35, 33, 0, 0])
        yield* fs.writeFileString("/bin/copy.sh", "++", { flag: "a" })
        assert.strictEqual(yield* fs.readFileString("/bin/copy.sh"), "#!\0\0++")
      })))

  it.effect("temp directories and files; scoped variants are removed with the scope", () =>
    withFs({}, (fs) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agent-" }).pipe(Scope.provide(scope))
        assert.match(dir, /^\/tmp\/agent-[0-9a-z]{6}$/)
        const file = yield* fs.makeTempFileScoped({ directory: dir, suffix: ".log" }).pipe(Scope.provide(scope))
        assert.isTrue(file.startsWith(dir + "/") && file.endsWith(".log"))
        assert.strictEqual(yield* fs.readFileString(file), "")
        const other = yield* fs.makeTempDirectory()
        assert.notStrictEqual(other, dir)
        yield* Scope.close(scope, Exit.void)
        assert.isFalse(yield* fs.exists(dir))
        assert.isTrue(yield* fs.exists(other))
      })))

  it.effect("open returns a real File: write/seek/read/readAlloc/stat/truncate, and the handle survives rename", () =>
    withFs({ directories: ["/w"] }, (fs) =>
      Effect.gen(function*() {
        const file = yield* fs.open("/w/out.bin", { flag: "w+" })
        yield* file.writeAll(text("hello world"))
        assert.strictEqual(yield* file.seek(0n, "start"), 0n)
        const buf = new Uint8Array(5)
        assert.strictEqual(yield* file.read(buf), 5)
        assert.strictEqual(new TextDecoder().decode(buf), "hello")
        const rest = yield* file.readAlloc(100)
        assert.strictEqual(new TextDecoder().decode(Option.getOrThrow(rest)), " world")
        assert.isTrue(Option.isNone(yield* file.readAlloc(100)))
        yield* fs.rename("/w/out.bin", "/w/moved.bin")
        yield* file.truncate(5)
        assert.strictEqual(Number((yield* file.stat).size), 5)
        assert.strictEqual(yield* fs.readFileString("/w/moved.bin"), "hello")
        const ro = yield* fs.open("/w/moved.bin")
        assert.strictEqual(yield* reasonOf(ro.writeAll(text("x"))), "BadResource/EBADF")
        assert.strictEqual(yield* reasonOf(fs.open("/w/none", { flag: "r" })), "NotFound/ENOENT")
        assert.strictEqual(yield* reasonOf(fs.open("/w/moved.bin", { flag: "wx" })), "AlreadyExists/EEXIST")
      })))

  it.effect("derived stream and sink work (chunked, append flag)", () =>
    withFs({ directories: ["/spill"] }, (fs) =>
      Effect.gen(function*() {
        yield* Stream.make(text("abc"), text("def"), text("ghi")).pipe(Stream.run(fs.sink("/spill/out.txt")))
        yield* Stream.make(text("!")).pipe(Stream.run(fs.sink("/spill/out.txt", { flag: "a" })))
        assert.strictEqual(yield* fs.readFileString("/spill/out.txt"), "abcdefghi!")
        const chunks = yield* fs.stream("/spill/out.txt", { chunkSize: 4 }).pipe(Stream.runCollect)
        assert.deepStrictEqual(Array.from(chunks, (c) => new TextDecoder().decode(c)), ["abcd", "efgh", "i!"])
        const part = yield* fs.stream("/spill/out.txt", { offset: 2, bytesToRead: 3 }).pipe(Stream.decodeText(), Stream.mkString)
        assert.strictEqual(part, "cde")
        // streaming many small writes stays correct
        const big = yield* Effect.scoped(Effect.gen(function*() {
          const f = yield* fs.open("/spill/big.txt", { flag: "w" })
          for (let i = 0; i < 1000; i++) yield* f.writeAll(text(`${i}\n`))
        })).pipe(Effect.andThen(fs.readFileString("/spill/big.txt")))
        assert.strictEqual(big.split("\n").length, 1001)
        assert.strictEqual(big.slice(-4), "999\n")
      })))

  it.effect("glob (derived from readDirectoryEntries/stat) finds files", () =>
    withFs({ "/ws/a.ts": "", "/ws/src/b.ts": "", "/ws/src/c.md": "" }, (fs) =>
      Effect.gen(function*() {
        const found = yield* fs.glob("**/*.ts", { root: "/ws" })
        assert.deepStrictEqual([...found].sort(), ["a.ts", "src/b.ts"])
      })))

  it.effect("hard links share content; noFollow open refuses a symlink", () =>
    withFs({ files: { "/a.txt": "1" }, symlinks: { "/l": "/a.txt" } }, (fs) =>
      Effect.gen(function*() {
        yield* fs.link("/a.txt", "/b.txt")
        yield* fs.writeFileString("/b.txt", "2")
        assert.strictEqual(yield* fs.readFileString("/a.txt"), "2")
        assert.strictEqual(yield* reasonOf(fs.open("/l", { noFollow: true })), "BadResource/ELOOP")
      })))
})
