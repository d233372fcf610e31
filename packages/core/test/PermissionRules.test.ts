import { assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Ruleset } from "../src/Permission.ts"
import * as PermissionRules from "../src/PermissionRules.ts"

const HOME = "/home/me"
const parse = (config: unknown) => PermissionRules.fromConfig(config, { home: HOME })

describe("PermissionRules.evaluate", () => {
  it("last matching rule wins; no match asks with no rule", () => {
    const rules: Ruleset = [
      { permission: "bash", pattern: "*", action: "ask" },
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "bash", pattern: "git push *", action: "deny" }
    ]
    expect(PermissionRules.evaluate("bash", "git status", rules)).toEqual({ action: "allow", rule: rules[1] })
    expect(PermissionRules.evaluate("bash", "git push origin", rules)).toEqual({ action: "deny", rule: rules[2] })
    expect(PermissionRules.evaluate("bash", "ls", rules)).toEqual({ action: "ask", rule: rules[0] })
    expect(PermissionRules.evaluate("edit", "a.ts", rules)).toEqual({ action: "ask", rule: undefined })
  })

  it("later rulesets override earlier ones; permissions match as wildcards", () => {
    const base: Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]
    const agent: Ruleset = [{ permission: "edit", pattern: "*.env", action: "deny" }]
    expect(PermissionRules.evaluate("edit", "a/.env", base, agent).action).toBe("deny")
    expect(PermissionRules.evaluate("edit", "a.ts", base, agent).action).toBe("allow")
    expect(PermissionRules.evaluate("edit", "a/.env", agent, base).action).toBe("allow")
    expect(PermissionRules.evaluate("read", "x", undefined, base, undefined).rule).toBe(base[0])
    expect(PermissionRules.merge(base, undefined, agent)).toEqual([...base, ...agent])
  })

  // One documented precedence rule — order, not specificity. Both orders of the same keys:
  it.effect("precedence table: catch-all first denies rm, catch-all last allows it (last match wins)", () =>
    Effect.gen(function*() {
      const denyLast = yield* parse({ bash: { "*": "allow", "rm *": "deny" } })
      const denyFirst = yield* parse({ bash: { "rm *": "deny", "*": "allow" } })
      const table: ReadonlyArray<readonly [Ruleset, string, string]> = [
        [denyLast, "rm a", "deny"],
        [denyLast, "rm", "deny"],
        [denyLast, "rmdir a", "allow"],
        [denyLast, "ls", "allow"],
        // the later "*" wins over the earlier "rm *": put catch-alls first
        [denyFirst, "rm a", "allow"],
        [denyFirst, "ls", "allow"]
      ]
      for (const [rules, command, expected] of table) {
        expect([command, PermissionRules.evaluate("bash", command, rules).action]).toEqual([command, expected])
      }
    }))

  it("1000 evaluations of the same input give identical results", () => {
    const rules: Ruleset = [
      { permission: "bash", pattern: "*", action: "allow" },
      { permission: "bash", pattern: "rm *", action: "deny" },
      { permission: "bash", pattern: "mv *", action: "ask" }
    ]
    const inputs = ["rm -rf build", "mv a b", "ls", "rmdir x"]
    const first = inputs.map((c) => PermissionRules.evaluate("bash", c, rules))
    for (let i = 0; i < 1000; i++) {
      for (const [k, c] of inputs.entries()) expect(PermissionRules.evaluate("bash", c, rules)).toEqual(first[k])
    }
    expect(first.map((e) => e.action)).toEqual(["deny", "ask", "allow", "allow"])
  })
})

