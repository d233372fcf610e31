import { assert, describe, it } from "@effect/vitest"
import { DisplayText } from "@agent-tools/core"

describe("DisplayText", () => {
  it("line: escape codes, carriage returns, backspaces, C1 and bidi controls become visible escapes", () => {
    assert.strictEqual(
      DisplayText.line("a\x1b[2K\rb\bc\x7f\x9b\x00\t\nd"),
      "a\\x1b[2K\\rb\\x08c\\x7f\\x9b\\x00\\t\\nd"
    )
    assert.strictEqual(
      DisplayText.line("\u202a\u202b\u202c\u202d\u202e|\u2066\u2067\u2068\u2069|\u200e\u200f\u061c|\u200b\ufeff\u2028\u2029"),
      "\\u202a\\u202b\\u202c\\u202d\\u202e|\\u2066\\u2067\\u2068\\u2069|\\u200e\\u200f\\u061c|\\u200b\\ufeff\\u2028\\u2029"
    )
    // tag characters (invisible text) and a lone surrogate
    assert.strictEqual(DisplayText.line("x\u{e0041}y\ud800"), "x\\u{e0041}y\\ud800")
    // ordinary text, accents, CJK and emoji pass unchanged
    assert.strictEqual(DisplayText.line("héllo 世界 🙂 \\x1b"), "héllo 世界 🙂 \\x1b")
    assert.isTrue(DisplayText.isSafe("rm -rf build"))
    assert.isFalse(DisplayText.isSafe("rm\u202e"))
  })

  it("block: newlines kept behind a gutter, tabs kept, a lone CR escaped, CRLF one newline", () => {
    assert.strictEqual(DisplayText.block("a\r\nb\tc\rd\n\x1b[1Ae", "  | "), "a\n  | b\tc\\rd\n  | \\x1b[1Ae")
  })
})
