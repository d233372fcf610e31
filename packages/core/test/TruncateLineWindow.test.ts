import { assert, describe, it } from "@effect/vitest"
import * as LineWindow from "../src/LineWindow.ts"
import type { Limits } from "../src/Truncate.ts"
import * as Utf8 from "../src/Utf8.ts"

const enc = (s: string) => new TextEncoder().encode(s)

describe("Utf8", () => {
  it("byteLength matches TextEncoder, lone surrogates included", () => {
    for (const s of ["", "abc", "é", "日本", "🙂", "a\uD800b", "\uDC00", "x🙂\r\n"]) {
      assert.strictEqual(Utf8.byteLength(s), enc(s).length, JSON.stringify(s))
    }
  })

  it("prefix and suffix fit the byte budget and never split a surrogate pair", () => {
    const s = "ab🙂日c"
    assert.strictEqual(Utf8.prefix(s, 5), "ab")
    assert.strictEqual(Utf8.prefix(s, 6), "ab🙂")
    assert.strictEqual(Utf8.prefix(s, 8), "ab🙂")
    assert.strictEqual(Utf8.suffix(s, 3), "c")
    assert.strictEqual(Utf8.suffix(s, 4), "日c")
    assert.strictEqual(Utf8.suffix(s, 7), "日c")
    assert.strictEqual(Utf8.suffix(s, 8), "🙂日c")
    assert.strictEqual(Utf8.prefix(s, 0), "")
  })

  it("incompleteTail and boundary find character edges in bytes", () => {
    const b = enc("a日🙂") // 1 + 3 + 4 bytes
    assert.deepStrictEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => Utf8.incompleteTail(b.subarray(0, n))), [0, 0, 1, 2, 0, 1, 2, 3, 0])
    assert.deepStrictEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => Utf8.boundary(b, n)), [0, 1, 1, 1, 4, 4, 4, 4, 8])
  })
})

const limits = (maxLines: number, maxBytes: number, direction: Limits["direction"] = "head"): Limits => ({
  maxLines,
  maxBytes,
  direction
})

describe("LineWindow", () => {
  it("measure: a final newline ends the last line; CR stays in its line", () => {
    const m = (s: string) => {
      const { bytes, lines } = LineWindow.measure(s)
      return [lines, bytes]
    }
    assert.deepStrictEqual([m(""), m("\n"), m("a"), m("a\n"), m("a\nb"), m("a\r\nb\r\n"), m("\n\n")], [
      [0, 0],
      [1, 1],
      [1, 1],
      [1, 2],
      [2, 3],
      [2, 6],
      [2, 2]
    ])
  })

  it("fits: the terminating newline is not budgeted", () => {
    assert.isTrue(LineWindow.fits(LineWindow.measure("abcd\n"), limits(1, 4)))
    assert.isFalse(LineWindow.fits(LineWindow.measure("abcde"), limits(1, 4)))
    assert.isFalse(LineWindow.fits(LineWindow.measure("a\nb\n"), limits(1, 100)))
  })

  it("an oversize line after empty lines is cut, at either end", () => {
    const head = LineWindow.window("\n\n" + "x".repeat(100) + "\nend", limits(10, 40), 4).head
    assert.strictEqual(head.text, "\n\n" + "x".repeat(38 - LineWindow.HEAD_CUT.length) + LineWindow.HEAD_CUT)
    assert.include(head, { lines: 3, cut: true, size: 40 })
    const tail = LineWindow.window("start\n" + "y".repeat(100) + "\n\n", limits(10, 40, "tail"), 3).tail
    assert.strictEqual(tail.text, LineWindow.TAIL_CUT + "y".repeat(39 - LineWindow.TAIL_CUT.length) + "\n")
    assert.include(tail, { lines: 2, cut: true, size: 40 })
  })

  it("head+tail never overlaps, even when both cut the same single line", () => {
    const text = "a".repeat(500) + "b".repeat(500)
    const w = LineWindow.window(text, limits(10, 200, "head+tail"), 1)
    assert.isTrue(w.head.text.startsWith("a") && w.tail.text.endsWith("b"))
    assert.isAtMost(w.head.bytes + w.tail.bytes, 200)
    assert.isAtMost(w.head.size + w.tail.size, 200)
    assert.deepStrictEqual(LineWindow.removed(w, { lines: 1, bytes: 1000 }), { lines: 0, bytes: 1000 - w.head.bytes - w.tail.bytes })
  })

  it("tiny budgets give an empty side rather than a marker larger than the budget", () => {
    const w = LineWindow.window("x".repeat(100), limits(5, 10), 1)
    assert.include(w.head, { text: "", lines: 0, cut: false })
  })

  it("the Builder keeps bounded text and gives the same window as the whole string", () => {
    const lim = limits(50, 2000, "head+tail")
    const text = Array.from({ length: 20_000 }, (_, i) => `${i} 🙂 ${"z".repeat(i % 70)}`).join("\n")
    const b = new LineWindow.Builder(lim)
    for (let i = 0; i < text.length; i += 997) b.push(text.slice(i, i + 997))
    assert.strictEqual(b.text(), undefined) // not kept: only a prefix, a suffix and counts
    assert.strictEqual(b.lines, 20_000)
    // `edge` is in the kept part's own coordinates; everything else must match.
    const sides = (w: LineWindow.Window) => [w.head, w.tail].map(({ edge: _, ...side }) => side)
    assert.deepStrictEqual(sides(b.window()), sides(LineWindow.window(text, lim, 20_000)))
    const small = new LineWindow.Builder(lim)
    small.push("short\n")
    assert.strictEqual(small.text(), "short\n")
  })
})
