/**
 * The built-in `json` and `bytes` strategies through `Truncate.output`: JSON stays valid JSON of
 * the same shape (arrays stay arrays with a count of what was dropped, objects keep their keys),
 * within the limits, with the notice inside; bytes fills the budget at a character boundary.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as LineWindow from "../src/LineWindow.ts"
import { NOTICE_KEY } from "../src/TruncationJson.ts"
import { withTruncate } from "./TruncateHarness.ts"

const HINT = "Use Grep to search the full content or Read with offset/limit to view specific sections."
const notice = (removed: string, left: string, path: string | undefined) =>
  `[Output truncated: ${removed} omitted; showing a valid JSON preview (left out: ${left}). Full output: ${path}]\n` +
  `The tool call succeeded but the output was truncated. Full output saved to: ${path}\n${HINT}`

const items = JSON.stringify(Array.from({ length: 100 }, (_, id) => ({ id, name: `item ${id}` })))
const item = (id: number) => ({ id, name: `item ${id}` })

describe("json strategy", () => {
  it.effect("a cut array stays an array: the notice first, the dropped items counted where they were", () =>
    withTruncate({ maxBytes: 200, strategy: "json" }, ({ truncate }) =>
      Effect.gen(function*() {
        const head = yield* truncate.output(items)
        assert.deepStrictEqual(JSON.parse(head.content), [
          notice("2508 bytes", "94 array items", head.outputPath),
          ...[0, 1, 2, 3, 4, 5].map(item),
          "[… 94 more items]"
        ])
        const tail = yield* truncate.output(items, { direction: "tail" })
        assert.deepStrictEqual(JSON.parse(tail.content), [
          notice("2496 bytes", "94 array items", tail.outputPath),
          "[… 94 more items]",
          ...[94, 95, 96, 97, 98, 99].map(item)
        ])
        const both = yield* truncate.output(items, { direction: "head+tail" })
        assert.deepStrictEqual(JSON.parse(both.content).slice(1), [item(0), "[… 94 more items]", ...[95, 96, 97, 98, 99].map(item)])
      })))

  it.effect("an object keeps every key, with long values cut; indentation is kept; the result fits", () =>
    withTruncate({ maxBytes: 300, strategy: "json" }, ({ truncate }) =>
      Effect.gen(function*() {
        const value = {
          name: "x",
          log: "y".repeat(500),
          items: Array.from({ length: 50 }, (_, i) => i),
          nested: { a: "z".repeat(300), b: 1 }
        }
        const r = yield* truncate.output(JSON.stringify(value, null, 2))
        const parsed = JSON.parse(r.content) as Record<string, unknown>
        assert.deepStrictEqual(Object.keys(parsed), [NOTICE_KEY, "name", "log", "items", "nested"])
        assert.strictEqual(parsed[NOTICE_KEY], notice("38 lines (1012 bytes)", "39 array items, 777 characters of strings", r.outputPath))
        assert.strictEqual(parsed.log, `${"y".repeat(23)}… [477 more characters]`)
        assert.deepStrictEqual(parsed.items, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "[… 39 more items]"])
        assert.deepStrictEqual(parsed.nested, { a: "… [300 more characters]", b: 1 })
        assert.isTrue(r.content.startsWith(`{\n  "${NOTICE_KEY}": `))
        // Without the notice, the preview is within the byte limit.
        const { [NOTICE_KEY]: _notice, ...rest } = parsed
        assert.isAtMost(new TextEncoder().encode(JSON.stringify(rest, null, 2)).length, 300)
      })))

  it.effect("the line limit holds for pretty-printed JSON", () =>
    withTruncate({ maxLines: 20, strategy: "json" }, ({ truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.output(JSON.stringify(Array.from({ length: 5000 }, (_, i) => i), null, 2))
        const parsed = JSON.parse(r.content) as Array<unknown>
        assert.deepStrictEqual(parsed.slice(1), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "[… 4988 more items]"])
        assert.isAtMost(LineWindow.measure(JSON.stringify(parsed.slice(1), null, 2)).lines, 20)
      })))

  it.effect("when not even one item fits, the array is empty but for the notice counting all of them", () =>
    withTruncate({ maxBytes: 4, strategy: "json" }, ({ truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.output(JSON.stringify([{ a: 1 }, { b: 2 }, { c: 3 }]))
        assert.deepStrictEqual(JSON.parse(r.content), [notice("23 bytes", "3 array items", r.outputPath)])
        const o = yield* truncate.output(JSON.stringify({ alpha: 1, beta: 2 }))
        assert.deepStrictEqual(JSON.parse(o.content), { [NOTICE_KEY]: notice("18 bytes", "2 object keys", o.outputPath) })
      })))

  it.effect("text that is not a JSON array or object goes to the line strategy", () =>
    withTruncate({ maxLines: 2, strategy: "json" }, ({ truncate }) =>
      Effect.gen(function*() {
        assert.include((yield* truncate.output("a\nb\nc\nd")).content, "\na\nb\n\n... 2 lines truncated ...")
        assert.include((yield* truncate.output("\"a\\nb\"\n1\n2")).content, "\n\"a\\nb\"\n1\n\n... 1 lines truncated ...")
      })))
})

describe("bytes strategy", () => {
  it.effect("fills the byte budget at a character boundary, in each direction", () =>
    withTruncate({ maxBytes: 10, strategy: "bytes" }, ({ truncate }) =>
      Effect.gen(function*() {
        const text = "ééééé\nabcdefghij\nxyz" // 10 + 1 + 10 + 1 + 3 bytes
        const head = yield* truncate.output(text)
        assert.isTrue(head.content.startsWith(
          `[Output truncated: 2 lines (15 bytes) omitted; showing the first 1 of 3 lines. Full output: ${head.outputPath}]\nééééé\n\n`
        ))
        const cut = yield* truncate.output("ééééé\nabc", { maxBytes: 9 })
        assert.include(cut.content, "showing the first 1 (line 1 cut) of 2 lines")
        assert.include(cut.content, "]\néééé\n\n... 1 lines truncated ...")
        const tail = yield* truncate.output(text, { direction: "tail" })
        assert.isTrue(tail.content.endsWith(`${HINT}\n\n... 1 lines truncated ...\n\nefghij\nxyz`))
        assert.include(tail.content, "showing the last 2 (line 2 cut) of 3 lines")
        const both = yield* truncate.output(text, { direction: "head+tail" })
        // 20% of the bytes to the head: one 2-byte character; the tail gets the rest.
        assert.include(both.content, "showing the first 1 (line 1 cut) and the last 2 (line 2 cut) of 3 lines")
        assert.include(both.content, "]\né\n\n... 15 bytes truncated ...\n\nghij\nxyz\n\n")
      })))
})
