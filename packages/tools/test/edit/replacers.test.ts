/**
 * The edit cascade on its own (pure): each strategy, ambiguity (fuzzy included), the merge that
 * keeps unchanged lines byte-exact, and the refusals of misquoted edits (indentation, whitespace,
 * misremembered lines, more than one match).
 */
import { assert, describe, it } from "@effect/vitest"
import { applyEdit, Replacers } from "@agent-tools/tools"

const plan = (content: string, oldString: string, newString: string, replaceAll = false) =>
  Replacers.plan(content, oldString, newString, replaceAll)

const applied = (content: string, oldString: string, newString: string, replaceAll = false) => {
  const p = plan(content, oldString, newString, replaceAll)
  if (p._tag !== "Plan") assert.fail(`expected a plan, got ${JSON.stringify(p)}`)
  return { text: Replacers.applyPlan(content, p), plan: p }
}

const rejected = (content: string, oldString: string, newString: string, replaceAll = false) => {
  const p = plan(content, oldString, newString, replaceAll)
  if (p._tag === "Plan") assert.fail(`expected an error, got ${JSON.stringify(p)}`)
  return p
}

describe("exact", () => {
  it("replaces a unique occurrence and reports the lines", () => {
    const { text, plan: p } = applied("a\nb\nc\n", "b", "B")
    assert.strictEqual(text, "a\nB\nc\n")
    assert.strictEqual(p.strategy, "exact")
    assert.deepStrictEqual(p.matches, [{ startLine: 2, endLine: 2 }])
  })

  it("counts overlapping occurrences: foo\\nfoo\\n twice in foo\\nfoo\\nfoo\\n", () => {
    const e = rejected("foo\nfoo\nfoo\n", "foo\nfoo\n", "bar\n")
    assert.deepStrictEqual(e, {
      _tag: "Ambiguous",
      strategy: "exact",
      matches: [{ startLine: 1, endLine: 2 }, { startLine: 2, endLine: 3 }],
      similarOnly: false
    })
  })

  it("replaceAll replaces every non-overlapping copy and reports multi-occurrence", () => {
    const { text, plan: p } = applied("x = a + a\ny = a\n", "a", "b", true)
    assert.strictEqual(text, "x = b + b\ny = b\n")
    assert.strictEqual(p.strategy, "multi-occurrence")
    assert.strictEqual(p.matches.length, 3)
  })

  it("writes newString verbatim: no blind unescape of \\\\n", () => {
    const { text } = applied('print("a")\n', 'print("a")', 'printf("x\\\\n")')
    assert.strictEqual(text, 'printf("x\\\\n")\n')
  })
})

describe("refusals", () => {
  it("identical strings", () => assert.deepStrictEqual(rejected("a", "a", "a"), { _tag: "Identical" }))
  it("empty oldString", () => assert.deepStrictEqual(rejected("a", "", "b"), { _tag: "EmptyOldString" }))
  it("whitespace-only oldString is matched exactly or not at all", () => {
    const e = rejected("a\tb\nc\td\n", " ", "X")
    assert.strictEqual(e._tag, "NotFound")
    if (e._tag === "NotFound") {
      assert.isTrue(e.whitespaceOnly)
      assert.deepStrictEqual(e.tried, ["exact"])
    }
    assert.strictEqual(rejected("a\n\nb\n", "\n\n\n", "X")._tag, "NotFound")
  })
  it("a fuzzy match whose result equals the file is 'no change'", () => {
    assert.deepStrictEqual(rejected("  foo()\n", "foo() ", "foo()"), { _tag: "NoChange", strategy: "line-trimmed" })
  })
})