describe("PermissionRules.fromConfig", () => {
  it.effect("keeps insertion order; strings become `*` rules", () =>
    Effect.gen(function*() {
      const rules = yield* parse({
        edit: "ask",
        bash: { "*": "ask", "git status *": "allow" },
        external_directory: "ask"
      })
      expect(rules).toEqual([
        { permission: "edit", pattern: "*", action: "ask" },
        { permission: "bash", pattern: "*", action: "ask" },
        { permission: "bash", pattern: "git status *", action: "allow" },
        { permission: "external_directory", pattern: "*", action: "ask" }
      ])
      expect(yield* parse("deny")).toEqual([{ permission: "*", pattern: "*", action: "deny" }])
    }))

  it.effect("a bare bash command also matches it with arguments (yarn deny → yarn test denied)", () =>
    Effect.gen(function*() {
      const rules = yield* parse({ bash: { "*": "allow", "yarn": "deny", "git status": "allow", "npm ?": "ask" } })
      expect(rules.map((r) => r.pattern)).toEqual(["*", "yarn *", "git status *", "npm ?"])
      expect(PermissionRules.evaluate("bash", "yarn", rules).action).toBe("deny")
      expect(PermissionRules.evaluate("bash", "yarn test", rules).action).toBe("deny")
      expect(PermissionRules.evaluate("bash", "yarnpkg", rules).action).toBe("allow")
      expect(PermissionRules.evaluate("bash", "git status -s", rules).rule?.pattern).toBe("git status *")
      // only bash patterns are commands: an edit path stays exact
      const edit = yield* parse({ edit: { "package.json": "deny" } })
      expect(edit[0]?.pattern).toBe("package.json")
    }))

  it.effect("expands ~, ~/, $HOME and $HOME/ at the start only; $HOMEX stays", () =>
    Effect.gen(function*() {
      const rules = yield* parse({
        external_directory: {
          "~": "allow",
          "~/projects/*": "allow",
          "$HOME": "allow",
          "$HOME/tmp/*": "allow",
          "$HOMEX/*": "deny",
          "/srv/~/x": "deny",
          "~user/x": "deny"
        }
      })
      expect(rules.map((r) => r.pattern)).toEqual([
        "/home/me",
        "/home/me/projects/*",
        "/home/me",
        "/home/me/tmp/*",
        "$HOMEX/*",
        "/srv/~/x",
        "~user/x"
      ])
      const trailing = yield* PermissionRules.fromConfig({ read: { "~/a": "allow" } }, { home: "/root/" })
      expect(trailing[0]?.pattern).toBe("/root/a")
    }))

  it.effect("a bad action names the key path", () =>
    Effect.gen(function*() {
      const e1 = yield* Effect.flip(parse({ bash: { "*": "ask", "git status": "yes" } }))
      expect(e1._tag).toBe("PermissionConfigError")
      expect(e1.path).toBe(`permission.bash["git status"]`)
      expect(e1.message).toBe(`permission.bash["git status"]: expected allow | ask | deny, got "yes"`)
      const e2 = yield* Effect.flip(parse({ edit: true }))
      expect(e2.message).toBe(
        "permission.edit: expected allow | ask | deny or an object of pattern → action, got true"
      )
      const e3 = yield* Effect.flip(parse({ "mcp-tool": "Allow" }))
      expect(e3.message).toBe(
        `permission["mcp-tool"]: expected allow | ask | deny or an object of pattern → action, got "Allow"`
      )
      const e4 = yield* Effect.flip(PermissionRules.fromConfig([], { home: HOME, path: "agent.permission" }))
      expect(e4.message).toBe("agent.permission: expected allow | ask | deny or an object of permissions, got []")
      const e5 = yield* Effect.flip(parse({ read: { "*.env": null } }))
      expect(e5.message).toBe(`permission.read["*.env"]: expected allow | ask | deny, got null`)
    }))
})

describe("PermissionRules.disabled", () => {
  it("a tool is disabled when the last rule for its permission is `*` deny", () => {
    const rules: Ruleset = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "edit", pattern: "*", action: "deny" },
      { permission: "bash", pattern: "*", action: "deny" },
      { permission: "bash", pattern: "git *", action: "allow" },
      { permission: "webfetch", pattern: "*", action: "deny" },
      { permission: "webfetch", pattern: "*", action: "ask" },
      { permission: "mcp_*", pattern: "*", action: "deny" }
    ]
    const ids = ["read", "edit", "write", "apply_patch", "multiedit", "bash", "webfetch", "mcp_github", "grep"]
    assert.deepStrictEqual(
      [...PermissionRules.disabled(ids, rules)].sort(),
      ["apply_patch", "edit", "mcp_github", "multiedit", "write"]
    )
    expect(PermissionRules.disabled(["read"], []).size).toBe(0)
    expect(PermissionRules.permissionOf("write")).toBe("edit")
    expect(PermissionRules.permissionOf("grep")).toBe("grep")
  })
})
