/**
 * The edit made on the file's bytes: whenever it answers, it answers exactly what the decoded
 * file would (new bytes, strategy, matched lines, diff), and it leaves every case it cannot prove
 * to the decoded path.
 */
import { assert, describe, it } from "@effect/vitest"
import { applyEdit } from "@agent-tools/tools"
import { spanDiff } from "../../src/internal/diff.ts"
import { countNewlines, editBytes } from "../../src/edit/editBytes.ts"
import { decode, encode } from "../../src/internal/text.ts"

const utf8 = new TextEncoder()

/** `text` as bytes at byte offset `offset` of a buffer with `room` spare bytes after them. */
const bytesOf = (raw: Uint8Array, offset = 0, room = 0): Uint8Array => {
  const out = new Uint8Array(offset + raw.length + room).subarray(offset, offset + raw.length)
  out.set(raw)
  return out
}

/** What the decoded path writes and reports for the same edit. */
const decoded = (raw: Uint8Array, oldString: string, newString: string) => {
  const d = decode(raw)
  const r = applyEdit(d.text, oldString, newString, false)
  if (r._tag !== "Edited") return assert.fail(`the decoded path refused: ${r._tag}`)
  const bytes = encode(r.text, d.encoding, d.bom) as Uint8Array
  return { bytes: Array.from(bytes), strategy: r.strategy, matches: r.matches, diff: spanDiff("f", d.text, r.span) }
}

const both = (raw: Uint8Array, oldString: string, newString: string, offset = 0, room = 0) => {
  const expected = decoded(raw, oldString, newString)
  const got = editBytes("f", bytesOf(raw, offset, room), oldString, newString, false)
  if (got === undefined) return assert.fail("the byte path gave up")
  assert.deepStrictEqual(
    { bytes: Array.from(got.bytes), strategy: got.strategy, matches: got.matches, diff: got.diff },
    expected
  )
  return got
}

// 200 numbered functions, four lines each (at 2 spaces inside a namespace).
const big = (eol = "\n") =>
  Array.from({ length: 200 }, (_, i) => `  function f${i}() {${eol}    const v = ${i}${eol}    return v${eol}  }${eol}`).join("")

describe("editBytes: the same edit as the decoded file", () => {
  it("an exact quote in the middle of a long file, at every byte alignment, with and without spare room", () => {
    const raw = utf8.encode(big())
    for (const offset of [0, 1, 2, 3]) {
      for (const room of [0, 64]) {
        const got = both(raw, "  function f120() {\n    const v = 120", "  function f120() {\n    const v = 121", offset, room)
        assert.deepStrictEqual(got.matches, [{ startLine: 481, endLine: 482 }])
      }
    }
  })

  it("a quote without its indentation: re-indented like the decoded path does", () => {
    const got = both(utf8.encode(big()), "function f7() {\n  const v = 7\n  return v\n}", "function f7() {\n  const v = 70\n  return v\n}")
    assert.strictEqual(got.strategy, "indentation-flexible")
  })

  it("CRLF endings, a BOM and characters of several bytes before and inside the window", () => {
    const raw = utf8.encode("\uFEFF// naïve — ✅ 😀\r\n" + big("\r\n").replace("const v = 50", "const v = \"é50\""))
    const got = both(raw, "function f50() {\n  const v = \"é50\"", "function f50() {\n  const v = \"ê50\"")
    assert.isTrue(got.bom)
    assert.include(new TextDecoder().decode(got.bytes), "  function f50() {\r\n    const v = \"ê50\"\r\n")
  })

  it("the bytes read are left as they were (they are compared with the file again), the new file made apart", () => {
    const raw = utf8.encode(big())
    const read = bytesOf(raw, 0, 64)
    const before = Array.from(read)
    const edited = editBytes("f", read, "const v = 150\n", "const v = 15000000\n", false)!
    assert.deepStrictEqual(Array.from(read), before)
    assert.notStrictEqual(edited.bytes.buffer, read.buffer)
    assert.include(new TextDecoder().decode(edited.bytes), "const v = 15000000\n")
  })
})

describe("editBytes: left to the decoded path", () => {
  const cases: ReadonlyArray<readonly [string, Uint8Array, string, string]> = [
    ["not UTF-8 (Latin-1)", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]), "x", "y"],
    ["UTF-16", new Uint8Array([0xff, 0xfe, 0x78, 0, 0x0a, 0]), "x", "y"],
    ["every line of the quote occurs many times", utf8.encode(big()), "    return v\n  }", "    return w\n  }"],
    ["a quote that occurs twice", utf8.encode("a()\nb()\n\na()\nb()\n"), "a()\nb()", "a()\nc()"],
    ["a quote found only with the file's blank lines", utf8.encode("start()\n\nmiddle()\n\nfinish()\n"), "start()\nmiddle()\nfinish()", "start()\nmiddle(1)\nfinish()"],
    ["a quote of only whitespace", utf8.encode("a\n\n\nb\n"), "\n\n", "\n"],
    ["read-tool line numbers", utf8.encode("a\nb\nc\n"), "2: b\n3: c", "2: B\n3: c"],
    // Re-indented, and the quote's first line as quoted is also a whole line elsewhere: whether that
    // is another scope the quote meant is the decoded path's to decide.
    ["a re-indented quote whose first line, as quoted, is a whole line elsewhere too", utf8.encode("if (a) {\n  x()\n}\nclass K {\n  if (a) {\n    x()\n  }\n  y()\n}\n"), "if (a) {\n  x()\n}\ny()", "if (a) {\n  x(1)\n}\ny()"]
  ]
  for (const [name, raw, oldString, newString] of cases) {
    it(name, () => assert.isUndefined(editBytes("f", bytesOf(raw), oldString, newString, false)))
  }
})

describe("countNewlines", () => {
  it("counts at every alignment and cut", () => {
    const raw = utf8.encode("a\nbb\n\nccc\ndddd\n\n\neeeee\nf")
    for (const offset of [0, 1, 2, 3]) {
      const b = bytesOf(raw, offset)
      for (let to = 0; to <= b.length; to++) {
        assert.strictEqual(countNewlines(b, to), Array.from(b.subarray(0, to)).filter((x) => x === 10).length, `offset ${offset}, to ${to}`)
      }
    }
  })
})
