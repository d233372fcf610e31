import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { Ripgrep } from "@agent-tools/core"
import * as NodeStat from "../src/NodeStat.ts"

describe("NodeStat.statBatch", () => {
  it.effect("the mtime of each regular file, undefined for a directory or a missing path, in order", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "agent-tools-stat-"))),
      (dir) =>
        Effect.gen(function*() {
          const names = Array.from({ length: 100 }, (_, i) => `f${i}.txt`)
          names.forEach((n, i) => {
            writeFileSync(join(dir, n), n)
            utimesSync(join(dir, n), 1_000_000 + i, 1_000_000 + i)
          })
          mkdirSync(join(dir, "sub"))
          const paths = ["sub", ...names, "missing.txt"]
          const mtimes = yield* NodeStat.statBatch(dir, paths)
          assert.deepStrictEqual(mtimes, [undefined, ...names.map((_, i) => (1_000_000 + i) * 1000), undefined])
          assert.strictEqual(mtimes[1], statSync(join(dir, "f0.txt")).mtimeMs)
          assert.deepStrictEqual(yield* NodeStat.statBatch(dir, []), [])
          // As Ripgrep's mtimes: files only, in the order given.
          const listed = yield* Stream.runCollect(Ripgrep.batchMtimes(NodeStat.statBatch)(dir, Stream.fromIterable(["sub", "f1.txt", "f0.txt"])))
          assert.deepStrictEqual(listed, [{ path: "f1.txt", mtime: 1_000_001_000 }, { path: "f0.txt", mtime: 1_000_000_000 }])
        }),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ))
})
