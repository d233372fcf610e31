import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import * as SpillStorage from "../src/SpillStorage.ts"
import * as Truncate from "../src/Truncate.ts"
import type { Direction, Options, Result } from "../src/Truncate.ts"
import { assertSameBytes, failingSpill, type Harness, lines, readSpill, utf8, withTruncate } from "./TruncateHarness.ts"

const directions: ReadonlyArray<Direction> = ["head", "tail", "head+tail"]

/** Results equal up to the spill path, which differs between two spills. */
const comparable = (r: Result) => ({
  ...r,
  content: r.outputPath === undefined ? r.content : r.content.split(r.outputPath).join("<spill>"),
  outputPath: r.outputPath === undefined ? undefined : "<spill>"
})

/** Splits `data` at the given offsets (any offset: inside a character or a surrogate pair too). */
const splitAt = <A extends string | Uint8Array>(data: A, cuts: ReadonlyArray<number>): Array<A> => {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < data.length))].sort((a, b) => a - b)
  return [0, ...points].map((from, i) => data.slice(from, points[i] ?? data.length) as A)
}

// Deterministic PRNG (mulberry32): a failing case prints its seed and replays exactly.
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const TOKENS = ["a", "bc", "word ", "\n", "\n", "\n", "\r\n", "日", "本", "🙂", "é", "\t", "\uFEFF", "x".repeat(37), "🙂".repeat(9)]

const sameAsOutput = (h: Harness, text: string, chunks: ReadonlyArray<string | Uint8Array>, options: Options) =>
  Effect.gen(function*() {
    const whole = yield* h.truncate.output(text, options)
    const streamed = yield* h.truncate.stream(Stream.fromIterable(chunks), options)
    assert.deepStrictEqual(comparable(streamed), comparable(whole))
    if (streamed.truncated) {
      assertSameBytes(yield* readSpill(h.spill, streamed.outputPath!), utf8(text))
    } else {
      assert.strictEqual(streamed.outputPath, undefined)
    }
  })

