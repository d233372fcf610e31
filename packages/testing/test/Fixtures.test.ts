import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FileSystem, Layer, Scope } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Workspace } from "@agent-tools/core"
import { Fixtures } from "../src/index.ts"

describe("Fixtures", () => {
  it.live("tempWorkspace writes the files in a real temp dir and removes it with the scope", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const scope = yield* Scope.make()
      const dir = yield* Fixtures.tempWorkspace({ "src/a.ts": "export {}\n", "bin.dat": new Uint8Array([0, 1, 2]) }).pipe(
        Scope.provide(scope)
      )
      assert.strictEqual(yield* fs.realPath(dir), dir)
      assert.strictEqual(yield* fs.readFileString(`${dir}/src/a.ts`), "export {}\n")
      assert.deepStrictEqual([...(yield* fs.readFile(`${dir}/bin.dat`))], [0, 1, 2])
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(yield* fs.exists(dir))
    }).pipe(Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))))

  it.effect("memoryWorkspace puts relative files under /ws, keeps absolute ones, and supports symlinks", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const ws = yield* Workspace.Workspace
      assert.strictEqual(ws.root, Fixtures.root)
      assert.strictEqual(yield* fs.readFileString("/ws/src/a.ts"), "a")
      const link = yield* ws.resolve("out/secret")
      assert.deepStrictEqual([link.real, link.exists, link.inside], ["/outside/secret", true, false])
      assert.isTrue(yield* fs.exists("/ws/empty"))
    }).pipe(Effect.provide(
      Workspace.layer({ root: Fixtures.root }).pipe(
        Layer.provideMerge(Fixtures.memoryWorkspace(
          { "src/a.ts": "a", "/outside/secret": "s" },
          { symlinks: { out: "/outside" }, directories: ["empty"] }
        ))
      )
    )))

  it.effect("an empty memoryWorkspace still has its root", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      assert.deepStrictEqual(yield* fs.readDirectory(Fixtures.root), [])
    }).pipe(Effect.provide(Fixtures.memoryWorkspace())))
})