describe("indentation", () => {
  const file = "class A {\n    method() {\n        if (x) {\n            run()\n        }\n    }\n}\n"

  it("a block quoted without its indentation matches and newString is re-indented", () => {
    const { text, plan: p } = applied(file, "if (x) {\n    run()\n}", "if (x) {\n    run()\n    log()\n}")
    assert.strictEqual(p.strategy, "indentation-flexible")
    assert.isTrue(p.reindented)
    assert.deepStrictEqual(p.matches, [{ startLine: 3, endLine: 5 }])
    assert.strictEqual(text, file.replace("            run()\n", "            run()\n            log()\n"))
  })

  it("tabs in the file, spaces in the edit: the result uses tabs", () => {
    const go = "func main() {\n\tif ok {\n\t\tdo()\n\t}\n}\n"
    const { text } = applied(go, "    if ok {\n        do()\n    }", "    if ok {\n        do()\n        more()\n    }")
    assert.strictEqual(text, "func main() {\n\tif ok {\n\t\tdo()\n\t\tmore()\n\t}\n}\n")
  })

  it("four spaces where the file has a tab", () => {
    const { text, plan: p } = applied("alpha\n\tbeta_line\ngamma\n", "    beta_line", "    beta_line2")
    assert.strictEqual(text, "alpha\n\tbeta_line2\ngamma\n")
    assert.notStrictEqual(p.strategy, "exact")
  })

  it("trailing spaces in the file: line-trimmed, and the untouched line keeps its spaces", () => {
    const { text, plan: p } = applied("a = 1   \nb = 2\t\nc = 3\n", "a = 1\nb = 2", "a = 1\nb = 20")
    assert.strictEqual(p.strategy, "line-trimmed")
    assert.strictEqual(text, "a = 1   \nb = 20\nc = 3\n")
  })

  it("two differently indented copies: ambiguity, not the first one (opencode picks the first)", () => {
    const e = rejected("  x()\n  y()\n\n      x()\n      y()\n", "    x()\n    y()", "z()")
    assert.deepStrictEqual(e._tag === "Ambiguous" ? e.matches : e, [{ startLine: 1, endLine: 2 }, { startLine: 4, endLine: 5 }])
  })

  it("a quote equal to a block in another scope is ambiguous with the block at the quoted indentation", () => {
    const file = "\tstart()\n\tbody(1)\n\tend()\n\t\t\t\tstart()\n\t\t\t\tbody(2)\n\t\t\t\tend()\n"
    const e = rejected(file, "\t\t\t\tstart()\n\t\t\t\tbody(1)\n\t\t\t\tend()", "\t\t\t\tstart()\n\t\t\t\tbody(3)\n\t\t\t\tend()")
    assert.strictEqual(e._tag, "Ambiguous")
    if (e._tag === "Ambiguous") assert.deepStrictEqual(e.matches, [{ startLine: 1, endLine: 3 }, { startLine: 4, endLine: 6 }])
  })
})

describe("whitespace-normalized", () => {
  it("collapsed internal whitespace", () => {
    const { text, plan: p } = applied("const  x =   1\n", "const x = 1", "const x = 2")
    assert.strictEqual(p.strategy, "whitespace-normalized")
    assert.strictEqual(text, "const x = 2\n")
  })

  it("two lines equal up to whitespace are ambiguous", () => {
    const e = rejected("alpha   beta\nalpha\tbeta\n", "alpha beta", "x")
    assert.deepStrictEqual(e, {
      _tag: "Ambiguous",
      strategy: "whitespace-normalized",
      matches: [{ startLine: 1, endLine: 1 }, { startLine: 2, endLine: 2 }],
      similarOnly: false
    })
  })

  it("inside a line, token by token", () => {
    const { text } = applied("call(a,  b) + other\n", "call(a, b)", "call(b, a)")
    assert.strictEqual(text, "call(b, a) + other\n")
  })
})

describe("escape-normalized and trimmed-boundary", () => {
  it("literal \\n in oldString matches a real newline; newString is unescaped the same way", () => {
    const { text, plan: p } = applied("a\nb\n", "a\\nb", "c\\nd")
    assert.strictEqual(p.strategy, "escape-normalized")
    assert.isTrue(p.unescaped)
    assert.strictEqual(text, "c\nd\n")
  })

  it("stray blank lines around an exact quote", () => {
    const { text, plan: p } = applied("x\n  foo()\n  bar()\ny\n", "\n\n  foo()\n  bar()\n\n", "\n\n  foo2()\n  bar()\n\n")
    assert.strictEqual(p.strategy, "trimmed-boundary")
    assert.strictEqual(text, "x\n  foo2()\n  bar()\ny\n")
  })
})

