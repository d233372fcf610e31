import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { COUNT_LIMIT, countNewlines } from "../src/SpillCapture.ts"
import * as SpillStorage from "../src/SpillStorage.ts"
import type { Config, Direction, Options, Result } from "../src/Truncate.ts"
import { assertSameBytes, type Harness, lines, prng, TOKENS, utf8, withTruncate } from "./TruncateHarness.ts"

const directions: ReadonlyArray<Direction> = ["head", "tail", "head+tail"]

/** Truncate over a file-system store with direct spills, in a fresh temp dir removed afterwards. */
const withDirect = <A, E>(config: Config, body: (h: Harness, dir: string) => Effect.Effect<A, E>, maxBytes?: number) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "agent-tools-capture-"))),
    (dir) =>
      withTruncate(
        config,
        (h) => body(h, dir),
        SpillStorage.layer({ dir, direct: true, maxBytes }).pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)))
      ),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** Results equal up to the spill path, which differs between two spills. */
const comparable = (r: Result) => ({
  ...r,
  content: r.outputPath === undefined ? r.content : r.content.split(r.outputPath).join("<spill>"),
  outputPath: r.outputPath === undefined ? undefined : "<spill>"
})

/** Plays a process: appends `chunks` to the capture's file, polling between some of them. */
const captured = (h: Harness, chunks: ReadonlyArray<Uint8Array>, options: Options, pollEvery = 1) =>
  Effect.scoped(Effect.gen(function*() {
    const capture = (yield* h.truncate.capture!(options, 20))!
    for (const [i, chunk] of chunks.entries()) {
      appendFileSync(capture.path, chunk)
      if (i % pollEvery === 0) yield* capture.poll
    }
    return { result: yield* capture.finish, path: capture.path }
  }))


const splitBytes = (data: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < data.length))].sort((a, b) => a - b)
  return [0, ...points].map((from, i) => data.slice(from, points[i] ?? data.length))
}

