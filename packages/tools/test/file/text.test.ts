/** Encodings, line endings, sniffing and diffs on their own. */
import { assert, describe, it } from "@effect/vitest"
import { spanDiff, trimDiff, unifiedDiff } from "../../src/internal/diff.ts"
import { decode, encode, encodeChange, isBinary, isUtf8, lfView, localEol, scanUtf8, sniffMedia, toOriginal } from "../../src/internal/text.ts"

const roundTrip = (bytes: Uint8Array) => {
  const d = decode(bytes)
  const back = encode(d.text, d.encoding, d.bom)
  assert.instanceOf(back, Uint8Array)
  assert.deepStrictEqual(Array.from(back as Uint8Array), Array.from(bytes))
  return d
}

describe("encodings", () => {
  it("every byte value round-trips through Latin-1; valid UTF-8 with and without BOM too", () => {
    assert.strictEqual(roundTrip(Uint8Array.from({ length: 256 }, (_, i) => i)).encoding, "latin1")
    assert.deepStrictEqual(roundTrip(new TextEncoder().encode("naïve café ✅\n")), { text: "naïve café ✅\n", encoding: "utf-8", bom: false })
    assert.strictEqual(roundTrip(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])).bom, true)
    assert.strictEqual(roundTrip(new Uint8Array([0xfe, 0xff, 0, 0x61, 0, 0x0a])).encoding, "utf-16be")
    // A truncated UTF-8 sequence is not valid UTF-8: Latin-1, never U+FFFD.
    assert.notInclude(roundTrip(new Uint8Array([0x61, 0xe2, 0x9c])).text, "\uFFFD")
  })

  it("the UTF-8 check accepts exactly what a fatal TextDecoder accepts, at every alignment", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true })
    const valid = (b: Uint8Array) => {
      try {
        fatal.decode(b)
        return true
      } catch {
        return false
      }
    }
    const samples: ReadonlyArray<ReadonlyArray<number>> = [
      [], [0x61], [0xc3, 0xa9], [0xe2, 0x9c, 0x85], [0xf0, 0x9f, 0x98, 0x80], [0xef, 0xbb, 0xbf],
      [0x80], [0xc0, 0xaf], [0xc1, 0xbf], [0xe0, 0x80, 0xaf], [0xe0, 0x9f, 0xbf], [0xed, 0xa0, 0x80], [0xed, 0x9f, 0xbf],
      [0xf0, 0x8f, 0xbf, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xf8],
      [0xc2], [0xe2, 0x9c], [0xf0, 0x9f, 0x98], [0xe2, 0x28, 0xa1], [0xc3, 0x28]
    ]
    const ascii = Array.from("0123456789abcdefghij", (c) => c.charCodeAt(0))
    for (const sample of samples) {
      for (const bytes of [sample, [...ascii, ...sample], [...ascii, ...sample, ...ascii], [...sample, ...sample, 0x0a]]) {
        for (let offset = 0; offset < 4; offset++) {
          const b = new Uint8Array(offset + bytes.length).subarray(offset)
          b.set(bytes)
          assert.strictEqual(scanUtf8(b), valid(b), `${JSON.stringify(bytes)} at offset ${offset}`)
          assert.strictEqual(isUtf8(b), valid(b), `${JSON.stringify(bytes)} at offset ${offset}`)
        }
      }
    }
  })

  it("Latin-1 refuses what it cannot hold, naming the character and line", () => {
    assert.deepStrictEqual(encode("a\nb€", "latin1", false), { _tag: "Unencodable", char: "€", line: 2 })
  })
})

