import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import * as LineWindow from "../src/LineWindow.ts"
import * as SpillStorage from "../src/SpillStorage.ts"
import type { Direction, Options, Result } from "../src/Truncate.ts"
import * as Utf8 from "../src/Utf8.ts"
import * as Workspace from "../src/Workspace.ts"
import { assertSameBytes, lines, prng, readSpill, TOKENS, utf8, withTruncate } from "./TruncateHarness.ts"

const directions: ReadonlyArray<Direction> = ["head", "tail", "head+tail"]
const Node = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

const comparable = (r: Result) => ({
  ...r,
  content: r.outputPath === undefined ? r.content : r.content.split(r.outputPath).join("<spill>"),
  outputPath: r.outputPath === undefined ? undefined : "<spill>"
})


describe("measuring long texts on their encoding", () => {
  it("bytes and lines equal the string scans, a surrogate pair across a slice boundary included", () => {
    const long = "a".repeat((1 << 20) - 1) + "🙂\n" + "日本\n".repeat(300_000) + "\uD800 lone\nend"
    const m = LineWindow.measure(long)
    assert.strictEqual(m.bytes, Utf8.byteLength(long))
    assert.strictEqual(m.lines, long.split("\n").length)
    assert.deepStrictEqual(Utf8.measureEncoded("x\ny🙂\n"), { bytes: 8, newlines: 2 })
  })
})

describe("Truncate.outputBytes", () => {
  it.effect("property: the same result as output() on the decoded text", () =>
    withTruncate({}, (h) =>
      Effect.gen(function*() {
        for (let seed = 1; seed <= 300; seed++) {
          const rand = prng(seed)
          const pick = (n: number) => Math.floor(rand() * n)
          const text = Array.from({ length: pick(60) }, () => TOKENS[pick(TOKENS.length)]).join("")
          const options: Options = { maxLines: pick(9), maxBytes: pick(90), direction: directions[pick(3)]! }
          const fromBytes = yield* h.truncate.outputBytes!(utf8(text), options)
          assert.deepStrictEqual(comparable(fromBytes), comparable(yield* h.truncate.output(text, options)), `seed ${seed}`)
          if (fromBytes.truncated) assertSameBytes(yield* readSpill(h.spill, fromBytes.outputPath!), utf8(text))
        }
      })))

  it.effect("a long output: preview from the two ends, the spill the bytes as given", () =>
    withTruncate({}, (h) =>
      Effect.gen(function*() {
        const text = lines(200_000).map((l) => `${l} 日本 🙂`).join("\n")
        for (const direction of directions) {
          const r = yield* h.truncate.outputBytes!(utf8(text), { direction })
          assert.deepStrictEqual(comparable(r), comparable(yield* h.truncate.output(text, { direction })))
          assert.include(r, { truncated: true, totalLines: 200_000 })
          assertSameBytes(yield* readSpill(h.spill, r.outputPath!), utf8(text))
        }
      })))
})

describe("spills written in the background", () => {
  it.effect("the path comes back at once; ready() waits for the whole file; closing the store waits too", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "agent-tools-background-"))),
      (dir) =>
        Effect.gen(function*() {
          const content = "0123456789\n".repeat(2_000_000) // 22 MB: the writer, not one writeFile
          const [first, second] = yield* Effect.scoped(Effect.gen(function*() {
            const spill = yield* SpillStorage.SpillStorage
            const a = yield* spill.writeInBackground!(content)
            yield* spill.ready!(a)
            assert.strictEqual(readFileSync(a, "utf8"), content)
            yield* spill.ready!(join(dir, "not-a-spill")) // nothing pending: returns at once
            const b = yield* spill.writeInBackground!(utf8("last words\n"))
            return [a, b] as const
          }).pipe(Effect.provide(SpillStorage.layer({ dir }).pipe(Layer.provide(Node)))))
          // The store was closed right after the second write began: it was finished, not dropped.
          assert.isTrue(existsSync(first))
          assert.strictEqual(readFileSync(second, "utf8"), "last words\n")
        }),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ))

  it.effect("Workspace.resolve of a spill still being written waits for it (read and grep see it whole)", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "agent-tools-background-"))),
      (dir) =>
        Effect.gen(function*() {
          const content = "x".repeat(30_000_000)
          const spill = yield* SpillStorage.SpillStorage
          const workspace = yield* Workspace.Workspace
          const p = yield* spill.writeInBackground!(content)
          const resolved = yield* workspace.resolve(p)
          assert.include(resolved, { exists: true, spill: true })
          assert.strictEqual(readFileSync(p).length, 30_000_000)
        }).pipe(
          Effect.provide(
            Workspace.layerWithSpillStorage({ root: dir }).pipe(
              Layer.provideMerge(SpillStorage.layer({ dir: join(dir, "spill") })),
              Layer.provide(Node)
            )
          )
        ),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ))
})