describe("Truncate.capture (a process writes the spill file)", () => {
  it("countNewlines counts every \\n byte", () => {
    assert.strictEqual(countNewlines(utf8("")), 0)
    assert.strictEqual(countNewlines(utf8("a\nb\r\n\n日\n")), 4)
    assert.strictEqual(countNewlines(new Uint8Array(100_000).fill(10).subarray(7, 90_007)), 90_000)
  })

  it.effect("property: same result as output() for random text, limits, directions and write splits", () =>
    withDirect({}, (h) =>
      Effect.gen(function*() {
        let truncated = 0
        for (let seed = 1; seed <= 150; seed++) {
          const rand = prng(seed)
          const pick = (n: number) => Math.floor(rand() * n)
          const text = Array.from({ length: pick(60) }, () => TOKENS[pick(TOKENS.length)]).join("")
          const options: Options = { maxLines: pick(9), maxBytes: pick(90), direction: directions[pick(3)]! }
          const bytes = utf8(text)
          const chunks = splitBytes(bytes, Array.from({ length: pick(6) }, () => pick(bytes.length + 1)))
          const { path, result } = yield* captured(h, chunks, options, 1 + pick(3))
          const expected = yield* h.truncate.output(text, options)
          if (expected.outputPath !== undefined) yield* h.spill.ready!(expected.outputPath)
          assert.deepStrictEqual(comparable(result), comparable(expected), `seed ${seed}: ${JSON.stringify({ text, options })}`)
          if (result.truncated) {
            truncated++
            assertSameBytes(readFileSync(result.outputPath!), bytes)
          }
          // A result within the limits keeps no file; the temp of a committed one was renamed.
          assert.isFalse(readdirSync(join(path, "..")).some((n) => n.endsWith(".tmp")), `seed ${seed}`)
        }
        assert.isAbove(truncated, 60)
      })))

  it.effect("a long output: totals from the byte scan, preview from both ends, spill identical", () =>
    withDirect({}, (h, dir) =>
      Effect.gen(function*() {
        const text = lines(300_000).map((l) => `${l} 日本 🙂`).join("\n") + "\n"
        const bytes = utf8(text)
        const chunks = splitBytes(bytes, [1_000_001, 3_000_002, 3_000_003, 7_777_777])
        for (const direction of directions) {
          const { result } = yield* captured(h, chunks, { direction })
          const expected = yield* h.truncate.output(text, { direction })
          yield* h.spill.ready!(expected.outputPath!)
          assert.deepStrictEqual(comparable(result), comparable(expected))
          assert.include(result, { truncated: true, totalLines: 300_000, totalBytes: bytes.length })
          assertSameBytes(readFileSync(result.outputPath!), bytes)
        }
        assert.deepStrictEqual(readdirSync(dir).filter((n) => n.startsWith(".")), [])
      })))

  it.effect("the store's cap: the spill keeps the first bytes (never half a character) and the trailer", () =>
    withDirect({ maxLines: 2 }, (h) =>
      Effect.gen(function*() {
        const text = "ab日本語\n".repeat(100) // 12 bytes a line; the cap of 28 falls inside the third 日
        const { result } = yield* captured(h, [utf8(text)], {})
        assert.include(result, { truncated: true, totalBytes: 1200, totalLines: 100 })
        assert.strictEqual(readFileSync(result.outputPath!, "utf8"), "ab日本語\nab日本語\nab\n[spill truncated at 26 bytes]\n")
        assert.include(result.content, "Only the first 28 of 1200 bytes were saved")
      }), 28))

  it.effect("live preview: the last characters, only when something new arrived", () =>
    withDirect({}, (h) =>
      Effect.scoped(Effect.gen(function*() {
        const capture = (yield* h.truncate.capture!({}, 5))!
        assert.strictEqual(capture.preview(5), undefined)
        appendFileSync(capture.path, "abc")
        yield* capture.poll
        assert.strictEqual(capture.preview(5), "abc")
        assert.strictEqual(capture.preview(5), undefined)
        appendFileSync(capture.path, "defgh🙂")
        yield* capture.poll
        assert.strictEqual(capture.preview(5), "…\nfgh🙂")
        yield* capture.append(utf8("!\n"))
        assert.include(yield* capture.finish, { content: "abcdefgh🙂!\n", truncated: false, totalLines: 1, totalBytes: 14 })
      }))))

  describe("past COUNT_LIMIT, only the newest bytes are read", () => {
    // Numbered lines with a non-ASCII character, a little longer than the limit, in 4 MiB writes.
    const LINE_BYTES = 29
    const count = Math.ceil((COUNT_LIMIT + 6 * 1024 * 1024) / LINE_BYTES)
    const numbered = (i: number) => `line ${String(i).padStart(12, "0")} — ä…z\n`
    const big = () => {
      const text = Array.from({ length: count }, (_, i) => numbered(i + 1)).join("")
      return { text, bytes: utf8(text) }
    }
    const inWrites = (bytes: Uint8Array) => splitBytes(bytes, Array.from({ length: 20 }, (_, i) => (i + 1) * 4 * 1024 * 1024))
    /** The notice's first line, and the content without it and without the elision line. */
    const parts = (content: string) => {
      const [marker, ...rest] = content.split("\n")
      return { marker: marker!, shown: rest.filter((l) => !/^\.\.\. \d+ (lines|bytes) truncated \.\.\.$/.test(l)).join("\n") }
    }

    it.effect("totals in bytes, lines not counted (the notice says so); the same ends; the spill identical", () =>
      withDirect({}, (h) =>
        Effect.gen(function*() {
          const { bytes, text } = big()
          assert.strictEqual(utf8(numbered(1)).length, LINE_BYTES)
          for (const direction of directions) {
            const { result } = yield* captured(h, inWrites(bytes), { direction })
            const expected = yield* h.truncate.output(text, { direction })
            yield* h.spill.ready!(expected.outputPath!)
            assert.include(result, { truncated: true, totalLines: undefined, removedLines: undefined, totalBytes: bytes.length })
            const got = parts(comparable(result).content)
            assert.strictEqual(got.shown, parts(comparable(expected).content).shown)
            assert.match(got.marker, new RegExp(`^\\[Output truncated: \\d+ bytes omitted; showing the .* lines of ${bytes.length} bytes \\(too long to count its lines\\)\\.`))
            assertSameBytes(readFileSync(result.outputPath!), bytes)
          }
        })))

    it.effect("the live preview and the tail follow the file's end; the cap still cuts it", () =>
      withDirect({ maxLines: 10 }, (h) =>
        Effect.scoped(Effect.gen(function*() {
          const { bytes } = big()
          const capture = (yield* h.truncate.capture!({ direction: "head+tail" }, 30))!
          for (const chunk of inWrites(bytes)) {
            appendFileSync(capture.path, chunk)
            // Past the limit a poll looks at the file's end at most every 50 ms.
            yield* TestClock.adjust("50 millis")
            yield* capture.poll
          }
          assert.strictEqual(capture.preview(30), `…\n${(numbered(count - 1) + numbered(count)).slice(-30)}`)
          const result = yield* capture.finish
          assert.include(result, { totalLines: undefined, totalBytes: bytes.length })
          assert.include(result.content, `${numbered(1)}`)
          assert.include(result.content, `${numbered(count - 1)}${numbered(count).slice(0, -1)}`)
          // The cap (5 bytes into the second line) is reached while the lines are still counted.
          assert.strictEqual(readFileSync(result.outputPath!, "utf8"), `${numbered(1)}line \n[spill truncated at ${LINE_BYTES + 5} bytes]\n`)
        })), LINE_BYTES + 5))

    // A cap past the limit is found by reading around it: here inside the "—" of a line.
    const k = Math.ceil((COUNT_LIMIT + 1024 * 1024) / LINE_BYTES)
    it.effect("a cap past the limit: the spill keeps the first bytes (never half a character)", () =>
      withDirect({}, (h) =>
        Effect.gen(function*() {
          const { bytes } = big()
          const { result } = yield* captured(h, inWrites(bytes), {})
          assert.include(result, { totalLines: undefined, totalBytes: bytes.length })
          const kept = k * LINE_BYTES + 18
          const spill = readFileSync(result.outputPath!)
          assertSameBytes(spill.subarray(0, kept), bytes.subarray(0, kept))
          assert.strictEqual(spill.subarray(kept).toString(), `\n[spill truncated at ${kept} bytes]\n`)
        }), k * LINE_BYTES + 19))
  })

  it.effect("a store without direct spills offers no capture", () =>
    withTruncate({}, (h) => Effect.scoped(Effect.map(h.truncate.capture!({}), (c) => assert.strictEqual(c, undefined)))))
})