describe("line endings", () => {
  it("maps offsets of the LF view back to the original", () => {
    const text = "a\r\nb\nc\r\nd"
    const view = lfView(text)
    assert.strictEqual(view.text, "a\nb\nc\nd")
    for (const [lf, original] of [[0, 0], [1, 1], [2, 3], [4, 5], [5, 6], [6, 8], [7, 9]] as const) {
      assert.strictEqual(toOriginal(view, lf), original, `offset ${lf}`)
    }
    assert.strictEqual(localEol(text, 0), "\r\n")
    assert.strictEqual(localEol(text, 3), "\n")
    assert.strictEqual(localEol(text, 9), "\r\n") // last line: the previous line's ending
  })
})

describe("sniffing", () => {
  it("binary by NUL, control ratio or extension; UTF-16 text is not binary", () => {
    assert.isTrue(isBinary("a.txt", new Uint8Array([0x61, 0])))
    assert.isTrue(isBinary("a.txt", new Uint8Array([1, 2, 0x61])))
    assert.isFalse(isBinary("a.txt", new TextEncoder().encode("plain\ttext\r\n")))
    assert.isTrue(isBinary("lib.wasm", new TextEncoder().encode("text")))
    assert.isFalse(isBinary("a.txt", new Uint8Array([0xff, 0xfe, 0x61, 0])))
    assert.isFalse(isBinary("empty.txt", new Uint8Array()))
  })
  it("media by magic bytes only", () => {
    assert.strictEqual(sniffMedia(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])), "image/jpeg")
    assert.strictEqual(sniffMedia(new TextEncoder().encode("GIF89a")), "image/gif")
    assert.strictEqual(sniffMedia(new TextEncoder().encode("not an image")), undefined)
  })
})

describe("diffs", () => {
  it("trims the indentation every content line shares", () => {
    assert.strictEqual(trimDiff("--- a\n+++ a\n@@ -1,2 +1,2 @@\n     x\n-    y\n+    z"), "--- a\n+++ a\n@@ -1,2 +1,2 @@\n x\n-y\n+z")
  })
  it("diffs only the changed window, with correct line numbers and counts", () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join("\n") + "\n"
    const d = unifiedDiff("big.txt", before, before.replace("line 15000\n", "line 15000 changed\nadded\n"))
    assert.include(d.patch, "@@ -14998,7 +14998,8 @@")
    assert.strictEqual(d.additions, 2)
    assert.strictEqual(d.deletions, 1)
  })
})

describe("encoding a change", () => {
  const utf8 = (s: string) => new TextEncoder().encode(s)
  const cases: ReadonlyArray<readonly [string, Uint8Array, string]> = [
    ["ASCII: only the change is encoded, the rest is the file's bytes", utf8("alpha\nbeta\ngamma\n"), "alpha\nbéta ✓\ngamma\n"],
    ["ASCII with a BOM", new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("a\nb\n")]), "a\nB\nc\n"],
    ["non-ASCII UTF-8: the whole text is encoded", utf8("é\nx\n"), "é\ny\n"],
    ["a deletion at the end", utf8("one\ntwo\n"), "one\n"],
    ["an insertion at the start", utf8("one\n"), "zero\none\n"]
  ]
  for (const [name, bytes, text] of cases) {
    it(name, () => {
      const decoded = decode(bytes)
      const whole = Array.from(encode(text, decoded.encoding, decoded.bom) as Uint8Array)
      assert.deepStrictEqual(Array.from(encodeChange({ bytes, decoded }, text, decoded) as Uint8Array), whole)
      // The same from the change alone (the edit tool's case), and the diff from it.
      let head = 0
      while (head < text.length && text[head] === decoded.text[head]) head++
      let tail = 0
      while (tail < Math.min(text.length, decoded.text.length) - head && text.at(-1 - tail) === decoded.text.at(-1 - tail)) tail++
      const span = { start: head, end: decoded.text.length - tail, text: text.slice(head, text.length - tail) }
      assert.deepStrictEqual(Array.from(encodeChange({ bytes, decoded }, text, decoded, span) as Uint8Array), whole)
      assert.deepStrictEqual(spanDiff("f", decoded.text, span), unifiedDiff("f", decoded.text, text))
    })
  }
})
