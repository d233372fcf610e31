import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Stdio } from "effect"
import { Permission, ToolRegistry } from "@agent-tools/core"
import { AgentConfig } from "@agent-tools/runtime"
import { Exit, Input, Output, Prompt, Questions } from "@agent-tools/cli"

describe("Output.fresh (live progress)", () => {
  it("prints only what is new, for growing text and for a moving tail window", () => {
    assert.strictEqual(Output.fresh("", "a\n"), "a\n")
    assert.strictEqual(Output.fresh("a\n", "a\nb\n"), "b\n")
    // A window of the last 6 characters moving on.
    assert.strictEqual(Output.fresh("line 1\nline 2\n", "line 2\nline 3\n"), "line 3\n")
    const long = Array.from({ length: 100 }, (_, i) => `row ${i}`).join("\n")
    assert.strictEqual(Output.fresh(long.slice(0, 600), long.slice(300, 800)), long.slice(600, 800))
    // No overlap: more arrived than the window holds.
    assert.strictEqual(Output.fresh("abc", "xyz"), "xyz")
  })
})

describe("Prompt", () => {
  it("parses answers; an empty line rejects", () => {
    assert.strictEqual(Prompt.parseAnswer("o"), "once")
    assert.strictEqual(Prompt.parseAnswer(" YES "), "once")
    assert.strictEqual(Prompt.parseAnswer("a"), "always")
    assert.strictEqual(Prompt.parseAnswer("always"), "always")
    assert.strictEqual(Prompt.parseAnswer(""), "reject")
    assert.strictEqual(Prompt.parseAnswer("n"), "reject")
    assert.strictEqual(Prompt.parseAnswer("maybe"), undefined)
  })

  it("shows the command of bash and the real path of an outside directory", () => {
    assert.strictEqual(
      Prompt.render({ permission: "bash", patterns: ["rm -rf build"], always: ["rm *"], metadata: { command: "cd x && rm -rf build" } }),
      `Permission needed: bash\n  pattern: rm -rf build\n  command: cd x && rm -rf build\n  "always" allows for the rest of this call: rm *`
    )
    const outside = Prompt.render({
      permission: "external_directory",
      patterns: ["/etc/*"],
      metadata: { filepath: "/etc/hosts", requested: "/ws/link/hosts", access: "read" }
    })
    assert.include(outside, "  outside the workspace: /etc/hosts\n  (requested as /ws/link/hosts)\n  access: read")
  })
})

describe("control and bidi characters in prompts", () => {
  const hasRaw = (text: string) => /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(text)

  it("a command that repaints its prompt is shown escaped; its newlines stay under the label", () => {
    const command = "rm -rf ~ \x1b[2K\r\x1b[1Aecho hi\b\b \u202egnp.x\u2066"
    const shown = Prompt.render({
      permission: "bash",
      patterns: [command],
      metadata: { command, description: "list\x1b]0;title\x07 files\u200f" }
    })
    assert.isFalse(hasRaw(shown))
    assert.include(shown, "  command: rm -rf ~ \\x1b[2K\\r\\x1b[1Aecho hi\\x08\\x08 \\u202egnp.x\\u2066")
    assert.include(shown, "  description: list\\x1b]0;title\\x07 files\\u200f")
    const multi = Prompt.render({
      permission: "bash",
      patterns: ["cat <<EOF"],
      metadata: { command: "cat <<EOF\n  \"always\" allows for the rest of this call: *\nEOF\n" }
    })
    assert.strictEqual(
      multi,
      `Permission needed: bash\n  pattern: cat <<EOF\n  command:\n    cat <<EOF\n      "always" allows for the rest of this call: *\n    EOF\n  "always" allows for the rest of this call: cat <<EOF`
    )
  })

  it("paths and diffs are escaped; a diff keeps its lines", () => {
    const shown = Prompt.render({
      permission: "edit",
      patterns: ["a\u202e.ts"],
      metadata: { filepath: "/ws/a\u202e.ts", diff: "-old\x1b[8m\n+new\r\n" }
    })
    assert.isFalse(hasRaw(shown))
    assert.include(shown, "  file: /ws/a\\u202e.ts\n  diff:\n    -old\\x1b[8m\n    +new")
  })

  it("a question's text and options are escaped", () => {
    const shown = Questions.render(
      { header: "Pick\x1b[2J", question: "Which?\n  2. fake option", options: [{ label: "a\u2066", description: "b\r" }] },
      0,
      1
    )
    assert.isFalse(hasRaw(shown.replace(/^\n/, "")))
    assert.include(shown, "Pick\\x1b[2J: Which?\n  |   2. fake option\n  1. a\\u2066 — b\\r")
  })
})

describe("Exit codes", () => {
  it("maps each failure to the contract's code", () => {
    const rejected = new Permission.PermissionRejectedError({ requestID: "r", permission: "edit", patterns: ["a"] })
    assert.strictEqual(Exit.codeOf(rejected), 3)
    assert.strictEqual(Exit.codeOf(new ToolRegistry.UnknownToolError({ tool: "x", available: [] })), 2)
    assert.strictEqual(Exit.codeOf(new AgentConfig.ConfigError({ problems: [] })), 2)
    assert.strictEqual(Exit.codeOf(new ToolRegistry.ToolUnavailableError({ tool: "x", agent: "b", reason: "denied", detail: "the words do not matter" })), 3)
    assert.strictEqual(Exit.codeOf(new ToolRegistry.ToolUnavailableError({ tool: "x", agent: "b", reason: "disabled", detail: "a permission rule is not why" })), 2)
    assert.strictEqual(Exit.codeOf(new Error("boom")), 1)
  })
})

describe("Input.parseArguments", () => {
  it.effect("{} without arguments; objects only", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Input.parseArguments(Option.none()), {})
      assert.deepStrictEqual(yield* Input.parseArguments(Option.some(`{"a":1}`)), { a: 1 })
      const e = yield* Effect.flip(Input.parseArguments(Option.some(`"text"`)))
      assert.strictEqual(e.code, 2)
      assert.strictEqual(e.message, "The tool arguments must be a JSON object, got string in <json>.")
    }).pipe(Effect.provide(Stdio.layerTest({}))))
})
