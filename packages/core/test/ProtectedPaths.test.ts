/** The workspace's control files: the defaults, core.hooksPath read from .git/config, configured extras. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer } from "effect"
import * as ProtectedPaths from "../src/ProtectedPaths.ts"

describe("ProtectedPaths.hooksPath", () => {
  it("reads core.hooksPath, case-insensitively, the last one set, quotes and comments stripped", () => {
    assert.strictEqual(ProtectedPaths.hooksPath("[core]\n\thooksPath = .husky/_\n"), ".husky/_")
    assert.strictEqual(ProtectedPaths.hooksPath("[CORE]\n  HooksPath=\"my hooks\" # comment\n"), "my hooks")
    assert.strictEqual(ProtectedPaths.hooksPath("[core]\nhooksPath = a\n[user]\nname = x\n[core]\nhookspath = b ; note\n"), "b")
    assert.strictEqual(ProtectedPaths.hooksPath("[core \"sub\"]\nhooksPath = a\n[user]\nhooksPath = b\n"), undefined)
    assert.strictEqual(ProtectedPaths.hooksPath("[core] hooksPath = inline\n"), "inline")
    assert.strictEqual(ProtectedPaths.hooksPath(""), undefined)
  })
})

describe("ProtectedPaths.resolve", () => {
  it.effect("the defaults, the hooksPath directory (and husky's parent), configured paths; existing ones by real path", () =>
    Effect.gen(function*() {
      const ws = realpathSync(mkdtempSync(join(tmpdir(), "protected-")))
      try {
        mkdirSync(join(ws, ".git", "hooks"), { recursive: true })
        writeFileSync(join(ws, ".git", "config"), "[core]\n\thooksPath = .husky/_\n")
        mkdirSync(join(ws, ".husky", "_"), { recursive: true })
        mkdirSync(join(ws, "ci"))
        symlinkSync("ci", join(ws, "deploy"))
        const resolved = yield* ProtectedPaths.resolve(ws).pipe(Effect.provide(ProtectedPaths.layer(["deploy", "../outside"])))
        assert.deepStrictEqual(resolved.relative, [...ProtectedPaths.DEFAULTS, "deploy", ".husky/_", ".husky"])
        assert.deepStrictEqual(resolved.existing, [join(ws, "ci"), join(ws, ".husky"), join(ws, ".git", "config"), join(ws, ".git", "hooks"), join(ws, ".husky", "_")])
        assert.isTrue(ProtectedPaths.covers(resolved, join(ws, ".git", "hooks", "pre-commit")))
        assert.isTrue(ProtectedPaths.covers(resolved, join(ws, ".GIT", "Config")))
        assert.isTrue(ProtectedPaths.covers(resolved, join(ws, "ci", "x")))
        assert.isTrue(ProtectedPaths.covers(resolved, join(ws, "agent-tools.json")))
        assert.isFalse(ProtectedPaths.covers(resolved, join(ws, ".git", "index")))
        assert.isFalse(ProtectedPaths.covers(resolved, join(ws, "agent-tools.json.bak")))
      } finally {
        rmSync(ws, { recursive: true, force: true })
      }
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("looks up only entries the root lists, nothing under .git/ unless .git is a directory (a symlink to one counts)", () =>
    Effect.gen(function*() {
      const ws = realpathSync(mkdtempSync(join(tmpdir(), "protected-")))
      const asked: Array<string> = []
      const recording = Layer.effect(
        FileSystem.FileSystem,
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          return { ...fs, realPath: (p: string) => (asked.push(p), fs.realPath(p)) }
        })
      )
      const resolve = ProtectedPaths.resolve(ws).pipe(Effect.provide(recording), Effect.provide(NodeServices.layer))
      try {
        const plain = yield* resolve
        assert.deepStrictEqual(asked, [])
        assert.deepStrictEqual(plain.existing, [])
        assert.isTrue(ProtectedPaths.covers(plain, join(ws, ".git", "config")))
        // A .git file (a worktree checkout) has no entries under it either, and is itself protected.
        writeFileSync(join(ws, ".git"), "gitdir: /elsewhere\n")
        asked.length = 0
        const worktree = yield* resolve
        assert.deepStrictEqual(asked, [join(ws, ".git")])
        assert.deepStrictEqual(worktree.existing, [join(ws, ".git")])
        rmSync(join(ws, ".git"))
        mkdirSync(join(ws, "real-git", "hooks"), { recursive: true })
        symlinkSync("real-git", join(ws, ".git"))
        asked.length = 0
        const linked = yield* resolve
        assert.deepStrictEqual(linked.existing, [join(ws, "real-git", "hooks")])
        // Of the entries under .git/, only what .git lists (hooks here) is looked up.
        assert.deepStrictEqual(asked, [join(ws, ".git", "hooks")])
        // Listed in another case: still looked up (a case-insensitive file system finds it).
        writeFileSync(join(ws, "Agent-Tools.json"), "{}")
        asked.length = 0
        yield* resolve
        assert.include(asked, join(ws, "agent-tools.json"))
      } finally {
        rmSync(ws, { recursive: true, force: true })
      }
    }))
})
