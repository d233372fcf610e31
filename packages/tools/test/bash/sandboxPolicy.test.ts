/**
 * From a call's permission plan to its sandbox policy: approved outside paths are mounted with the
 * access the command needs, inside paths never, and an `external_directory` that allows every
 * path hides nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Permission } from "@agent-tools/core"
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
})
