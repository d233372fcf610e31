// The same operations against Node's FileSystem (real temp dir) and MemoryFileSystem must agree on
// outcomes: the value on success, `reason/errno` on failure.
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Option } from "effect"
import { NodeFileSystem } from "@effect/platform-node"
import { MemoryFileSystem } from "../src/index.ts"

const outcome = <A, R>(eff: Effect.Effect<A, unknown, R>) =>
  eff.pipe(
    Effect.map((a) => `ok ${JSON.stringify(a)}`),
    Effect.catch((e) => {
      const err = e as { reason: { _tag: string; cause?: { code?: string } } }
      return Effect.succeed(`${err.reason._tag}/${err.reason.cause?.code ?? "-"}`)
    }),
    Effect.scoped
  )

const scenario = (fs: FileSystem.FileSystem, root: string) => {
  const p = (s: string) => `${root}${s}`
  const setup = Effect.gen(function*() {
    yield* fs.makeDirectory(p("/d/sub"), { recursive: true })
    yield* fs.makeDirectory(p("/other/x"), { recursive: true })
    yield* fs.writeFileString(p("/d/f.txt"), "hello")
    yield* fs.symlink(p("/d"), p("/link"))
    yield* fs.symlink("loop-b", p("/loop-a"))
    yield* fs.symlink("loop-a", p("/loop-b"))
    yield* fs.symlink(p("/nowhere"), p("/dangling"))
  })
  const checks: Record<string, Effect.Effect<string>> = {
    "readFile missing": outcome(fs.readFileString(p("/missing"))),
    "readFile dir": outcome(fs.readFile(p("/d"))),
    "readFile through a file": outcome(fs.readFile(p("/d/f.txt/x"))),
    "readFile through link": outcome(fs.readFileString(p("/link/f.txt"))),
    "writeFile missing parent": outcome(fs.writeFileString(p("/nope/a.txt"), "x")),
    "writeFile wx existing": outcome(fs.writeFileString(p("/d/f.txt"), "x", { flag: "wx" })),
    "mkdir existing": outcome(fs.makeDirectory(p("/d"))),
    "mkdir missing parent": outcome(fs.makeDirectory(p("/a/b"))),
    "mkdir -p existing": outcome(fs.makeDirectory(p("/d/sub"), { recursive: true })),
    "mkdir -p through a file": outcome(fs.makeDirectory(p("/d/f.txt/x"), { recursive: true })),
    "readDirectory file": outcome(fs.readDirectory(p("/d/f.txt"))),
    "readDirectory via link": outcome(Effect.map(fs.readDirectory(p("/link")), (l) => [...l].sort())),
    "readLink file": outcome(fs.readLink(p("/d/f.txt"))),
    "realPath loop": outcome(fs.realPath(p("/loop-a"))),
    "stat through loop": outcome(fs.stat(p("/loop-a/x"))),
    "stat dangling": outcome(fs.stat(p("/dangling"))),
    "lstat dangling type": outcome(Effect.map(fs.lstat(p("/dangling")), (i) => i.type)),
    "rename into own subdir": outcome(fs.rename(p("/d"), p("/d/sub/inner"))),
    "rename onto non-empty dir": outcome(fs.rename(p("/d/sub"), p("/other"))),
    "rename file onto dir": outcome(fs.rename(p("/d/f.txt"), p("/other"))),
    "rename missing": outcome(fs.rename(p("/missing"), p("/x"))),
    "open noFollow symlink": outcome(fs.open(p("/link"), { noFollow: true })),
    "open r missing": outcome(fs.open(p("/missing"))),
    "symlink over existing": outcome(fs.symlink("x", p("/link"))),
    "truncate dir": outcome(fs.truncate(p("/d"))),
    "remove dir without recursive": outcome(fs.remove(p("/other"))),
    "writeFile to a dir": outcome(fs.writeFileString(p("/d"), "x")),
    "rename dir onto file": outcome(fs.rename(p("/other"), p("/d/f.txt"))),
    "remove missing": outcome(fs.remove(p("/missing"))),
    "remove missing force": outcome(fs.remove(p("/missing"), { force: true })),
    "copyFile dir": outcome(fs.copyFile(p("/d"), p("/copy"))),
    "stat size": outcome(Effect.map(fs.stat(p("/d/f.txt")), (i) => [i.type, Number(i.size), Option.isSome(i.mtime)]))
  }
  return Effect.andThen(setup, Effect.forEach(Object.entries(checks), ([name, check]) => Effect.map(check, (r) => `${name}: ${r}`)))
}

describe("MemoryFileSystem parity with Node", () => {
  it.live("same outcomes for the same operations", () =>
    Effect.gen(function*() {
      const real = yield* Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "memfs-parity-" })
        return yield* scenario(fs, yield* fs.realPath(dir))
      }).pipe(Effect.provide(NodeFileSystem.layer), Effect.scoped)
      const memory = yield* Effect.gen(function*() {
        return yield* scenario(yield* FileSystem.FileSystem, "/root")
      }).pipe(Effect.provide(MemoryFileSystem.layer({ directories: ["/root"] })))
      assert.deepStrictEqual(memory, real)
    }))
})
