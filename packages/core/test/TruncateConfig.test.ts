/**
 * Truncate's configuration surface: the precedence of its levels (built-in < the tool's own <
 * global < per tool < per call), changes at runtime (`update`, `setToolConfig`), and choosing a
 * strategy by name at each level.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Truncate from "../src/Truncate.ts"
import { lines, withTruncate } from "./TruncateHarness.ts"

const text = lines(10).join("\n") // line 1 … line 10

/** The preview lines between the marker and the elision/hint (whatever the direction). */
const shownLines = (content: string): Array<string> => content.split("\n").filter((l) => /^line \d+$/.test(l))

describe("Truncate configuration", () => {
  it.effect("precedence: built-in < the tool's own < global < per tool < per call", () =>
    withTruncate({}, ({ truncate }) =>
      Effect.gen(function*() {
        const own: Truncate.Settings = { direction: "head+tail", maxLines: 5 }
        assert.deepStrictEqual(truncate.limits(), Truncate.defaults)
        assert.deepStrictEqual(truncate.limits({ tool: "bash", toolDefaults: own }), { maxLines: 5, maxBytes: 51200, direction: "head+tail" })
        yield* truncate.update({ direction: "head" })
        assert.deepStrictEqual(truncate.limits({ tool: "bash", toolDefaults: own }), { maxLines: 5, maxBytes: 51200, direction: "head" })
        yield* truncate.setToolConfig("bash", { direction: "tail" })
        assert.deepStrictEqual(truncate.limits({ tool: "bash", toolDefaults: own }), { maxLines: 5, maxBytes: 51200, direction: "tail" })
        assert.deepStrictEqual(truncate.limits({ tool: "bash", toolDefaults: own, direction: "head+tail", maxLines: 3 }), {
          maxLines: 3,
          maxBytes: 51200,
          direction: "head+tail"
        })
        // Another tool is not affected by bash's overrides.
        assert.deepStrictEqual(truncate.limits({ tool: "read" }), { maxLines: 2000, maxBytes: 51200, direction: "head" })
      })))

  it.effect("update changes the limits of the next calls; keys left out are kept", () =>
    withTruncate({ maxLines: 4, direction: "tail" }, ({ truncate }) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(shownLines((yield* truncate.output(text)).content), ["line 7", "line 8", "line 9", "line 10"])
        yield* truncate.update({ maxLines: 2 })
        assert.deepStrictEqual(yield* truncate.config, { maxLines: 2, direction: "tail" })
        assert.deepStrictEqual(shownLines((yield* truncate.output(text)).content), ["line 9", "line 10"])
        yield* truncate.update({ maxLines: 20 })
        assert.isFalse((yield* truncate.output(text)).truncated)
      })))

  it.effect("setToolConfig replaces one tool's overrides, undefined removes them", () =>
    withTruncate({ maxLines: 4, tools: { grep: { maxLines: 3 } } }, ({ events, truncate }) =>
      Effect.gen(function*() {
        yield* truncate.setToolConfig("bash", { maxLines: 2, direction: "tail" })
        assert.deepStrictEqual(shownLines((yield* truncate.output(text, { tool: "bash" })).content), ["line 9", "line 10"])
        assert.deepStrictEqual(shownLines((yield* truncate.output(text, { tool: "grep" })).content), ["line 1", "line 2", "line 3"])
        yield* truncate.setToolConfig("bash", { disabled: true })
        assert.strictEqual((yield* truncate.output(text, { tool: "bash" })).content, text)
        assert.deepStrictEqual(events.at(-1), { _tag: "TruncationSkipped", tool: "bash", reason: "truncation disabled for this tool" })
        yield* truncate.setToolConfig("bash", undefined)
        assert.deepStrictEqual(shownLines((yield* truncate.output(text, { tool: "bash" })).content), ["line 1", "line 2", "line 3", "line 4"])
        assert.deepStrictEqual(yield* truncate.config, { maxLines: 4, tools: { grep: { maxLines: 3 } } })
      })))

  it.effect("the strategy is chosen by name: global, per tool, per call; the tool's own below config", () =>
    withTruncate({ maxBytes: 40, maxLines: 100, tools: { api: { strategy: "json" } } }, ({ truncate }) =>
      Effect.gen(function*() {
        const long = `${"a".repeat(30)}\n${"b".repeat(30)}`
        // lines: one line does not fit beside the first, so only the first is shown.
        assert.include((yield* truncate.output(long)).content, `\n${"a".repeat(30)}\n\n... 1 lines truncated ...`)
        // bytes: the budget is filled, the second line cut.
        const bytes = (yield* truncate.output(long, { strategy: "bytes" })).content
        assert.include(bytes, `\n${"a".repeat(30)}\n${"b".repeat(9)}\n\n... 21 bytes truncated ...`)
        const array = JSON.stringify(Array.from({ length: 20 }, (_, i) => i))
        const json = yield* truncate.output(array, { tool: "api" })
        assert.isTrue(Array.isArray(JSON.parse(json.content)))
        // A tool's own choice ranks below the configuration of that tool.
        assert.isTrue(Array.isArray(JSON.parse((yield* truncate.output(array, { tool: "api", toolDefaults: { strategy: "lines" } })).content)))
        assert.isTrue((yield* truncate.output(array, { tool: "other", toolDefaults: { strategy: "json" } })).content.startsWith("[\"[Output truncated"))
        yield* truncate.update({ strategy: "bytes" })
        assert.include((yield* truncate.output(long)).content, `${"b".repeat(9)}\n\n... 21 bytes truncated ...`)
      })))
})
