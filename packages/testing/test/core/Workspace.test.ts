import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { MemoryFileSystem } from "@agent-tools/testing"
import { SpillStorage, Workspace } from "@agent-tools/core"

const files = {
  files: { "/ws/src/a.ts": "a", "/outside/secret": "s", "/shared/lib.ts": "l", "/ws-evil/x": "x" },
  directories: ["/spill"],
  symlinks: {
    "/ws/link-in": "src", // in-workspace target
    "/ws/outbox": "/outside", // escapes
    "/ws/dangling": "/outside/missing.txt",
    "/ws/dangling-rel": "../elsewhere/new.txt",
    "/ws/dangling-dir": "/outside/nodir",
    "/ws/loop1": "loop2",
    "/ws/loop2": "loop1",
    "/alias": "/ws"
  }
}

const memoryWorkspace = (options: Workspace.LayerOptions) =>
  Workspace.layer(options).pipe(Layer.provide(Layer.mergeAll(MemoryFileSystem.layer(files), Path.layer)))

const resolveWith = (options: Workspace.LayerOptions, input: string) =>
  Workspace.Workspace.use((ws) => ws.resolve(input)).pipe(Effect.provide(memoryWorkspace(options)))

const summary = (r: Workspace.Resolved) => `${r.real} exists=${r.exists} inside=${r.inside} spill=${r.spill}`

