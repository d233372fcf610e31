import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { SpillStorage } from "@agent-tools/core"
import { Testing } from "@agent-tools/testing"
import { GrepTool, ReadTool } from "@agent-tools/tools"

/** A store without files whose reads arrive in `size`-byte chunks: lines and characters split across them. */
const chunkedMemory = (size: number) =>
  Layer.effect(
    SpillStorage.SpillStorage,
    SpillStorage.SpillStorage.use((inner) => Effect.succeed({
      ...inner,
      read: (p: string) =>
        inner.read(p).pipe(Stream.flatMap((bytes) =>
          Stream.fromIterable(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)))
        ))
    }))
  ).pipe(Layer.provide(SpillStorage.layerMemory()))

const CONTENT = "first line\nneedle one\r\nno\n日本 needle 🙂\n" + "filler\n".repeat(50) + "last needle without newline"

const withSpill = <A, E>(body: (spill: SpillStorage.SpillStorage["Service"]) => Effect.Effect<A, E, Testing.Services>) =>
  SpillStorage.SpillStorage.use(body).pipe(
    Effect.provide(Testing.layer({ tools: [GrepTool, ReadTool], spill: chunkedMemory(5), files: { "out.txt": CONTENT } }))
  )

describe("grep on a spill of a store without files", () => {
  it.effect("streams the spill and answers as grep does on the same text in a file", () =>
    withSpill((spill) =>
      Effect.gen(function*() {
        const ref = yield* spill.write(CONTENT)
        const onSpill = yield* Testing.call("grep", { pattern: "needle", path: ref })
        const onFile = yield* Testing.call("grep", { pattern: "needle", path: "out.txt" })
        assert.strictEqual(
          onSpill.output,
          ["Found 3 matches", `${ref}:`, "  Line 2: needle one", "  Line 4: 日本 needle 🙂", "  Line 55: last needle without newline"].join("\n")
        )
        assert.strictEqual(onSpill.output, onFile.output.replace("/ws/out.txt", ref))
        assert.deepStrictEqual(onSpill.metadata, { matches: 3, files: 1, shown: 3, skipped: 0, truncated: false })
      })))

  it.effect("past 100 matches: the first 100 shown and the total counted over the whole spill", () =>
    withSpill((spill) =>
      Effect.gen(function*() {
        const ref = yield* spill.write(Array.from({ length: 250 }, (_, i) => `hit ${i + 1}`).join("\n"))
        const result = yield* Testing.call("grep", { pattern: "^hit", path: ref })
        const lines = result.output.split("\n")
        assert.deepStrictEqual(lines.slice(0, 3), ["Found 250 matches in 1 file (showing the first 100)", `${ref}:`, "  Line 1: hit 1"])
        assert.strictEqual(lines[101], "  Line 100: hit 100")
        assert.strictEqual(
          lines.at(-1),
          "(Results truncated: showing 100 of 250 matches (150 more), newest files first. Use a more specific path, include or pattern to see the rest.)"
        )
      })))

  it.effect("no match, a bad pattern and a spill that is gone are answered as on files", () =>
    withSpill((spill) =>
      Effect.gen(function*() {
        const ref = yield* spill.write(CONTENT)
        assert.strictEqual((yield* Testing.call("grep", { pattern: "absent", path: ref })).output, "No files found")
        const bad = yield* Effect.flip(Testing.call("grep", { pattern: "(", path: ref }))
        assert.include(bad.message, "Escape regex special characters")
        const gone = ref.replace(/_[0-9A-Za-z]{10}$/, "_0000000000")
        const missing = yield* Effect.flip(Testing.call("grep", { pattern: "x", path: gone }))
        assert.strictEqual(missing.message, `The spilled output ${gone} has expired or was cleaned up; run the tool again to get it.`)
      })))
})