describe("block-anchor and context-aware", () => {
  const go = "func a() {\n\tx := 1\n\ty := 2\n\tz := 3\n}\n"

  it("a middle line the file does not have (y := 99) is refused, naming the line", () => {
    const e = rejected(go, "func a() {\n\tx := 1\n\ty := 99\n\tz := 3\n}", "func a() {\n\tx := 10\n\ty := 99\n\tz := 3\n}")
    assert.strictEqual(e._tag, "NotFound")
    if (e._tag === "NotFound") {
      assert.strictEqual(e.nearMiss?.line, 2)
      assert.strictEqual(e.nearMiss?.fileText, "\ty := 2")
    }
  })

  const ts = [
    "function load(config) {",
    "  const timeout = config.timeoutMs ?? 3000",
    "  const retries = config.retries ?? 5",
    "  return fetchWithRetry(config.url, { timeout, retries })",
    "}",
    ""
  ].join("\n")

  it("a typo in a middle line still locates the block; the file's line is kept where the edit does not change it", () => {
    const old = ts.replace("config.retries ?? 5", "config.retrys ?? 5").trimEnd()
    const next = old.replace("return fetchWithRetry", "return await fetchWithRetry")
    const { text, plan: p } = applied(ts, old, next)
    assert.strictEqual(p.strategy, "block-anchor")
    assert.strictEqual(text, ts.replace("return fetchWithRetry", "return await fetchWithRetry"))
    assert.include(text, "config.retries ?? 5") // not the model's "retrys"
  })

  it("changing the misremembered line itself is a conflict", () => {
    const old = ts.replace("config.retries ?? 5", "config.retrys ?? 5").trimEnd()
    const e = rejected(ts, old, old.replace("config.retrys ?? 5", "config.retrys ?? 7"))
    assert.deepStrictEqual(e._tag === "Conflict" ? [e.line, e.fileText] : e, [3, "  const retries = config.retries ?? 5"])
  })

  it("missing blank lines in the quote: matched, and the file's blank lines stay", () => {
    const file = "start()\n\nmiddle()\n\nfinish()\n"
    const { text, plan: p } = applied(file, "start()\nmiddle()\nfinish()", "start()\nmiddle(1)\nfinish()")
    assert.strictEqual(p.strategy, "block-anchor")
    assert.strictEqual(text, "start()\n\nmiddle(1)\n\nfinish()\n")
  })

  it("context-aware: the first line drifted a little, the middle is exact", () => {
    const file = "// load the user config\nconst a = 1\nconst b = 2\nconst c = 3\nexport { a, b, c }\n"
    const { text, plan: p } = applied(
      file,
      "// load the user's config\nconst a = 1\nconst b = 2\nconst c = 3\nexport { a, b, c }",
      "// load the user's config\nconst a = 1\nconst b = 20\nconst c = 3\nexport { a, b, c }"
    )
    assert.strictEqual(p.strategy, "context-aware")
    assert.strictEqual(text, file.replace("const b = 2", "const b = 20"))
  })

  it("context-aware after a near miss elsewhere: the block whose numbered lines match is found", () => {
    const block = (first: string, middle: string) => [first, "const timeout = 3000", middle, "const retries = 15", "// end"].join("\n")
    // The first block lines up with the quote's first and last lines but not its middle (a near
    // miss); the second has the quote's middle, under a first line that drifted a little.
    const file = `${block("// settings", 'const name = "alpha"')}\n\n${block("// settings:", "const size = 1024")}\n`
    const quote = block("// settings", "const size = 1024")
    const { text, plan: p } = applied(file, quote, quote.replace("1024", "2048"))
    assert.strictEqual(p.strategy, "context-aware")
    assert.strictEqual(text, file.replace("const size = 1024", "const size = 2048"))
    const e = rejected(file, quote.replace("= 15", "= 16"), "x")
    assert.deepStrictEqual(e._tag === "NotFound" ? [e.nearMiss?.line, e.nearMiss?.fileText] : e, [2, 'const name = "alpha"'])
  })

  it("two similar blocks are ambiguous, and replaceAll does not apply to similarity matches", () => {
    const file = "if (a) {\n  run(1)\n}\nif (a) {\n  run(2)\n}\n"
    const e = rejected(file, "if (a) {\n  run(9)\n}", "if (a) {\n  run(0)\n}")
    assert.strictEqual(e._tag, "NotFound") // run(9) vs run(1)/run(2): 0.83 < 0.85 on each
    const f = "if (a) {\n  compute(alpha, beta)\n}\nif (a) {\n  compute(alpha, betb)\n}\n"
    const amb = rejected(f, "if (a) {\n  compute(alpha, betc)\n}", "x", true)
    assert.deepStrictEqual(amb._tag === "Ambiguous" ? [amb.strategy, amb.similarOnly] : amb, ["block-anchor", true])
  })
})

