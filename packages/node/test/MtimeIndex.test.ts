/**
 * glob over the rg layer with the mtime index (statBatch + directory watches, as the Node runtime
 * builds it): the listing stays true across edits, creations, deletions and renames between calls,
 * and a later call with nothing changed is answered without running rg.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { ChildProcessSpawner } from "effect/process"
import { NodeServices } from "@effect/platform-node"
import { Ripgrep, SpillStorage, type Tool, Workspace } from "@agent-tools/core"
import { GlobTool, GrepTool } from "@agent-tools/tools"
import * as NodeStat from "../src/NodeStat.ts"

const hasRg = spawnSync("rg", ["--version"]).status === 0

const ctx: Tool.Context = {
  sessionID: "s",
  messageID: "m",
  callID: "c",
  agent: "build",
  abort: new AbortController().signal,
  extra: {},
  metadata: () => Effect.void,
  ask: () => Effect.void,
  askAll: () => Effect.void
}

/** A year ago, in seconds: fixture files and directories look long settled. */
const OLD = Math.floor(Date.now() / 1000) - 365 * 24 * 3600

/** The glob tool over `root` in a runtime of its own; `spawned` counts the processes it started. */
const session = (root: string, watch: boolean) => {
  const counter = { spawned: 0 }
  const counting = Layer.effect(
    ChildProcessSpawner.ChildProcessSpawner,
    Effect.map(ChildProcessSpawner.ChildProcessSpawner, (inner) =>
      ChildProcessSpawner.make((command) => {
        counter.spawned++
        return inner.spawn(command)
      }))
  ).pipe(Layer.provide(NodeServices.layer))
  const ripgrep = Ripgrep.layer({
    backend: "rg",
    statBatch: NodeStat.statBatch,
    watch: watch ? NodeStat.directoryWatch : undefined
  }).pipe(Layer.provide(counting))
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Workspace.layer({ root }), ripgrep, SpillStorage.layerMemory()).pipe(Layer.provideMerge(NodeServices.layer))
  )
  const glob = (pattern: string, path?: string) =>
    Effect.promise(async () => {
      const def = await runtime.runPromise(GlobTool.init)
      const result = await runtime.runPromise(def.execute(def.parameters.parse({ pattern, path }), ctx) as Effect.Effect<Tool.Result>)
      return result.output
    })
  const grep = (pattern: string) =>
    Effect.promise(async () => {
      const def = await runtime.runPromise(GrepTool.init)
      const result = await runtime.runPromise(def.execute(def.parameters.parse({ pattern }), ctx) as Effect.Effect<Tool.Result>)
      return result.output
    })
  return { glob, grep, counter, dispose: () => runtime.dispose() }
}

const write = (root: string, rel: string, content: string, mtime?: number) => {
  mkdirSync(join(root, rel, ".."), { recursive: true })
  writeFileSync(join(root, rel), content)
  if (mtime !== undefined) utimesSync(join(root, rel), mtime, mtime)
}

/** Sets every directory's mtime back, as in a tree nobody touched lately. */
const settle = (root: string, dirs: ReadonlyArray<string>) => {
  for (const dir of ["", ...dirs]) utimesSync(join(root, dir), OLD, OLD)
}

const withTree = <A>(body: (root: string) => Effect.Effect<A>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "agent-tools-index-"))),
    body,
    (root) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
  )

/** Calls until the index answers without a walk (its background watches done), at most `tries` times. */
const untilServed = (s: ReturnType<typeof session>, pattern: string, path?: string, tries = 100) =>
  Effect.gen(function*() {
    for (let i = 0; i < tries; i++) {
      const before = s.counter.spawned
      const output = yield* s.glob(pattern, path)
      if (s.counter.spawned === before) return output
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error("the index never answered without a walk"))
  })

