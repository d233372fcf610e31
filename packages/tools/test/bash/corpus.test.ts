/** Runs the security corpus (corpus.ts): exactly the requests each command makes. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { corpus } from "./corpus.ts"
import { analysisLayer, asked } from "./support.ts"

describe("bash security corpus", () => {
  it("has at least 80 commands covering every category", () => {
    assert.isAtLeast(corpus.length, 80)
    const categories = new Set(corpus.map((x) => x.category))
    for (
      const k of [
        "chain", "substitution", "wrapper", "redirect", "external", "cd", "parse",
        "kernel", "braces", "link", "stdin", "unwrap", "hidden", "delete", "output", "shell-eval", "runs-code", "written"
      ]
    ) assert.isTrue(categories.has(k), k)
  })

  for (const entry of corpus) {
    it.effect(`${entry.category}: ${JSON.stringify(entry.command)}`, () =>
      Effect.gen(function*() {
        const actual = yield* asked(entry.command, entry.cwd)
        assert.deepStrictEqual(actual, entry.asks)
      }).pipe(Effect.provide(analysisLayer())))
  }
})
