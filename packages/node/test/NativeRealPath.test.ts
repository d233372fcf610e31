import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer } from "effect"
import { Workspace } from "@agent-tools/core"
import * as NativeRealPath from "../src/NativeRealPath.ts"

const outcome = (effect: Effect.Effect<string, { readonly reason: { readonly _tag: string; readonly cause?: unknown } }>) =>
  Effect.match(effect, {
    onSuccess: (real) => `ok ${real}`,
    onFailure: (e) => `${e.reason._tag} ${(e.reason.cause as { code?: string } | undefined)?.code ?? ""}`
  })

describe("NativeRealPath", () => {
  it.effect("resolves and fails like the platform's realPath: symlinks, a missing path, a file as a directory, a loop", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "agent-tools-realpath-"))),
      (dir) =>
        Effect.gen(function*() {
          mkdirSync(join(dir, "real"))
          writeFileSync(join(dir, "real", "f.txt"), "x")
          symlinkSync(join(dir, "real"), join(dir, "link"))
          symlinkSync("link/f.txt", join(dir, "rel"))
          symlinkSync(join(dir, "loop-b"), join(dir, "loop-a"))
          symlinkSync(join(dir, "loop-a"), join(dir, "loop-b"))
          const platform = yield* FileSystem.FileSystem
          const cases = ["link/f.txt", "rel", "link/../real", "missing", "link/missing.txt", "real/f.txt/x", "loop-a", ""]
          for (const name of cases) {
            const path = join(dir, name)
            assert.strictEqual(yield* outcome(NativeRealPath.realPath(path)), yield* outcome(platform.realPath(path)), name)
          }
          assert.strictEqual(yield* outcome(NativeRealPath.realPath(join(dir, "rel"))), `ok ${join(dir, "real", "f.txt")}`)
          assert.strictEqual(yield* outcome(NativeRealPath.realPath(join(dir, "loop-a"))), "BadResource ELOOP")
          const bad = yield* Effect.flip(NativeRealPath.realPath("a\0b"))
          assert.strictEqual(bad.reason._tag, yield* Effect.map(Effect.flip(platform.realPath("a\0b")), (e) => e.reason._tag))
        }).pipe(Effect.provide(NodeFileSystem.layer)),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ))

  it.effect("Workspace on it keeps containment on real paths and explains a symlink loop", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const dir = mkdtempSync(join(tmpdir(), "agent-tools-realpath-"))
        mkdirSync(join(dir, "ws"))
        mkdirSync(join(dir, "outside"))
        symlinkSync(join(dir, "outside"), join(dir, "ws", "escape"))
        symlinkSync(join(dir, "ws", "self"), join(dir, "ws", "self"))
        return dir
      }),
      (dir) =>
        Effect.gen(function*() {
          const workspace = yield* Workspace.Workspace
          const escaped = yield* workspace.resolve("escape/new.txt")
          assert.deepStrictEqual([escaped.real, escaped.inside, escaped.exists], [join(dir, "outside", "new.txt"), false, false])
          const error = yield* Effect.flip(workspace.resolve("self/x"))
          assert.strictEqual(error.message, `Cannot resolve path ${join(dir, "ws", "self", "x")}: symbolic link loop (too many levels of symbolic links)`)
        }).pipe(
          Effect.provide(
            Workspace.layer({ root: join(dir, "ws") }).pipe(
              Layer.provide(Layer.mergeAll(NativeRealPath.layer.pipe(Layer.provide(NodeFileSystem.layer)), NodePath.layer))
            )
          )
        ),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ))
})