describe("values and read-output prefixes", () => {
  it("a line whose number differs is never 'similar', however long (a value, not a typo)", () => {
    const file = "const options = {\n  retries: 3,\n  timeoutMilliseconds: 3000,\n  verbose: false,\n}\n"
    const e = rejected(file, file.replace("3000", "5000").trimEnd(), file.replace("3000", "5000").replace("false", "true").trimEnd())
    assert.strictEqual(e._tag === "NotFound" ? e.nearMiss?.fileText : e._tag, "  timeoutMilliseconds: 3000,")
  })

  it("the read tool's `N: ` prefixes are removed when nothing matches as written", () => {
    const file = "a\n  b\nc\n"
    const { text, plan: p } = applied(file, "2:   b\n3: c", "2:   B\n3: c")
    assert.strictEqual(text, "a\n  B\nc\n")
    assert.isTrue(p.lineNumbersStripped)
    // A file whose lines really start with digits and a colon is matched as written first.
    assert.strictEqual(applied("12: x\n", "12: x", "12: y").text, "12: y\n")
    assert.isUndefined(Replacers.stripReadPrefixes("2: a\n4: b")) // not in sequence
  })
})

describe("newlines of line matches", () => {
  it("oldString and newString ending with a newline replace whole lines, no doubled blank line", () => {
    const { text } = applied("a\n  b\nc\n", "b\n", "B\n")
    assert.strictEqual(text, "a\n  B\nc\n")
  })
  it("an empty newString deletes the matched lines", () => {
    const { text } = applied("a\n  b\n  c\nd\n", "b\nc\n", "")
    assert.strictEqual(text, "a\nd\n")
  })
})

