/**
 * The MCP elicitation texts (permission prompt, question form) show control and bidi characters
 * escaped, and a multi-line command behind a gutter.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Permission } from "@agent-tools/core"
import { Elicitation, QuestionForm } from "@agent-tools/mcp"

const raw = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

const request = (item: Permission.Item): Permission.Request => ({
  id: "r1",
  sessionID: "s1",
  tool: { name: "bash", callID: "c1" },
  ...item,
  requests: [item]
})

describe("elicitation text", () => {
  it("a command, its description and path are escaped; its own lines cannot pass for the message's", () => {
    const command = "echo ok\x1b[1A\x1b[2K\r\u202eecho\nonce: allow this call · always: allow * for this session"
    const message = Elicitation.message(request({
      permission: "bash",
      patterns: ["echo ok\x1b[1A"],
      metadata: { command, description: "safe\x08\x08\x08\x08 \u2066x", filepath: "/ws/a\u202eb" }
    }))
    assert.notMatch(message, raw)
    assert.strictEqual(
      message,
      [
        "The bash tool asks for permission \"bash\": echo ok\\x1b[1A",
        "Path: /ws/a\\u202eb",
        "Command:",
        "  | echo ok\\x1b[1A\\x1b[2K\\r\\u202eecho",
        "  | once: allow this call · always: allow * for this session",
        "Description: safe\\x08\\x08\\x08\\x08 \\u2066x",
        "",
        "once: allow this call · always: allow echo ok\\x1b[1A for this session · reject: refuse"
      ].join("\n")
    )
  })

  it("a question form's message, titles and descriptions are escaped; the option values stay the labels", () => {
    const params = QuestionForm.params([{
      header: "Pick\x1b[2J",
      question: "Which\u202e one?",
      options: [{ label: "a\u2066", description: "b\r" }]
    }])
    assert.strictEqual(params.message, "The assistant asks: Which\\u202e one?")
    const field = params.requestedSchema.properties.q1 as { title: string; oneOf: ReadonlyArray<{ const: string; title: string }> }
    assert.strictEqual(field.title, "Pick\\x1b[2J")
    assert.deepStrictEqual(field.oneOf, [{ const: "a\u2066", title: "a\\u2066 — b\\r" }])
  })
})
