import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { Events, Permission } from "@agent-tools/core"
import { ScriptedPermission } from "../src/index.ts"

// The real Permission layer: every ask waits until replied. Its `asks` stream drives the responder.
const TinyPermission = Permission.layer().pipe(Layer.provide(Events.layer()))

const ask = (permission: string, ...patterns: Array<string>) =>
  Permission.Permission.use((p) => p.ask({ sessionID: "s1", permission, patterns }))

describe("ScriptedPermission.run", () => {
  it.effect("answers pending requests from a queue, in order, and records them", () =>
    Effect.gen(function*() {
      const responder = yield* ScriptedPermission.run(["once", { reply: "reject", message: "not that file" }])
      yield* ask("edit", "src/a.ts")
      const error = yield* Effect.flip(ask("edit", "secrets.env"))
      assert.strictEqual(
        error.message,
        "The user rejected permission to use this specific tool call with the following feedback: not that file"
      )
      const asked = yield* responder.asked
      assert.deepStrictEqual(asked.map((a) => [a.request.permission, a.request.patterns, a.reply, a.message, a.delivered]), [
        ["edit", ["src/a.ts"], "once", undefined, true],
        ["edit", ["secrets.env"], "reject", "not that file", true]
      ])
    }).pipe(Effect.provide(TinyPermission)))

  it.effect("a function script decides per request; requests pending before start are answered", () =>
    Effect.gen(function*() {
      const early = yield* Effect.forkChild(ask("bash", "rm -rf build"))
      yield* Effect.yieldNow
      const responder = yield* ScriptedPermission.run((r) => (r.permission === "bash" ? "reject" : "once"))
      assert.strictEqual((yield* Effect.flip(Fiber.join(early)))._tag, "PermissionRejectedError")
      yield* ask("read", "/outside/x")
      assert.deepStrictEqual((yield* responder.asked).map((a) => `${a.request.permission}:${a.reply}`), ["bash:reject", "read:once"])
    }).pipe(Effect.provide(TinyPermission)))

  it.effect("an exhausted queue rejects with a message naming the request", () =>
    Effect.gen(function*() {
      yield* ScriptedPermission.run([])
      const error = yield* Effect.flip(ask("webfetch", "https://example.com"))
      assert.strictEqual(
        error.message,
        "The user rejected permission to use this specific tool call with the following feedback: " +
          "ScriptedPermission: no scripted answer left for webfetch [\"https://example.com\"]"
      )
    }).pipe(Effect.provide(TinyPermission)))

  it.effect("drives the real Permission layer: `always` approves the same pattern for the session", () =>
    Effect.gen(function*() {
      const responder = yield* ScriptedPermission.run(["always"])
      yield* ask("edit", "src/a.ts")
      yield* ask("edit", "src/a.ts") // approved: never reaches the responder
      assert.strictEqual((yield* responder.asked).length, 1)
    }).pipe(Effect.provide(Permission.layer().pipe(Layer.provide(Events.layer())))))

  it.live("works with the live clock too", () =>
    Effect.gen(function*() {
      yield* ScriptedPermission.run(["once"])
      yield* Effect.sleep("20 millis") // the responder has been idle: it waits on the stream, not a timer
      yield* ask("edit", "a.ts")
    }).pipe(Effect.provide(TinyPermission), Effect.scoped))
})

describe("ScriptedPermission fakes", () => {
  it.effect("layer(script) answers at once and records", () =>
    Effect.gen(function*() {
      yield* ask("edit", "a.ts")
      const error = yield* Effect.flip(ask("bash", "rm x"))
      assert.strictEqual(error.message, "The user rejected permission to use this specific tool call.")
      assert.deepStrictEqual((yield* ScriptedPermission.asked).map((a) => `${a.request.permission}:${a.reply}`), [
        "edit:once",
        "bash:reject"
      ])
    }).pipe(Effect.provide(ScriptedPermission.layer(["once", "reject"]))))

  it.effect("layerAllowAll allows; layerRejectAll rejects", () =>
    Effect.gen(function*() {
      yield* ask("edit", "a.ts").pipe(Effect.provide(ScriptedPermission.layerAllowAll))
      const explained = yield* Permission.Permission.use((p) => p.explain({ sessionID: "s", permission: "bash", patterns: ["ls"] })).pipe(
        Effect.provide(ScriptedPermission.layerAllowAll)
      )
      assert.strictEqual(explained.action, "allow")
      const error = yield* Effect.flip(ask("edit", "a.ts").pipe(Effect.provide(ScriptedPermission.layerRejectAll)))
      assert.deepStrictEqual(
        error._tag === "PermissionRejectedError" ? [error.permission, error.patterns] : error._tag,
        ["edit", ["a.ts"]]
      )
    }))
})