describe("what is written is what newString says", () => {
  it("a blank line the quote left out and newString keeps is written once, not twice", () => {
    const file = "function a() {\n  return 1\n}\n\nfunction b() {\n  const x = compute()\n  return x + 1\n}\n"
    const { text } = applied(
      file,
      "}\nfunction b() {\n  const x = compute()\n  return x + 1\n}",
      "}\n\nfunction b() {\n  const x = compute()\n  return x + 2\n}"
    )
    assert.strictEqual(text, file.replace("x + 1", "x + 2"))
  })

  it("a blank line newString adds where the file has none is written", () => {
    const { text } = applied("a()\nb()\nc()\nd()\n", "a()\nb()\nc()", "a()\n\nb()\nc()")
    assert.strictEqual(text, "a()\n\nb()\nc()\nd()\n")
  })

  it("a blank line added after a replaced line does not take the place of the file's blank line before it", () => {
    const file = "}\n\nexport type A = B<\n  one,\n  two\n>;\n"
    const { text } = applied(file, "}\nexport type A = B<\n  one,\n  two\n>;", "}\nexport type A = C<\n\n  one,\n  two\n>;")
    assert.strictEqual(text, "}\n\nexport type A = C<\n\n  one,\n  two\n>;\n")
  })

  it("newString that leaves out the file's blank lines like the quote: its blank line is a new one", () => {
    const yaml = "  a:\n    optional: true\n\n  b:\n    optional: true\n\n  c:\n    optional: true\n"
    const { text } = applied(
      yaml,
      "    optional: true\n  b:\n    optional: true\n  c:\n    optional: true",
      "    optional: true\n  b:\n    optional: false\n\n  c:\n    optional: true"
    )
    assert.strictEqual(text, "  a:\n    optional: true\n\n  b:\n    optional: false\n\n\n  c:\n    optional: true\n")
    // newString that has the file's other blank line too: its blank line beside the file's is that one.
    const kept = applied(
      yaml,
      "    optional: true\n  b:\n    optional: true\n  c:\n    optional: true",
      "    optional: true\n\n  b:\n    optional: false\n\n  c:\n    optional: true"
    )
    assert.strictEqual(kept.text, "  a:\n    optional: true\n\n  b:\n    optional: false\n\n  c:\n    optional: true\n")
  })

  it("the file's own blank line stays when the quote is re-indented and carries a spurious blank line", () => {
    const file = "class A {\n\tm() {\n\t\tone()\n\n\t\ttwo()\n\t\tthree()\n\t}\n}\n"
    const { text } = applied(
      file,
      "    m() {\n        one()\n\n        two()\n\n        three()\n    }",
      "\tm() {\n\t\tone()\n\n\t\ttwo()\n\t\tthree(3)\n\t}"
    )
    assert.strictEqual(text, file.replace("three()", "three(3)"))
  })

  it("newString already at the file's indentation is not re-indented", () => {
    const file = "function f() {\n  if (a) {\n    b()\n  }\n}\n"
    const { text, plan: p } = applied(file, "    if (a) {\n      b()\n    }", "  if (a) {\n    b(1)\n  }")
    assert.strictEqual(text, file.replace("b()", "b(1)"))
    assert.isFalse(p.reindented)
  })

  it("newString at the quote's indentation is moved to the file's, Python included", () => {
    const file = "class A:\n    def f(self):\n        if x:\n            run()\n        return 1\n"
    const { text, plan: p } = applied(file, "if x:\n    run()\nreturn 1", "if x:\n    run()\n    log()\nreturn 1")
    assert.strictEqual(text, file.replace("            run()\n", "            run()\n            log()\n"))
    assert.isTrue(p.reindented)
  })

  it("a quote that lost its relative indentation: each new line takes the indentation of the line it replaces", () => {
    assert.strictEqual(applied("  hello\n    world\n", "hello\nworld", "goodbye\nmoon").text, "  goodbye\n    moon\n")
  })

  it("newString is unescaped only when it is escaped like oldString", () => {
    const file = 'const eol = "\\r\\n"\nfoo()\n'
    const escaped = JSON.stringify('const eol = "\\r\\n"\nfoo()').slice(1, -1)
    const plain = applied(file, escaped, 'const eol = "\\r\\n"\nbar()')
    assert.strictEqual(plain.text, 'const eol = "\\r\\n"\nbar()\n')
    assert.isFalse(plain.plan.unescaped)
    const both = applied(file, escaped, JSON.stringify('const eol = "\\r\\n"\nbar()').slice(1, -1))
    assert.strictEqual(both.text, 'const eol = "\\r\\n"\nbar()\n')
    assert.isTrue(both.plan.unescaped)
  })

  it("of two similar blocks, the one equal to the quote on every line is not ambiguous", () => {
    const block = (word: string) => `function a() {\n  const value = compute(${word})\n\n  return value\n}\n`
    const file = block("alpha") + block("alphb")
    const { text, plan: p } = applied(
      file,
      "function a() {\n  const value = compute(alpha)\n  return value\n}",
      "function a() {\n  const value = compute(alpha)\n  return value + 1\n}"
    )
    assert.strictEqual(p.strategy, "block-anchor")
    assert.strictEqual(text, block("alpha").replace("return value", "return value + 1") + block("alphb"))
  })

  it("whitespace inside a line: `function  myFunc( a, b )` is found from `function myFunc(a, b)`", () => {
    const { text, plan: p } = applied("function  myFunc( a, b ) {\n  return a\n}\n", "function myFunc(a, b)", "function myFunc(a, b, c)")
    assert.strictEqual(p.strategy, "whitespace-normalized")
    assert.strictEqual(text, "function myFunc(a, b, c) {\n  return a\n}\n")
    const lines = applied("if ( ready ) {\n  go( 1 )\n}\n", "if (ready) {\n  go(1)\n}", "if (ready) {\n  go(2)\n}")
    assert.strictEqual(lines.text, "if ( ready ) {\n  go(2)\n}\n")
    // Words stay apart: `returnx` is not `return x`, and a word is not found inside a longer one.
    assert.strictEqual(rejected("returnx\n", "return x", "return y")._tag, "NotFound")
    assert.strictEqual(rejected("notmyFunc( a )\n", "myFunc(a)", "myFunc(b)")._tag, "NotFound")
  })
})

