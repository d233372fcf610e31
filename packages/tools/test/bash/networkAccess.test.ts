/**
 * The hosts a sandboxed command connects to through the network proxy: each is a `network` request
 * (the host name as the pattern), asked once per call however many connections wait for it, and a
 * loopback or private address is allowed only by a configured rule naming the host exactly.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { Events, Permission, Tool } from "@agent-tools/core"
import * as Bash from "../../src/bash/index.ts"

const withPermission = (rules: Permission.Ruleset) =>
  Effect.provide(Permission.layer({ rules, unattended: "reject" }).pipe(Layer.provide(Events.layerNoop)))

/** A call context whose `ask` records each request, waits for `before`, then asks the Permission service. */
const recordingContext = (before: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const permission = yield* Permission.Permission
    const ctx = yield* Tool.makeContext({ sessionID: "s", tool: "bash" })
    const asked: Array<Tool.AskInput> = []
    const ask = (input: Tool.AskInput) => Effect.andThen(Effect.sync(() => asked.push(input)), Effect.andThen(before, ctx.ask(input)))
    return { permission, asked, ctx: { sessionID: ctx.sessionID, ask } }
  })

describe("networkAccess", () => {
  it.effect("a host is asked once per call, with its port; concurrent connections wait for that one answer", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { asked, ctx, permission } = yield* recordingContext(Deferred.await(gate))
      const authorize = Bash.networkAccess({ permission, ctx })
      const fibers = yield* Effect.forkChild(
        Effect.all([authorize("registry.npmjs.org", 443), authorize("registry.npmjs.org", 80)], { concurrency: 2 })
      )
      yield* Effect.yieldNow
      yield* Deferred.succeed(gate, undefined)
      const [first, second] = yield* Fiber.join(fibers)
      assert.deepStrictEqual(first, { _tag: "allow", privateAddresses: false })
      assert.deepStrictEqual(second, first)
      assert.deepStrictEqual(asked, [{
        permission: "network",
        patterns: ["registry.npmjs.org"],
        always: ["registry.npmjs.org"],
        metadata: { host: "registry.npmjs.org", port: 443 }
      }])
    }).pipe(withPermission([{ permission: "network", pattern: "*", action: "allow" }])))

  it.effect("a denied host is refused with the rule, and not asked again in the call", () =>
    Effect.gen(function*() {
      const { asked, ctx, permission } = yield* recordingContext(Effect.void)
      const authorize = Bash.networkAccess({ permission, ctx })
      const access = yield* authorize("evil.example", 443)
      assert.strictEqual(access._tag, "deny")
      if (access._tag === "deny") assert.include(access.reason, `network "evil.example" is denied`)
      yield* authorize("evil.example", 443)
      assert.strictEqual(asked.length, 1)
    }).pipe(withPermission([{ permission: "network", pattern: "evil.example", action: "deny" }])))

  it.effect("private addresses: only a configured allow rule naming the host exactly", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const decide = (host: string) => Effect.map(permission.evaluate("network", host, undefined, "s"), Bash.allowsPrivate)
      assert.isTrue(yield* decide("db.internal"))
      assert.isFalse(yield* decide("api.internal"))
      assert.isFalse(yield* decide("example.com"))
    }).pipe(withPermission([
      { permission: "network", pattern: "*", action: "allow" },
      { permission: "network", pattern: "*.internal", action: "allow" },
      { permission: "network", pattern: "db.internal", action: "allow" }
    ])))
})
