import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as SpillStorage from "../src/SpillStorage.ts"
import type { Direction } from "../src/Truncate.ts"
import { assertSameBytes, bytesOf, failingSpill, lines, readSpill, utf8, withTruncate } from "./TruncateHarness.ts"

const HINT_RG = "Use Grep to search the full content or Read with offset/limit to view specific sections."
const saved = (path: string | undefined) =>
  `The tool call succeeded but the output was truncated. Full output saved to: ${path}\n${HINT_RG}`
const directions: ReadonlyArray<Direction> = ["head", "tail", "head+tail"]

describe("Truncate.output", () => {
  it.effect("a spill cut at the store's maxBytes: the marker and the hint say only the first bytes were saved", () =>
    withTruncate({ maxLines: 2 }, ({ spill, truncate }) =>
      Effect.gen(function*() {
        const text = "1\n2\n3\n4\n5\n6" // 11 bytes
        for (const r of [yield* truncate.output(text), yield* truncate.stream(Stream.make("1\n2\n3\n", "4\n5\n6"))]) {
          const path = r.outputPath!
          assert.strictEqual(
            r.content,
            `[Output truncated: 4 lines (8 bytes) omitted; showing the first 2 of 6 lines. First 8 bytes of the output: ${path}]\n` +
              "1\n2\n\n... 4 lines truncated ...\n\n" +
              "The tool call succeeded but the output was truncated. Only the first 8 of 11 bytes were saved " +
              `(the spill size limit), to: ${path}\n${HINT_RG}`
          )
          assert.strictEqual(new TextDecoder().decode(yield* readSpill(spill, path)), "1\n2\n3\n4\n\n[spill truncated at 8 bytes]\n")
        }
        // Within the cap the notice is the usual one.
        const fits = yield* truncate.output("1\n2\n3")
        assert.isTrue(fits.content.endsWith(saved(fits.outputPath)))
        assert.include(fits.content, `Full output: ${fits.outputPath}]`)
      }), SpillStorage.layerMemory({ maxBytes: 8 })))

  it.effect("returns text within the limits unchanged: no spill, no event", () =>
    withTruncate({ maxLines: 3 }, ({ events, spill, truncate }) =>
      Effect.gen(function*() {
        const text = "a\nb\nc\n" // a trailing newline is not a fourth line
        const r = yield* truncate.output(text)
        assert.deepStrictEqual(r, {
          content: text,
          truncated: false,
          totalBytes: 6,
          totalLines: 3,
          removedLines: 0,
          removedBytes: 0
        })
        assert.strictEqual((yield* spill.list).length, 0)
        assert.strictEqual(events.length, 0)
      })))

  it.effect("empty text and a lone newline", () =>
    withTruncate({ maxLines: 1, maxBytes: 1 }, ({ truncate }) =>
      Effect.gen(function*() {
        assert.include(yield* truncate.output(""), { truncated: false, totalLines: 0, totalBytes: 0 })
        assert.include(yield* truncate.output("\n"), { truncated: false, totalLines: 1, totalBytes: 1 })
        assert.include(yield* truncate.output("ab\n"), { truncated: true, totalLines: 1, totalBytes: 3 })
      })))

  it.effect("head: first whole lines, elision, then the reference hint", () =>
    withTruncate({ maxLines: 3 }, ({ truncate }) =>
      Effect.gen(function*() {
        const text = lines(10).join("\n") + "\n"
        const r = yield* truncate.output(text)
        const p = r.outputPath
        assert.strictEqual(
          r.content,
          `[Output truncated: 7 lines (51 bytes) omitted; showing the first 3 of 10 lines. Full output: ${p}]\n` +
            `line 1\nline 2\nline 3\n\n... 7 lines truncated ...\n\n${saved(p)}`
        )
        assert.include(r, { truncated: true, totalLines: 10, totalBytes: 71, removedLines: 7, removedBytes: 51 })
      })))

  it.effect("tail: hint first, then the last whole lines", () =>
    withTruncate({ maxLines: 3, direction: "tail" }, ({ truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.output(lines(10).join("\n"))
        const p = r.outputPath
        assert.strictEqual(
          r.content,
          `[Output truncated: 7 lines (49 bytes) omitted; showing the last 3 of 10 lines. Full output: ${p}]\n` +
            `${saved(p)}\n\n... 7 lines truncated ...\n\nline 8\nline 9\nline 10`
        )
      })))

  it.effect("head+tail: 20% of the budget to the head, the rest to the tail, elision between", () =>
    withTruncate({ maxLines: 10, direction: "head+tail" }, ({ truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.output(lines(30).join("\n") + "\n")
        const p = r.outputPath
        assert.strictEqual(
          r.content,
          `[Output truncated: 20 lines (155 bytes) omitted; showing the first 2 and the last 8 of 30 lines. Full output: ${p}]\n` +
            `line 1\nline 2\n\n... 20 lines truncated ...\n\n${lines(8, 23).join("\n")}\n\n${saved(p)}`
        )
        assert.include(r, { removedLines: 20, removedBytes: 155 })
      })))

  it.effect("byte budget: the newline is charged to the following line", () =>
    withTruncate({ maxBytes: 14 }, ({ truncate }) =>
      Effect.gen(function*() {
        const text = "aaaa\n".repeat(5) // 4 + 5 + 5 = 14 bytes for three lines
        const head = yield* truncate.output(text)
        assert.include(head.content, "\naaaa\naaaa\naaaa\n\n... 2 lines truncated ...")
        assert.include(head, { removedLines: 2, removedBytes: 25 - 14 })
        const tail = yield* truncate.output(text, { direction: "tail" })
        assert.isTrue(tail.content.endsWith("\n\naaaa\naaaa\naaaa"))
      })))

  it.effect("limits: defaults < global < per-tool < per-call", () =>
    withTruncate({ maxLines: 100, tools: { bash: { maxLines: 10, direction: "tail" }, mcp_x: { maxBytes: 500_000 } } }, ({ truncate }) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(truncate.limits(), { maxLines: 100, maxBytes: 51200, direction: "head" })
        assert.deepStrictEqual(truncate.limits({ tool: "bash" }), { maxLines: 10, maxBytes: 51200, direction: "tail" })
        assert.deepStrictEqual(truncate.limits({ tool: "bash", maxLines: 5, direction: "head+tail" }), {
          maxLines: 5,
          maxBytes: 51200,
          direction: "head+tail"
        })
        assert.deepStrictEqual(truncate.limits({ tool: "constructor" }), truncate.limits())
        // A 300 KB result of a tool with a raised cap passes whole; other tools stay capped.
        const big = "x".repeat(300_000)
        assert.isFalse((yield* truncate.output(big, { tool: "mcp_x" })).truncated)
        assert.isTrue((yield* truncate.output(big, { tool: "read" })).truncated)
      })))

  it.effect("a tool can opt out: whole output, TruncationSkipped, no spill", () =>
    withTruncate({ maxLines: 2, tools: { raw: { disabled: true } } }, ({ events, spill, truncate }) =>
      Effect.gen(function*() {
        const text = lines(50).join("\n")
        const r = yield* truncate.output(text, { tool: "raw" })
        assert.strictEqual(r.content, text)
        assert.include(r, { truncated: false, totalLines: 50 })
        assert.deepStrictEqual(events.map((e) => e._tag), ["TruncationSkipped"])
        assert.strictEqual((yield* spill.list).length, 0)
      })))

  it.effect("the marker is in the first 200 bytes and names lines, bytes and the spill in every direction", () =>
    withTruncate({}, ({ truncate }) =>
      Effect.gen(function*() {
        const text = lines(100_000).join("\n")
        for (const direction of directions) {
          const r = yield* truncate.output(text, { direction })
          const first = r.content.slice(0, r.content.indexOf("\n"))
          assert.isBelow(new TextEncoder().encode(r.content).indexOf(utf8("truncated")[0]!), 200)
          assert.isTrue(first.startsWith("[Output truncated: "), first)
          assert.include(first, `${r.removedLines} lines (${r.removedBytes} bytes) omitted`)
          assert.include(first, `Full output: ${r.outputPath}`)
          assert.isAtMost(r.content.split("\n").length - 8, 2000)
        }
      })))

  it.effect("the hint names only the tools the caller has", () =>
    withTruncate({ maxLines: 1 }, ({ truncate }) =>
      Effect.gen(function*() {
        const text = "one\ntwo\nthree"
        const hint = (task: boolean, read: boolean, grep: boolean) =>
          truncate.output(text, { hint: { task, read, grep } }).pipe(Effect.map((r) => r.content))
        assert.include(
          yield* hint(true, false, false),
          "Use the Task tool to have a sub-agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context."
        )
        // An agent type is named only when the task tool offers it.
        const named = (agents: ReadonlyArray<string>) =>
          truncate.output(text, { hint: { task: true, read: true, grep: true, agents } }).pipe(Effect.map((r) => r.content))
        assert.include(yield* named(["general", "explore"]), "Use the Task tool to have the explore agent process this file")
        const general = yield* named(["general"])
        assert.include(general, "Use the Task tool to have the general agent process this file")
        assert.notInclude(general, "explore")
        assert.include(yield* named(["reviewer"]), "the reviewer agent")
        assert.include(yield* hint(false, true, true), HINT_RG)
        const readOnly = yield* hint(false, true, false)
        assert.include(readOnly, "Use Read with offset/limit to view specific sections.")
        assert.notInclude(readOnly, "Grep")
        const grepOnly = yield* hint(false, false, true)
        assert.include(grepOnly, "Use Grep to search the full content.")
        assert.notInclude(grepOnly, "Read")
        const none = yield* hint(false, false, false)
        assert.notMatch(none, /\b(Read|Grep|Task|read|grep|task)\b/)
        assert.include(none, "Full output saved to: ")
        assert.include(none, "cannot be retrieved with the tools available to you")
      })))

  it.effect("a single line over the byte limit is cut, never an empty preview", () =>
    withTruncate({ maxBytes: 1000 }, ({ truncate }) =>
      Effect.gen(function*() {
        const text = "a".repeat(5000) + "b".repeat(5000) + "\n"
        const head = yield* truncate.output(text)
        const headLine = head.content.split("\n")[1]!
        assert.match(headLine, /^a+ \.\.\. \[line truncated\]$/)
        assert.isAtMost(bytesOf(headLine), 1000)
        assert.isAtLeast(bytesOf(headLine), 990)
        const tail = yield* truncate.output(text, { direction: "tail" })
        const tailLine = tail.content.split("\n").at(-1)!
        assert.match(tailLine, /^\[line truncated\] \.\.\. b+$/)
        assert.isAtMost(bytesOf(tailLine), 1000)
        const both = yield* truncate.output(text, { direction: "head+tail" })
        assert.include(both.content, `\n\n... ${both.removedBytes} bytes truncated ...\n\n`)
        assert.include(both.content.split("\n")[0]!, "showing the first 1 (line 1 cut) and the last 1 (line 1 cut) of 1 lines")
        assert.strictEqual(both.removedLines, 0)
      })))

  it.effect("a long line after short ones is dropped, not cut; after empty ones it is cut", () =>
    withTruncate({ maxBytes: 100 }, ({ truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.output("short\n" + "x".repeat(500))
        assert.include(r.content, "]\nshort\n\n... 1 lines truncated ...")
        const cut = yield* truncate.output("\n\n" + "x".repeat(500))
        assert.match(cut.content, /\]\n\n\nx+ \.\.\. \[line truncated\]\n/)
      })))

  it.effect("multibyte text is cut on character boundaries within the limit", () =>
    withTruncate({}, ({ truncate }) =>
      Effect.gen(function*() {
        const unit = "日本🙂" // 3 + 3 + 4 bytes, the emoji a surrogate pair
        const oneLine = unit.repeat(6_144) // 60 KB
        const manyLines = (unit.repeat(9) + "\n").repeat(670)
        const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
        for (const text of [oneLine, manyLines]) {
          for (const direction of directions) {
            const r = yield* truncate.output(text, { direction })
            assert.isTrue(r.truncated)
            assert.notInclude(r.content, "\uFFFD")
            assert.notMatch(r.content, lone)
            assert.strictEqual(new TextDecoder().decode(utf8(r.content)), r.content)
            const body = r.content.slice(r.content.indexOf("\n") + 1) // without the marker line
            const preview = body.split("\n\n").filter((part) => part.includes(unit)).join("")
            assert.isAtMost(bytesOf(preview), 51200 + 2 * 21, direction)
            assert.isAtLeast(bytesOf(preview), 51200 - 100, direction)
          }
        }
      })))

  it.effect("the spill is byte-identical to the input, CRLF, BOM and multibyte included", () =>
    withTruncate({ maxLines: 2 }, ({ spill, truncate }) =>
      Effect.gen(function*() {
        const text = "\uFEFFfirst\r\nsecond 日本\r\nthird 🙂\r\n\r\nlast"
        const r = yield* truncate.output(text)
        assert.isTrue(r.truncated)
        assertSameBytes(yield* readSpill(spill, r.outputPath!), utf8(text))
        assert.include(r.content, "\uFEFFfirst\r\nsecond 日本\r\n\n...")
      })))

  it.effect("publishes OutputTruncated with the counts and the spill path", () =>
    withTruncate({ maxLines: 1 }, ({ events, truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.output("a\nb\nc", { tool: "grep" })
        assert.deepStrictEqual(events, [{
          _tag: "OutputTruncated",
          tool: "grep",
          outputPath: r.outputPath,
          totalBytes: 5,
          totalLines: 3,
          removedBytes: 4,
          removedLines: 2
        }])
      })))

  it.effect("when the spill fails: the preview, a notice saying why, SpillFailed — never the whole text", () =>
    withTruncate({ maxLines: 5 }, ({ events, truncate }) =>
      Effect.gen(function*() {
        const text = lines(1000).join("\n")
        for (const direction of directions) {
          const r = yield* truncate.output(text, { direction, tool: "bash" })
          assert.include(r, { truncated: true, outputPath: undefined, spillError: "disk full", removedLines: 995 })
          assert.isTrue(r.content.startsWith("[Output truncated: 995 lines"))
          assert.include(r.content.split("\n")[0]!, "The full output could not be saved.")
          assert.include(r.content, "The full output could not be saved (disk full), so only this preview is available.")
          assert.notInclude(r.content, "line 500\n")
          assert.isBelow(r.content.length, 600)
        }
        assert.deepStrictEqual(events.slice(0, 2).map((e) => e._tag), ["SpillFailed", "OutputTruncated"])
        assert.deepStrictEqual(events[0], { _tag: "SpillFailed", tool: "bash", message: "disk full" })
      }), failingSpill()))
})