describe.skipIf(!hasRg)("mtime index (needs rg)", () => {
  it.live("glob stays true across edits, creations, deletions and renames between calls", () =>
    withTree((root) =>
      Effect.gen(function*() {
        write(root, "src/a.ts", "a", OLD + 10)
        write(root, "src/b.ts", "b", OLD + 20)
        write(root, "src/deep/c.ts", "c", OLD + 30)
        write(root, "docs/d.md", "d", OLD + 40)
        write(root, "ignored/x.log", "x", OLD + 50)
        write(root, ".gitignore", "*.log\n", OLD)
        mkdirSync(join(root, "empty"))
        settle(root, ["src", "src/deep", "docs", "ignored", "empty"])
        const indexed = session(root, true)
        const fresh = session(root, false)
        const check = Effect.fnUntraced(function*(pattern: string) {
          const got = yield* indexed.glob(pattern)
          assert.strictEqual(got, yield* fresh.glob(pattern))
          return got.split("\n")
        })
        try {
          assert.deepStrictEqual(
            yield* check("**/*"),
            ["docs/d.md", "src/deep/c.ts", "src/b.ts", "src/a.ts", ".gitignore"].map((rel) => join(root, rel))
          )
          // Nothing changed: answered from the index, without rg.
          const served = yield* untilServed(indexed, "**/*")
          assert.strictEqual(served, yield* fresh.glob("**/*"))
          const quiet = indexed.counter.spawned
          yield* indexed.glob("**/*.ts")
          yield* indexed.glob("**/*.ts")
          assert.isAtMost(indexed.counter.spawned - quiet, 1, "the second *.ts call walks no more")

          // grep reads the mtimes the index knows, and an edit is seen there too.
          assert.strictEqual(yield* indexed.grep("^[abc]"), yield* fresh.grep("^[abc]"))
          writeFileSync(join(root, "src/b.ts"), "b\n")
          const grepped = yield* indexed.grep("^[abc]")
          assert.strictEqual(grepped, yield* fresh.grep("^[abc]"))
          assert.strictEqual(grepped.split("\n")[1], `${join(root, "src/b.ts")}:`)

          // A content edit: the file becomes the newest.
          writeFileSync(join(root, "src/a.ts"), "a2")
          assert.strictEqual((yield* check("**/*"))[0], join(root, "src/a.ts"))
          // An edit through a temporary file renamed over the original.
          writeFileSync(join(root, "src/.b.ts.tmp"), "b2")
          renameSync(join(root, "src/.b.ts.tmp"), join(root, "src/b.ts"))
          assert.strictEqual((yield* check("**/*"))[0], join(root, "src/b.ts"))
          // A new file, in a directory that held no listed file before, and in a new directory.
          write(root, "empty/e.ts", "e")
          assert.strictEqual((yield* check("**/*"))[0], join(root, "empty/e.ts"))
          write(root, "ignored/new.ts", "n")
          assert.strictEqual((yield* check("**/*"))[0], join(root, "ignored/new.ts"))
          write(root, "fresh/dir/f.ts", "f")
          assert.strictEqual((yield* check("**/*"))[0], join(root, "fresh/dir/f.ts"))
          // Deleted, renamed, and a directory renamed.
          rmSync(join(root, "fresh/dir/f.ts"))
          assert.notInclude(yield* indexed.glob("**/*"), "f.ts")
          assert.strictEqual((yield* check("**/*"))[0], join(root, "ignored/new.ts"))
          renameSync(join(root, "src/a.ts"), join(root, "src/a2.ts"))
          const renamed = yield* check("**/*")
          assert.include(renamed, join(root, "src/a2.ts"))
          assert.notInclude(renamed, join(root, "src/a.ts"))
          renameSync(join(root, "src/deep"), join(root, "src/deeper"))
          const moved = yield* check("**/*.ts")
          assert.include(moved, join(root, "src/deeper/c.ts"))
          assert.notInclude(moved, join(root, "src/deep/c.ts"))
          // An ignore rule added: the file leaves the listing.
          writeFileSync(join(root, ".gitignore"), "*.log\nignored/\n")
          assert.notInclude(yield* check("**/*"), join(root, "ignored/new.ts"))
          // And once settled, a later call is answered from the index again, still true.
          settle(root, ["src", "src/deeper", "docs", "ignored", "empty", "fresh", "fresh/dir"])
          yield* check("**/*")
          assert.strictEqual(yield* untilServed(indexed, "**/*"), yield* fresh.glob("**/*"))

          // A searched directory replaced by another one of the same name: the new tree is listed.
          write(root, "sub/one.ts", "1", OLD + 1)
          settle(root, ["sub"])
          assert.strictEqual(yield* untilServed(indexed, "**/*", "sub"), join(root, "sub/one.ts"))
          renameSync(join(root, "sub"), join(root, "sub-old"))
          write(root, "sub/two.ts", "2", OLD + 2)
          settle(root, ["sub"])
          assert.strictEqual(yield* indexed.glob("**/*", "sub"), join(root, "sub/two.ts"))

          // Rules from outside the searched directory: an ignore file above it, a repository's exclude file.
          write(root, "sub/three.ts", "3", OLD + 3)
          settle(root, ["sub"])
          assert.strictEqual((yield* untilServed(indexed, "**/*", "sub")).split("\n")[0], join(root, "sub/three.ts"))
          writeFileSync(join(root, ".gitignore"), "*.log\nignored/\nthree.ts\n")
          assert.strictEqual(yield* indexed.glob("**/*", "sub"), join(root, "sub/two.ts"))
          mkdirSync(join(root, ".git/info"), { recursive: true })
          writeFileSync(join(root, ".git/info/exclude"), "")
          settle(root, [".git", ".git/info"])
          assert.strictEqual(yield* untilServed(indexed, "**/*", "sub"), join(root, "sub/two.ts"))
          writeFileSync(join(root, ".git/info/exclude"), "two.ts\n")
          assert.strictEqual(yield* indexed.glob("**/*", "sub"), yield* fresh.glob("**/*", "sub"))
          assert.notInclude(yield* indexed.glob("**/*", "sub"), "two.ts")
        } finally {
          yield* Effect.promise(() => indexed.dispose())
          yield* Effect.promise(() => fresh.dispose())
        }
      })
    ))
  it.live("a change made right after a session's first call (while the index fills) is seen by the next calls", () =>
    withTree((root) =>
      Effect.gen(function*() {
        write(root, "src/a.ts", "a", OLD + 10)
        write(root, "src/b.ts", "b", OLD + 20)
        write(root, "lib/c.ts", "c", OLD + 30)
        write(root, ".gitignore", "*.log\n", OLD)
        settle(root, ["src", "lib"])
        const indexed = session(root, true)
        const fresh = session(root, false)
        try {
          assert.strictEqual((yield* indexed.glob("**/*")).split("\n")[0], join(root, "lib/c.ts"))
          // At once, and dated back as an archive's extraction would: no mtime says anything changed.
          write(root, "src/new.ts", "n", OLD + 40)
          writeFileSync(join(root, "lib/c.ts"), "c2")
          utimesSync(join(root, "lib/c.ts"), OLD + 5, OLD + 5)
          writeFileSync(join(root, ".gitignore"), "*.log\nb.ts\n")
          utimesSync(join(root, ".gitignore"), OLD, OLD)
          settle(root, ["src", "lib"])
          const expected = ["src/new.ts", "src/a.ts", "lib/c.ts", ".gitignore"].map((rel) => join(root, rel)).join("\n")
          assert.strictEqual(yield* fresh.glob("**/*"), expected)
          assert.strictEqual(yield* indexed.glob("**/*"), expected)
          assert.strictEqual(yield* untilServed(indexed, "**/*"), expected)

          // Served again while nothing changes (another pattern's walk in between); an edit is seen
          // at once, still without a walk.
          assert.strictEqual(yield* indexed.glob("**/*.ts"), yield* fresh.glob("**/*.ts"))
          const quiet = indexed.counter.spawned
          assert.strictEqual(yield* indexed.glob("**/*"), expected)
          assert.strictEqual(yield* indexed.glob("**/*"), expected)
          writeFileSync(join(root, "lib/c.ts"), "c3")
          utimesSync(join(root, "lib/c.ts"), OLD + 50, OLD + 50)
          const edited = ["lib/c.ts", "src/new.ts", "src/a.ts", ".gitignore"].map((rel) => join(root, rel)).join("\n")
          assert.strictEqual(yield* indexed.glob("**/*"), edited)
          assert.strictEqual(yield* fresh.glob("**/*"), edited)
          assert.strictEqual(indexed.counter.spawned, quiet, "answered from the index")
        } finally {
          yield* Effect.promise(() => indexed.dispose())
          yield* Effect.promise(() => fresh.dispose())
        }
      })
    ))
})
