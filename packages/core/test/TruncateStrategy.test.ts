import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as Events from "../src/Events.ts"
import * as SpillStorage from "../src/SpillStorage.ts"
import * as Truncate from "../src/Truncate.ts"
import * as Strategy from "../src/TruncationStrategy.ts"
import { readSpill, utf8 } from "./TruncateHarness.ts"

/**
 * A JSON-aware strategy, as a user would write one: a JSON array becomes its length plus the
 * first items that fit, as valid JSON; anything else goes to the line strategy.
 */
const jsonArrays: Strategy.TruncationStrategy = {
  name: "json-arrays",
  preview: (text, limits, notice) => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return Strategy.lines.preview(text, limits, notice)
    }
    if (!Array.isArray(value)) return Strategy.lines.preview(text, limits, notice)
    const kept: Array<unknown> = []
    let size = 2
    for (const item of value) {
      const json = JSON.stringify(item)
      if (size + json.length + 1 > limits.maxBytes) break
      kept.push(item)
      size += json.length + 1
    }
    const removed = { lines: 0, bytes: notice.totalBytes - size }
    return {
      content: `${notice.marker(removed, `the first ${kept.length} of ${value.length} items`)}\n${JSON.stringify(kept)}\n\n${notice.hint}`,
      removedLines: 0,
      removedBytes: removed.bytes
    }
  }
}

const run = <A, E>(strategy: Layer.Layer<never> | undefined, body: (t: Truncate.Truncate["Service"], spill: SpillStorage.SpillStorage["Service"]) => Effect.Effect<A, E>) => {
  const base = Truncate.layer({ maxBytes: 200, maxLines: 50 })
  const truncate = strategy === undefined ? base : base.pipe(Layer.provide(strategy))
  return Effect.gen(function*() {
    return yield* body(yield* Truncate.Truncate, yield* SpillStorage.SpillStorage)
  }).pipe(Effect.provide(truncate.pipe(Layer.provideMerge(Layer.merge(SpillStorage.layerMemory(), Events.layerNoop)))))
}

const items = JSON.stringify(Array.from({ length: 100 }, (_, id) => ({ id, name: `item ${id}` })))

describe("TruncationStrategy", () => {
  it("defaults to the line strategy", () => {
    assert.strictEqual(Strategy.TruncationStrategy.defaultValue().name, "lines")
  })

  it.effect("a custom strategy provided as a layer shapes the preview; spill and notice stay Truncate's", () =>
    run(Layer.succeed(Strategy.TruncationStrategy, jsonArrays), (truncate, spill) =>
      Effect.gen(function*() {
        const r = yield* truncate.output(items)
        assert.isTrue(r.truncated)
        assert.isTrue(r.content.startsWith("[Output truncated: "))
        assert.include(r.content, "showing the first 7 of 100 items")
        const preview = JSON.parse(r.content.split("\n")[1]!) as Array<{ id: number }>
        assert.deepStrictEqual(preview.map((i) => i.id), [0, 1, 2, 3, 4, 5, 6])
        assert.include(r.content, `Full output saved to: ${r.outputPath}`)
        assert.deepStrictEqual(yield* readSpill(spill, r.outputPath!), utf8(items))
        // Not JSON: the strategy hands over to lines.
        const text = Array.from({ length: 80 }, (_, i) => `row ${i}`).join("\n")
        assert.include((yield* truncate.output(text)).content, "row 0\nrow 1\n")
        // Within the limits the strategy is never asked.
        assert.strictEqual((yield* truncate.output("[1,2]")).content, "[1,2]")
      })))

  it.effect("a strategy that throws falls back to whole lines", () =>
    run(
      Layer.succeed(Strategy.TruncationStrategy, {
        name: "broken",
        preview: () => {
          throw new Error("bug in a plugin")
        }
      }),
      (truncate) =>
        Effect.gen(function*() {
          const r = yield* truncate.output(Array.from({ length: 80 }, (_, i) => `row ${i}`).join("\n"))
          assert.isTrue(r.truncated)
          assert.include(r.content, "showing the first 30 of 80 lines")
          assert.include(r.content, "\nrow 0\nrow 1\n")
        })
    ))

  it.effect("streams keep the line strategy (bounded memory)", () =>
    run(Layer.succeed(Strategy.TruncationStrategy, jsonArrays), (truncate) =>
      Effect.gen(function*() {
        const r = yield* truncate.stream(Stream.make(items))
        assert.include(r.content, "showing the first 1 (line 1 cut) of 1 lines")
      })))
})