describe("Workspace (memory)", () => {
  const ws = { root: "/ws" }

  it.effect("relative paths resolve against the root, not the process cwd", () =>
    Effect.gen(function*() {
      const r = yield* resolveWith(ws, "src/a.ts")
      assert.deepStrictEqual(r, {
        input: "src/a.ts", absolute: "/ws/src/a.ts", real: "/ws/src/a.ts", exists: true, inside: true, spill: false
      })
      assert.strictEqual(summary(yield* resolveWith(ws, "./src/../src/a.ts")), "/ws/src/a.ts exists=true inside=true spill=false")
      assert.strictEqual((yield* resolveWith(ws, "~/x")).absolute, "/ws/~/x") // no home expansion
    }))

  it.effect("the root itself is inside, by '.', by its absolute path and through a symlinked root", () =>
    Effect.gen(function*() {
      assert.strictEqual(summary(yield* resolveWith(ws, ".")), "/ws exists=true inside=true spill=false")
      assert.strictEqual(summary(yield* resolveWith(ws, "/ws")), "/ws exists=true inside=true spill=false")
      const viaAlias = yield* Workspace.Workspace.use((w) =>
        Effect.map(w.resolve("src/a.ts"), (r) => [w.root, r.absolute, r.real, r.inside])).pipe(
          Effect.provide(memoryWorkspace({ root: "/alias" }))
        )
      assert.deepStrictEqual(viaAlias, ["/ws", "/alias/src/a.ts", "/ws/src/a.ts", true])
    }))

  it.effect("`..` tricks and prefix siblings are outside", () =>
    Effect.gen(function*() {
      const up = yield* resolveWith(ws, "sub/../../x")
      assert.strictEqual(up.absolute, "/x")
      assert.isFalse(up.inside)
      assert.strictEqual(summary(yield* resolveWith(ws, "/ws-evil/x")), "/ws-evil/x exists=true inside=false spill=false")
      assert.strictEqual(summary(yield* resolveWith(ws, "../ws-evil/x")), "/ws-evil/x exists=true inside=false spill=false")
    }))

  it.effect("symlinks: in-workspace target is inside; a link pointing outside reports the real target", () =>
    Effect.gen(function*() {
      assert.strictEqual(summary(yield* resolveWith(ws, "link-in/a.ts")), "/ws/src/a.ts exists=true inside=true spill=false")
      assert.strictEqual(summary(yield* resolveWith(ws, "outbox/secret")), "/outside/secret exists=true inside=false spill=false")
      // a new file behind the link still lands outside
      const created = yield* resolveWith(ws, "outbox/new.txt")
      assert.strictEqual(created.absolute, "/ws/outbox/new.txt")
      assert.strictEqual(summary(created), "/outside/new.txt exists=false inside=false spill=false")
    }))

  it.effect("`..` after a symlink steps up from the link's target, as the kernel does", () =>
    Effect.gen(function*() {
      // `outbox` → /outside: `outbox/..` is `/`, so `outbox/../outside/secret` is the secret itself.
      const through = yield* resolveWith(ws, "outbox/../outside/secret")
      assert.strictEqual(through.absolute, "/ws/outside/secret") // the lexical reading, for display only
      assert.strictEqual(summary(through), "/outside/secret exists=true inside=false spill=false")
      assert.strictEqual(summary(yield* resolveWith(ws, "/ws/outbox/../ws/src/a.ts")), "/ws/src/a.ts exists=true inside=true spill=false")
      assert.strictEqual(summary(yield* resolveWith(ws, "outbox/..")), "/ exists=true inside=false spill=false")
      // an in-workspace link: `link-in/..` is the parent of src, the root
      assert.strictEqual(summary(yield* resolveWith(ws, "link-in/../src/a.ts")), "/ws/src/a.ts exists=true inside=true spill=false")
      // missing directories before `..` are stepped over lexically (they cannot be links yet)
      assert.strictEqual(summary(yield* resolveWith(ws, "new/../src/a.ts")), "/ws/src/a.ts exists=true inside=true spill=false")
    }))

  it.effect("new files in new nested directories are inside", () =>
    Effect.gen(function*() {
      assert.strictEqual(summary(yield* resolveWith(ws, "new/deep/file.ts")), "/ws/new/deep/file.ts exists=false inside=true spill=false")
    }))

  it.effect("dangling symlinks resolve to their target lexically", () =>
    Effect.gen(function*() {
      assert.strictEqual(summary(yield* resolveWith(ws, "dangling")), "/outside/missing.txt exists=false inside=false spill=false")
      assert.strictEqual(summary(yield* resolveWith(ws, "dangling-rel")), "/elsewhere/new.txt exists=false inside=false spill=false")
      assert.strictEqual(summary(yield* resolveWith(ws, "dangling-dir/a/b.txt")), "/outside/nodir/a/b.txt exists=false inside=false spill=false")
    }))

  it.effect("a symlink loop or a file used as a directory is a PathResolutionError", () =>
    Effect.gen(function*() {
      const loop = yield* Effect.flip(resolveWith(ws, "loop1/x"))
      assert.strictEqual(loop._tag, "PathResolutionError")
      assert.strictEqual(loop.message, "Cannot resolve path /ws/loop1/x: symbolic link loop (too many levels of symbolic links)")
      const notDir = yield* Effect.flip(resolveWith(ws, "src/a.ts/x"))
      assert.strictEqual(notDir.message, "Cannot resolve path /ws/src/a.ts/x: a component of the path is not a directory")
      const nul = yield* Effect.flip(resolveWith(ws, "a\0b"))
      assert.strictEqual(nul.message, "Cannot resolve path a\0b: the path contains a NUL byte")
    }))

  it.effect("extra allowed directories are inside (on real paths, prefix-safe)", () =>
    Effect.gen(function*() {
      const opts = { root: "/ws", allow: ["/shared", "outbox"] } // "outbox" is relative to the root: real /outside
      assert.isTrue((yield* resolveWith(opts, "/shared/lib.ts")).inside)
      assert.isTrue((yield* resolveWith(opts, "/outside/secret")).inside)
      assert.isFalse((yield* resolveWith(opts, "/shared-evil/x")).inside)
    }))

  it.effect("paths in the spill directories are flagged: given, or the SpillStorage's directory", () =>
    Effect.gen(function*() {
      const given = yield* resolveWith({ ...ws, spillDirectories: ["/spill"] }, "/spill/tool_1")
      assert.strictEqual(summary(given), "/spill/tool_1 exists=false inside=false spill=true")
      const spill = Layer.mock(SpillStorage.SpillStorage, { directory: "/spill", owns: () => false, ready: () => Effect.void })
      const r = yield* Workspace.Workspace.use((w) => w.resolve("/spill/tool_1")).pipe(
        Effect.provide(
          Workspace.layerWithSpillStorage(ws).pipe(Layer.provide(Layer.mergeAll(MemoryFileSystem.layer(files), Path.layer, spill)))
        )
      )
      assert.strictEqual(summary(r), "/spill/tool_1 exists=false inside=false spill=true")
      // Without spill directories nothing is a spill, whatever SpillStorage is in context.
      const plain = yield* Workspace.Workspace.use((w) => w.resolve("/spill/tool_1")).pipe(
        Effect.provide(Workspace.layer(ws).pipe(Layer.provide(Layer.mergeAll(MemoryFileSystem.layer(files), Path.layer, spill))))
      )
      assert.isFalse(plain.spill)
      assert.isFalse((yield* resolveWith(ws, "/spill/tool_1")).spill)
    }))

  it.effect("contains is pure and separator-aware", () =>
    Effect.gen(function*() {
      const w = yield* Workspace.Workspace.use(Effect.succeed).pipe(Effect.provide(memoryWorkspace({ root: "/ws", allow: ["/shared"] })))
      assert.deepStrictEqual(
        ["/ws", "/ws/a", "/ws-evil", "/w", "/shared/x", "/sharedx", "/"].map(w.contains),
        [true, true, false, false, true, false, false]
      )
    }))

  it.effect("the layer fails clearly when the root does not exist or is a file", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(Layer.build(memoryWorkspace({ root: "/nope" })))
      assert.strictEqual(missing.message, "Workspace root /nope does not exist")
      const file = yield* Effect.flip(Layer.build(memoryWorkspace({ root: "/ws/src/a.ts" })))
      assert.strictEqual(file.message, "Workspace root /ws/src/a.ts is not a directory")
    }))
})