describe("placeholders", () => {
  const file = "function f() {\n  const a = 1\n  const b = 2\n  return a + b\n}\n"

  it("`// ... rest of code ...` where the quote had real lines is refused", () => {
    const e = rejected(file, file.trimEnd(), "function f() {\n  // ... rest of code ...\n  return a + b + 1\n}")
    assert.deepStrictEqual(e, { _tag: "Placeholder", line: 2, text: "  // ... rest of code ...", replaced: 2 })
    assert.strictEqual(
      Replacers.describe(e, "f.ts", file, file),
      'newString line 2 is a placeholder, "// ... rest of code ...", where oldString has 2 real lines: the edit replaces ' +
        "text literally, so those lines would be deleted from f.ts. Spell those lines out in newString (quote only the " +
        'lines you change in oldString to keep it short); do not abbreviate with "..." or comments like "... rest of code ...".'
    )
  })

  it("`# ... existing code ...` in Python", () => {
    const py = "def f():\n    a = 1\n    b = 2\n    return a + b\n"
    const e = rejected(py, py.trimEnd(), "def f():\n    # ... existing code ...\n    return a + b + 1")
    assert.strictEqual(e._tag, "Placeholder")
  })

  it("a placeholder the quote has too, an added comment with an ellipsis, and Python's `...` are written", () => {
    const stub = "def f():\n    # ... existing code ...\n    return 1\n"
    assert.strictEqual(applied(stub, "    return 1", "    return 2").text, stub.replace("1", "2"))
    assert.strictEqual(
      applied(file, "  return a + b", "  // ... then add them\n  return a + b").text,
      file.replace("  return", "  // ... then add them\n  return")
    )
    assert.strictEqual(applied("def g():\n    pass\n", "    pass", "    ...").text, "def g():\n    ...\n")
  })

  it("a bare `...`, `…` or `[...]` line standing for real lines is refused, however indented", () => {
    for (const dots of ["...", "…", "[...]", "    ...", "(...)"]) {
      const e = rejected(file, file.trimEnd(), `function f() {\n${dots}\n  return a + b + 1\n}`)
      assert.deepStrictEqual(e, { _tag: "Placeholder", line: 2, text: dots, replaced: 2 }, dots)
    }
    const py = "class A:\n    def f(self):\n        a = 1\n        b = 2\n        return a + b\n"
    assert.strictEqual(rejected(py, py.trimEnd(), "class A:\n    def f(self):\n        ...\n        return a + b + 1")._tag, "Placeholder")
  })

  it("a `...` the quote has at the same place, a Python stub body and a spread are written", () => {
    const stub = "def f():\n    ...\n\ndef g():\n    return 1\n"
    assert.strictEqual(applied(stub, "def f():\n    ...", "def f(x):\n    ...").text, stub.replace("f()", "f(x)"))
    assert.strictEqual(applied(stub, "def g():\n    return 1", "def g():\n    return 1\n\ndef h():\n    ...").text, stub + "\ndef h():\n    ...\n")
    const js = "function f(a) {\n  return g(a)\n}\n"
    assert.strictEqual(applied(js, "function f(a) {\n  return g(a)", "function f(...args) {\n  return g(\n    ...args\n  )").text.includes("    ...args\n"), true)
  })
})

