import { describe, expect, it } from "@effect/vitest"
import * as Wildcard from "../src/Wildcard.ts"

describe("Wildcard.match", () => {
  // [string, pattern, expected]
  const table: ReadonlyArray<readonly [string, string, boolean]> = [
    // the " *" tail makes arguments optional, without matching a longer command name
    ["ls", "ls *", true],
    ["ls -la", "ls *", true],
    ["lstmeval", "ls *", false],
    ["lsof", "ls *", false],
    ["git status --short", "git status *", true],
    ["git statusx", "git status *", false],
    // anchored at both ends
    ["ls", "ls", true],
    ["ls -la", "ls", false],
    ["xls", "ls", false],
    // `*` crosses `/` (no path-segment semantics) and matches nothing at all
    ["src/a/b/c.ts", "src/*", true],
    ["src/", "src/*", true],
    ["src/a/b/c.ts", "*.ts", true],
    ["*", "*", true],
    ["", "*", true],
    // `?` is exactly one character
    ["a.ts", "?.ts", true],
    ["ab.ts", "?.ts", false],
    [".ts", "?.ts", false],
    // regex specials are literal
    ["a.ts", "a.ts", true],
    ["abts", "a.ts", false],
    ["[abc]", "[abc]", true],
    ["a", "[abc]", false],
    ["a+b(c)|d^e$f{1}", "a+b(c)|d^e$f{1}", true],
    ["aab", "a+b", false],
    ["echo $HOME", "echo $HOME", true],
    // backslashes are path separators on both sides
    ["C:\\Users\\me\\a.txt", "C:/Users/*", true],
    ["C:/Users/me/a.txt", "C:\\Users\\*", true],
    ["a\\b", "a/b", true],
    // dotAll: `*` spans newlines in multi-line commands
    ["echo a\nrm -rf /", "echo *", true],
    ["git commit -m 'x\ny'", "git commit *", true],
    ["a\nb", "a?b", true],
    // case-sensitive by default
    ["LS", "ls", false],
    ["Src/A.ts", "src/*", false]
  ]
  for (const [str, pattern, expected] of table) {
    it(`${JSON.stringify(str)} ~ ${JSON.stringify(pattern)} → ${expected}`, () => {
      expect(Wildcard.match(str, pattern)).toBe(expected)
    })
  }

  it("is case-insensitive on Windows only", () => {
    expect(Wildcard.match("SRC\\A.TS", "src/*.ts", { platform: "win32" })).toBe(true)
    expect(Wildcard.match("SRC/A.TS", "src/*.ts", { platform: "linux" })).toBe(false)
    expect(Wildcard.match("SRC/A.TS", "src/*.ts", { platform: "posix" })).toBe(false)
  })

  it("compiles each pattern once and reuses it", () => {
    const a = Wildcard.compile("npm run *")
    expect(Wildcard.compile("npm run *")).toBe(a)
    // a different platform is a different regex (flags differ)
    expect(Wildcard.compile("npm run *", { platform: "win32" })).not.toBe(a)
    expect(a.source).toBe("^npm run( .*)?$")
    expect(a.flags).toBe("s")
  })

  it("stays correct past the cache bound", () => {
    for (let i = 0; i < 5000; i++) expect(Wildcard.match(`cmd${i} x`, `cmd${i} *`)).toBe(true)
    expect(Wildcard.match("cmd0", "cmd0 *")).toBe(true)
    expect(Wildcard.match("cmd01", "cmd0 *")).toBe(false)
  })

  it("hasWildcard", () => {
    expect(Wildcard.hasWildcard("yarn")).toBe(false)
    expect(Wildcard.hasWildcard("yarn *")).toBe(true)
    expect(Wildcard.hasWildcard("a?.ts")).toBe(true)
  })
})