describe("Workspace (real file system)", () => {
  const Real = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

  it.live("real symlinks: escapes, loops, dangling links, prefix siblings", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const base = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "workspace-" }))
      const root = `${base}/ws`
      yield* fs.makeDirectory(`${root}/src`, { recursive: true })
      yield* fs.makeDirectory(`${base}/out`)
      yield* fs.makeDirectory(`${base}/ws-evil`)
      yield* fs.writeFileString(`${root}/src/a.ts`, "a")
      yield* fs.writeFileString(`${base}/out/secret`, "s")
      yield* fs.symlink(`${base}/out`, `${root}/outbox`)
      yield* fs.symlink("src", `${root}/link-in`)
      yield* fs.symlink("loop2", `${root}/loop1`)
      yield* fs.symlink("loop1", `${root}/loop2`)
      yield* fs.symlink(`${base}/out/missing.txt`, `${root}/dangling`)

      const ws = yield* Workspace.make({ root })
      const check = (input: string) => Effect.map(ws.resolve(input), summary)
      assert.strictEqual(ws.root, root)
      assert.strictEqual(yield* check("src/a.ts"), `${root}/src/a.ts exists=true inside=true spill=false`)
      assert.strictEqual(yield* check("link-in/a.ts"), `${root}/src/a.ts exists=true inside=true spill=false`)
      assert.strictEqual(yield* check("outbox/secret"), `${base}/out/secret exists=true inside=false spill=false`)
      assert.strictEqual(yield* check("outbox/new/file.txt"), `${base}/out/new/file.txt exists=false inside=false spill=false`)
      assert.strictEqual(yield* check("new/dir/file.txt"), `${root}/new/dir/file.txt exists=false inside=true spill=false`)
      assert.strictEqual(yield* check("dangling"), `${base}/out/missing.txt exists=false inside=false spill=false`)
      assert.strictEqual(yield* check("sub/../../ws-evil/x"), `${base}/ws-evil/x exists=false inside=false spill=false`)
      assert.strictEqual(yield* check("."), `${root} exists=true inside=true spill=false`)
      assert.strictEqual(yield* check("outbox/../out/secret"), `${base}/out/secret exists=true inside=false spill=false`)
      assert.strictEqual(yield* check("outbox/../ws/src/a.ts"), `${root}/src/a.ts exists=true inside=true spill=false`)
      const loop = yield* Effect.flip(ws.resolve("loop1/x"))
      assert.strictEqual(loop.message, `Cannot resolve path ${root}/loop1/x: symbolic link loop (too many levels of symbolic links)`)
      const notDir = yield* Effect.flip(ws.resolve("src/a.ts/x"))
      assert.strictEqual(notDir.message, `Cannot resolve path ${root}/src/a.ts/x: a component of the path is not a directory`)
      // A name past the system's limit says so once, with the path shortened, not the platform's text.
      const long = yield* Effect.flip(ws.resolve(`/${"a".repeat(8192)}`))
      assert.strictEqual(long.message, `Cannot resolve path /${"a".repeat(255)}… (8193 characters): file name too long`)
      assert.isFalse(yield* fs.exists(`${base}/out/new`)) // resolving never creates anything
    }).pipe(Effect.provide(Real), Effect.scoped))
})
