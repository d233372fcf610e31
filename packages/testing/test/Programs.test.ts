import { assert, describe, it } from "@effect/vitest"
import { Programs } from "@agent-tools/testing"

describe("Programs", () => {
  it("a missing program makes the requirement fail, and the note names it", () => {
    const needs = Programs.requires("node", "agent-tools-no-such-program", "agent-tools-nor-this")
    assert.isFalse(needs.ok)
    assert.deepStrictEqual(needs.missing, ["agent-tools-no-such-program", "agent-tools-nor-this"])
    assert.strictEqual(needs.note, " (skipped: agent-tools-no-such-program and agent-tools-nor-this are not installed)")
    assert.strictEqual(Programs.requires("agent-tools-no-such-program").note, " (skipped: agent-tools-no-such-program is not installed)")
  })

  it("programs that run here pass, with no note", () => {
    assert.isTrue(Programs.hasProgram("node"))
    assert.deepStrictEqual(Programs.requires("node"), { ok: true, missing: [], note: "" })
  })
})