describe("Truncate.stream", () => {
  it.effect("equals output() on the same text, in every direction", () =>
    withTruncate({ maxLines: 4, maxBytes: 40 }, (h) =>
      Effect.gen(function*() {
        const text = lines(30).join("\r\n") + "\n"
        for (const direction of directions) {
          yield* sameAsOutput(h, text, splitAt(text, [1, 7, 8, 50, 51, 120]), { direction })
          yield* sameAsOutput(h, text, splitAt(utf8(text), [3, 64, 65, 200]), { direction })
        }
      })))

  it.effect("property: same result as output() for random text, limits, directions and chunkings", () =>
    withTruncate({}, (h) =>
      Effect.gen(function*() {
        const seen = { truncated: 0, cut: 0, multibyteSplit: 0 }
        for (let seed = 1; seed <= 600; seed++) {
          const rand = prng(seed)
          const pick = (n: number) => Math.floor(rand() * n)
          const text = Array.from({ length: pick(60) }, () => TOKENS[pick(TOKENS.length)]).join("")
          const options: Options = { maxLines: pick(9), maxBytes: pick(90), direction: directions[pick(3)]! }
          const byBytes = rand() < 0.5
          const data = byBytes ? utf8(text) : text
          const cuts = Array.from({ length: pick(8) }, () => pick(data.length + 1))
          const chunks = byBytes ? splitAt(utf8(text), cuts) : splitAt(text, cuts)
          yield* sameAsOutput(h, text, chunks, options).pipe(
            Effect.mapError((e) => new Error(`seed ${seed}: ${String(e)}`)),
            Effect.tapDefect(() => Effect.sync(() => console.error(`failing seed ${seed}`, JSON.stringify({ text, options, cuts }))))
          )
          const r = yield* h.truncate.output(text, options)
          if (r.truncated) seen.truncated++
          if (r.content.includes("[line truncated]")) seen.cut++
          if (chunks.slice(1).some((c) => typeof c === "string" ? /^[\uDC00-\uDFFF]/.test(c) : (c[0]! & 0xc0) === 0x80)) {
            seen.multibyteSplit++
          }
        }
        // The generator reaches the interesting cases often enough.
        assert.isAbove(seen.truncated, 300)
        assert.isAbove(seen.cut, 50)
        assert.isAbove(seen.multibyteSplit, 50)
      })))

  it.effect("5 MB+ chunks with characters split across them: same result, spill byte-identical", () =>
    withTruncate({}, (h) =>
      Effect.gen(function*() {
        const line = (i: number) => `${i} 日本語のログ 🙂 status=ok ${"x".repeat(i % 50)}\n`
        const text = Array.from({ length: 200_000 }, (_, i) => line(i)).join("") // ~13 MB
        const bytes = utf8(text)
        // Cut inside a multibyte character just past 5.1 MB and 10.3 MB.
        const inside = (near: number) => {
          let i = near
          while (i < bytes.length && (bytes[i]! & 0xc0) !== 0x80) i++
          return i
        }
        const chunks = splitAt(bytes, [inside(5_100_000), inside(10_300_000)])
        assert.deepStrictEqual(chunks.map((c) => c.length > 5_000_000), [true, true, false])
        assert.isTrue((chunks[1]![0]! & 0xc0) === 0x80 && (chunks[2]![0]! & 0xc0) === 0x80)
        for (const direction of directions) yield* sameAsOutput(h, text, chunks, { direction })
      })))

  it.effect("bytes that are not UTF-8 are spilled as they came and shown as U+FFFD", () =>
    withTruncate({ maxLines: 2 }, ({ spill, truncate }) =>
      Effect.gen(function*() {
        const parts = [utf8("ok\nbad \xff byte\n"), new Uint8Array([0x66, 0xff, 0x0a, 0xe6]), new Uint8Array([0x97, 0x0a, 0xe6, 0x97])]
        const r = yield* truncate.stream(Stream.fromIterable(parts), { direction: "tail" })
        const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
        parts.reduce((offset, p) => (all.set(p, offset), offset + p.length), 0)
        assert.include(r, { truncated: true, totalBytes: all.length, totalLines: 5 })
        assertSameBytes(yield* readSpill(spill, r.outputPath!), all)
        assert.isTrue(r.content.endsWith("\n\n\uFFFD\n\uFFFD"), JSON.stringify(r.content.slice(-20)))
      })))

  it.effect("a stream within the limits writes no spill", () =>
    withTruncate({ maxLines: 10 }, ({ spill, truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.stream(Stream.make("a\n", utf8("b 🙂\n"), "c"))
        assert.include(r, { content: "a\nb 🙂\nc", truncated: false, totalLines: 3 })
        assert.strictEqual((yield* spill.list).length, 0)
      })))

  it.effect("binary output within the limits is kept whole and spilled, byte for byte", () =>
    withTruncate({ maxLines: 10 }, ({ spill, truncate }) =>
      Effect.gen(function*() {
        const bytes = new Uint8Array([0x1f, 0x8b, 0x08, 0, 0xff, 0xfe, 0x10, 0x80])
        const r = yield* truncate.stream(Stream.make(bytes.subarray(0, 3), bytes.subarray(3)))
        assert.include(r, { truncated: false, totalBytes: 8 })
        assert.isTrue(Truncate.looksBinary(r.content))
        assertSameBytes(yield* readSpill(spill, r.outputPath!), bytes)
        assert.isFalse(Truncate.looksBinary("\u001b[1mbold\u001b[0m\ttab\r\nline\f\b"))
        assert.isTrue(Truncate.looksBinary("text\0"))
      })))

  it.effect("once over the limits, each chunk goes to the spill before the next is pulled", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const Recording = Layer.effect(
        SpillStorage.SpillStorage,
        Effect.gen(function*() {
          const inner = yield* SpillStorage.SpillStorage
          return SpillStorage.SpillStorage.of({
            ...inner,
            writer: Effect.map(inner.writer, (w) => ({
              write: (chunk: Uint8Array) => Effect.andThen(Effect.sync(() => log.push(`write ${chunk.length}`)), w.write(chunk)),
              commit: w.commit
            }))
          })
        })
      ).pipe(Layer.provide(SpillStorage.layerMemory()))
      const chunk = "y".repeat(99) + "\n"
      const input = Stream.fromIterable([1, 2, 3, 4, 5]).pipe(
        Stream.tap((i) => Effect.sync(() => log.push(`pull ${i}`))),
        Stream.map(() => chunk)
      )
      yield* withTruncate({ maxBytes: 150 }, ({ truncate }) => truncate.stream(input), Recording)
      assert.deepStrictEqual(log, [
        "pull 1",
        "pull 2",
        "write 100", // buffered while within the limits, written when they are exceeded
        "write 100",
        "pull 3",
        "write 100",
        "pull 4",
        "write 100",
        "pull 5",
        "write 100"
      ])
    }))

  it.effect("an input failure fails the call and leaves no spill behind", () =>
    withTruncate({ maxBytes: 10 }, ({ spill, truncate }) =>
      Effect.gen(function*() {
        class Boom extends Schema.TaggedError<Boom>()("Boom", {}) {}
        const input = Stream.make("a".repeat(100), "b".repeat(100)).pipe(Stream.concat(Stream.fail(new Boom())))
        const error = yield* Effect.flip(truncate.stream(input))
        assert.strictEqual(error._tag, "Boom")
        assert.strictEqual((yield* spill.list).length, 0)
      })))

  it.effect("a spill failure keeps the preview and says so", () =>
    withTruncate({ maxLines: 3 }, ({ events, truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.stream(Stream.fromIterable(lines(100).map((l) => l + "\n")), { direction: "tail" })
        assert.include(r, { truncated: true, outputPath: undefined, spillError: "no space", totalLines: 100 })
        assert.isTrue(r.content.endsWith("\n\nline 98\nline 99\nline 100"))
        assert.include(r.content, "could not be saved (no space)")
        assert.deepStrictEqual(events.map((e) => e._tag), ["SpillFailed", "OutputTruncated"])
      }), failingSpill("no space")))

  it.effect("a tool opted out gets its whole stream", () =>
    withTruncate({ maxLines: 1, tools: { raw: { disabled: true } } }, ({ events, truncate }) =>
      Effect.gen(function*() {
        const r = yield* truncate.stream(Stream.make(utf8("a\n日"), utf8("本\nc")), { tool: "raw" })
        assert.include(r, { content: "a\n日本\nc", truncated: false, totalLines: 3 })
        assert.deepStrictEqual(events.map((e) => e._tag), ["TruncationSkipped"])
      })))
})
