import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { Truncate } from "@agent-tools/core"

describe("Truncate.layerNoop", () => {
  it.effect("returns every output whole with its totals; a stream is decoded across chunk edges", () =>
    Effect.gen(function*() {
      const truncate = yield* Truncate.Truncate
      const text = "a\n".repeat(5000)
      const out = yield* truncate.output(text)
      assert.deepStrictEqual([out.content === text, out.truncated, out.totalLines, out.totalBytes], [true, false, 5000, 10000])
      const euro = new TextEncoder().encode("€")
      const streamed = yield* truncate.stream(Stream.make(euro.slice(0, 1), euro.slice(1), "!"))
      assert.strictEqual(streamed.content, "€!")
      assert.deepStrictEqual(truncate.limits(), Truncate.defaults)
    }).pipe(Effect.provide(Truncate.layerNoop())))

  it.effect("the operations a test gives replace the no-op ones", () =>
    Effect.gen(function*() {
      const truncate = yield* Truncate.Truncate
      assert.deepStrictEqual(truncate.limits(), { maxLines: 1, maxBytes: 1, direction: "tail" })
      assert.isFalse((yield* truncate.output("kept")).truncated)
    }).pipe(Effect.provide(Truncate.layerNoop({ limits: () => ({ maxLines: 1, maxBytes: 1, direction: "tail" }) }))))
})
