import { assert, describe, it } from "@effect/vitest"
import * as LineWindow from "../src/LineWindow.ts"
import * as Utf8 from "../src/Utf8.ts"
import { encoder16, scanner } from "../src/Utf8Scan.ts"
import { utf8Chunks } from "../src/SpillWriting.ts"

// A seeded generator: the same inputs on every run.
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) >>> 0
  return seed / 2 ** 32
}

/** Text mixing ASCII, newlines, 2- and 3-byte characters, surrogate pairs and lone surrogates. */
const mixedText = (units: number, next: () => number, surrogates: boolean): string => {
  const parts: Array<string> = []
  for (let i = 0; i < units; i++) {
    const r = next()
    if (r < 0.05) parts.push("\n")
    else if (r < 0.9) parts.push(String.fromCharCode(32 + Math.floor(next() * 95)))
    else if (r < 0.94) parts.push(String.fromCharCode(0x80 + Math.floor(next() * 0x780)))
    else if (r < 0.97 || !surrogates) parts.push(String.fromCharCode(0x800 + Math.floor(next() * 0xd000)))
    else if (r < 0.995) parts.push("🙂")
    else parts.push(next() < 0.5 ? "\ud800" : "\udc00")
  }
  return parts.join("")
}

const naiveNewlines = (bytes: Uint8Array) => bytes.reduce((n, b) => n + (b === 10 ? 1 : 0), 0)

describe("Utf8Scan", () => {
  it("is available on this runtime", () => {
    assert.isDefined(scanner())
  })

  it("counts newlines in bytes of every length and alignment, longer than its data area too", () => {
    const next = random(7)
    const scan = scanner()!
    for (const length of [0, 1, 15, 16, 17, 255 * 16, 255 * 16 + 1, 70_000, scan.data.length + 12_345]) {
      const bytes = new Uint8Array(length + 3)
      for (let i = 0; i < bytes.length; i++) bytes[i] = next() < 0.1 ? 10 : Math.floor(next() * 256)
      for (const start of [0, 1, 3]) {
        const part = bytes.subarray(start, start + length)
        assert.strictEqual(Utf8.countNewlines(part), naiveNewlines(part), `length ${length} at ${start}`)
      }
    }
  })

  it("every byte 10 in a long buffer: no lane overflows", () => {
    const bytes = new Uint8Array(3 * 1024 * 1024).fill(10)
    assert.strictEqual(Utf8.countNewlines(bytes), bytes.length)
  })

  it("measureText gives TextEncoder's byte length and the newline count, across slice edges", () => {
    const next = random(11)
    for (const surrogates of [false, true]) {
      for (const units of [0, 7, 1000, (1 << 20) + 5, (3 << 20) - 1]) {
        const s = mixedText(units, next, surrogates)
        const m = Utf8.measureText(s)
        assert.strictEqual(m.bytes, new TextEncoder().encode(s).length, `${units} units`)
        assert.strictEqual(m.newlines, s.split("\n").length - 1, `${units} units`)
      }
    }
  })

  it("a lone non-ASCII character in ASCII text is counted wherever it falls (run edges, the tail)", () => {
    const base = "abcdefghij\n".repeat(Math.ceil(((1 << 20) + 1000) / 11))
    for (const at of [0, 7, 8, 511, 512, 513, 1023, 1024, 4096 * 8 - 1, (1 << 20) - 1, (1 << 20) + 3, base.length - 1]) {
      for (const ch of ["é", "→", "🙂"]) {
        const s = base.slice(0, at) + ch + base.slice(at + 1)
        const m = Utf8.measureText(s)
        assert.strictEqual(m.bytes, new TextEncoder().encode(s).length, `${ch} at ${at}`)
        assert.strictEqual(m.newlines, s.split("\n").length - 1, `${ch} at ${at}`)
      }
    }
  })

  it("a surrogate pair split by the slice edge counts as one 4-byte character", () => {
    const slice = scanner()!.data.length >> 1
    const s = "a".repeat(slice - 1) + "🙂" + "b\n".repeat(10)
    assert.deepStrictEqual(Utf8.measureText(s), { bytes: slice - 1 + 4 + 20, newlines: 10 })
  })

  it("LineWindow.measure of a long two-byte text agrees with the short-text scan", () => {
    const line = "2026-11-22 INFO → done ✓ 完了 déjà vu\n"
    const text = line.repeat(Math.ceil((2 << 20) / line.length)) + "tail without newline"
    const m = LineWindow.measure(text)
    assert.strictEqual(m.bytes, Utf8.byteLength(text))
    assert.strictEqual(m.lines, text.split("\n").length)
    assert.isFalse(m.endsWithNewline)
  })

  it("encodes UTF-16 as TextEncoder does: every length, ASCII runs, pairs and lone surrogates", () => {
    const next = random(11)
    const encoder = encoder16()!
    const te = new TextEncoder()
    const cases = ["", "a", "\n", "é", "→", "🙂", "\ud800", "\udc00", "a\ud800b", "\udc00\ud800", "\ud800\ud800\udc00", "x".repeat(31) + "🙂"]
    for (let i = 0; i < 300; i++) cases.push(mixedText(Math.floor(next() * 200), next, true))
    // ASCII runs of every length around the 16-unit step, then a character of each width
    for (let n = 0; n < 40; n++) for (const c of ["é", "→", "🙂", "\ud800"]) cases.push("a".repeat(n) + c + "b".repeat(n))
    cases.push(mixedText(encoder.units, next, true).slice(0, encoder.units))
    for (const s of cases) assert.deepStrictEqual(encoder.encode(s), te.encode(s), JSON.stringify(s.slice(0, 80)))
  })

  it("keeps an encoded slice valid until the next but one is encoded", () => {
    const encoder = encoder16()!
    const first = encoder.encode("first é")
    const second = encoder.encode("second →")
    assert.strictEqual(new TextDecoder().decode(first), "first é")
    assert.strictEqual(new TextDecoder().decode(second), "second →")
  })

  it("spills a long text in slices that decode back to it, a pair across a slice edge included", () => {
    const next = random(13)
    const units = encoder16()!.units
    const text = mixedText(units - 1, next, false) + "🙂" + mixedText(units + 500, next, true)
    const parts = Array.from(utf8Chunks(text), (chunk) => chunk.slice())
    assert.isAbove(parts.length, 1)
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const p of parts) {
      joined.set(p, at)
      at += p.length
    }
    assert.deepStrictEqual(joined, new TextEncoder().encode(text))
  })

  it("spills bytes as views of at most 1 MiB, in order, without copying; empty bytes as one empty chunk", () => {
    const bytes = new Uint8Array(2.5 * 1024 * 1024).map((_, i) => i % 251)
    const parts = Array.from(utf8Chunks(bytes))
    assert.deepStrictEqual(parts.map((p) => p.length), [1024 * 1024, 1024 * 1024, 512 * 1024])
    assert.deepStrictEqual(parts.map((p) => p.byteOffset), [0, 1024 * 1024, 2 * 1024 * 1024])
    assert.isTrue(parts.every((p) => p.buffer === bytes.buffer))
    assert.deepStrictEqual(Array.from(utf8Chunks(new Uint8Array(0)), (p) => p.length), [0])
  })
})