describe("quotes that differ, and where added lines go", () => {
  it("a different identifier on a long context line is refused, however small its share of the line", () => {
    const file = "function find(id) {\n  return this.repository.findAll({ where: { owner: user.id }, include: ['tags'] })\n  // done\n}\n"
    const old = file.replace("owner:", "admin:").trimEnd()
    const e = rejected(file, old, old.replace("// done", "// finished"))
    assert.strictEqual(e._tag === "NotFound" ? e.nearMiss?.line : e._tag, 1)
    // A misspelt word is still the same line.
    const typo = file.replace("repository", "repositry").trimEnd()
    assert.strictEqual(applied(file, typo, typo.replace("// done", "// finished")).text, file.replace("// done", "// finished"))
  })

  it("two quoted lines with the file's blank line between them left out", () => {
    const yaml = "a:\n  x: 1\n\nb:\n  y: 2\n"
    assert.strictEqual(applied(yaml, "  x: 1\nb:", "  x: 1\n\n# b follows\nb:").text, "a:\n  x: 1\n\n# b follows\nb:\n  y: 2\n")
  })

  it("a JSON-escaped quote of a CRLF file (\\r\\n escapes) matches its lines", () => {
    const file = "if (a) {\r\n  go()\r\n}\r\n"
    const r = applyEdit(file, "if (a) {\\r\\n  go()\\r\\n}", "if (a) {\\r\\n  go(1)\\r\\n}", false)
    assert.strictEqual(r._tag === "Edited" ? r.text : r._tag, "if (a) {\r\n  go(1)\r\n}\r\n")
  })

  it("a line added after a replaced one, where the quote left out a blank line, goes after the blank line", () => {
    const file = "  one: 1\n\nnext:\n"
    assert.strictEqual(applied(file, "  one: 1\nnext:", "  one: 2\n# about next\nnext:").text, "  one: 2\n\n# about next\nnext:\n")
    // …and a line added before the replaced one stays before it.
    assert.strictEqual(applied(file, "  one: 1\nnext:", "  # about one\n  one: 2\nnext:").text, "  # about one\n  one: 2\n\nnext:\n")
  })
})

describe("an oldString that stops inside a line", () => {
  const file = "a()\nx = f();\nb()\n"

  it("with newString's last line the whole line, replaces the line to its end instead of keeping its tail twice", () => {
    const { text, plan: p } = applied(file, "a()\nx", "a(1)\nx = f();")
    assert.strictEqual(text, "a(1)\nx = f();\nb()\n")
    assert.strictEqual(p.lineCompleted, true)
    // An edited version of the line whose tail is the rest of the file's line.
    assert.strictEqual(applied(file, "x = f(", "x = g(1).f();").text, "a()\nx = g(1).f();\nb()\n")
    assert.strictEqual(applied("return x;\n", "return x", "return y;").text, "return y;\n")
  })

  it("a prefix edited on its own is not extended", () => {
    assert.strictEqual(applied(file, "x = f", "y = f").text, "a()\ny = f();\nb()\n")
    // newString adds a call: its brackets nest unlike the file's line, so the `)` is not the line's tail.
    assert.strictEqual(applied("f(g(x))\n", "f(g(x)", "f(g(h(x))").text, "f(g(h(x)))\n")
    assert.strictEqual(applied(file, "x = f();", "x = f(); // done").plan.lineCompleted, undefined)
  })
})

describe("typographic quotes", () => {
  it("curly quotes in oldString match the file's straight ones; the file keeps its quotes where newString repeats them", () => {
    const file = `const a = "hello";\nconst b = 'it's';\nlog("done")\n`
    const { text, plan: p } = applied(file, "const a = “hello”;\nconst b = ‘it’s’;", "const a = “hello, world”;\nconst b = ‘it’s’;")
    assert.strictEqual(p.strategy, "quote-normalized")
    assert.strictEqual(text, `const a = "hello, world";\nconst b = 'it's';\nlog("done")\n`)
  })

  it("the reverse: straight quotes in oldString match curly ones in the file, which stay curly", () => {
    const file = "title = “Café”\nsub = ‘menu’\n"
    const { text } = applied(file, 'title = "Café"\nsub = \'menu\'', 'title = "Café Noir"\nsub = \'menu\'')
    assert.strictEqual(text, "title = “Café Noir”\nsub = ‘menu’\n")
  })

  it("a quote newString changes comes from newString; two folded matches are ambiguous", () => {
    assert.strictEqual(applied('say("hi")\n', "say(“hi”)", "say('hi')").text, "say('hi')\n")
    assert.strictEqual(rejected('a = "x"\nb = "x"\n', "= “x”", "= “y”")._tag, "Ambiguous")
  })
})
