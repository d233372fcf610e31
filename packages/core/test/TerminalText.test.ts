import { describe, expect, it } from "@effect/vitest"
import { plain } from "../src/TerminalText.ts"

describe("TerminalText.plain", () => {
  it("drops colours, titles and mode switches, and turns CRLF into LF", () => {
    expect(plain("\x1b[31mred\x1b[0m\r\n>>> ")).toBe("red\n>>> ")
    expect(plain("\x1b]0;title\x07hi")).toBe("hi")
    expect(plain("\x1b[?2004h>>> 1+1\r\n2\r\n")).toBe(">>> 1+1\n2\n")
  })

  it("keeps what a carriage return or a backspace leaves visible on a line", () => {
    expect(plain("10%\r50%\r100%\n")).toBe("100%\n")
    expect(plain("abc\b\bX\n")).toBe("aXc\n")
    expect(plain("a\x1b[2K\rb")).toBe("b")
  })

  it("removes stray control characters but keeps tabs", () => {
    expect(plain("a\x07\tb\x00")).toBe("a\tb")
  })
})
