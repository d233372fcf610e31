/**
 * From a call's permission plan to its sandbox policy: approved outside paths are mounted with the
 * access the command needs, inside paths never, and an `external_directory` that allows every
 * path hides nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Permission, PermissionRules } from "@agent-tools/core"
import * as Bash from "../../src/bash/index.ts"
import { analysisLayer } from "./support.ts"

const policyOf = (command: string, rules: Permission.Ruleset = []) =>
  Effect.gen(function*() {
    const analysis = yield* Bash.analyzeCommand(command)
    const plan = yield* Bash.plan(analysis)
    return yield* Bash.sandboxPolicy(plan, { root: "/ws", cwd: "/ws" })
  }).pipe(Effect.provide(analysisLayer(rules)))

describe("sandboxPolicy", () => {
  it.effect("an outside read mounts its directory read-only; inside paths are not listed", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* policyOf("cat /outside/secret a.txt"), {
        root: "/ws",
        cwd: "/ws",
        writable: [],
        readable: ["/outside"],
        outside: "hidden"
      })
    }))

  it.effect("an outside write mounts its directory writable (and not also read-only)", () =>
    Effect.gen(function*() {
      const policy = yield* policyOf("cat /outside/secret > /outside/copy")
      assert.deepStrictEqual([policy.writable, policy.readable], [["/outside"], []])
    }))

  it.effect("external_directory allowing every path hides nothing", () =>
    Effect.gen(function*() {
      const policy = yield* policyOf("ls", [{ permission: "external_directory", pattern: "*", action: "allow" }])
      assert.strictEqual(policy.outside, "writable")
      const scoped = yield* policyOf("ls", [{ permission: "external_directory", pattern: "/outside/*", action: "allow" }])
      assert.strictEqual(scoped.outside, "hidden")
    }))

  it.effect("allowing every path except some keeps the outside hidden: only approved paths are mounted", () =>
    Effect.gen(function*() {
      const except = (rules: Permission.Ruleset) =>
        Effect.gen(function*() {
          const config = yield* PermissionRules.fromConfig({ bash: "allow", external_directory: rules }, { home: "/home/u" })
          return yield* policyOf("cat /outside/secret", config)
        })
      const denied = yield* except({ "*": "allow", "~/.ssh/*": "deny" } as never)
      assert.deepStrictEqual([denied.outside, denied.readable], ["hidden", ["/outside"]])
      const asked = yield* except({ "*": "allow", "/etc/*": "ask" } as never)
      assert.strictEqual(asked.outside, "hidden")
      // An exception a later rule overrides again is no exception.
      const overridden = yield* except({ "~/.ssh/*": "deny", "*": "allow" } as never)
      assert.strictEqual(overridden.outside, "writable")
    }))
})

