import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Stdio } from "effect"
import { Permission, ToolRegistry } from "@agent-tools/core"
import { AgentConfig } from "@agent-tools/node"
import { Exit, Input, Output, Prompt } from "@agent-tools/cli"

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

describe("Exit codes", () => {
  it("maps each failure to the contract's code", () => {
    const rejected = new Permission.PermissionRejectedError({ requestID: "r", permission: "edit", patterns: ["a"] })
    assert.strictEqual(Exit.codeOf(rejected), 3)
    assert.strictEqual(Exit.codeOf(new ToolRegistry.UnknownToolError({ tool: "x", available: [] })), 2)
    assert.strictEqual(Exit.codeOf(new AgentConfig.ConfigError({ problems: [] })), 2)
    assert.strictEqual(Exit.codeOf(new ToolRegistry.ToolUnavailableError({ tool: "x", agent: "b", reason: "a permission rule denies it" })), 3)
    assert.strictEqual(Exit.codeOf(new ToolRegistry.ToolUnavailableError({ tool: "x", agent: "b", reason: "it is disabled in the configuration" })), 2)
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
