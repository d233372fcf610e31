/** ToolRegistry: aborts while a tool runs, and one prompt per call with deny first. */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Result } from "effect"
import { ScriptedPermission } from "@agent-tools/testing"
import { z } from "zod"
import { Permission, Tool, ToolRegistry } from "@agent-tools/core"
import { Echo, Planned, context, plannedRuns, registryLayer } from "./ToolRegistryHarness.ts"

const waitsForAbort = (id: string, ownAbort: boolean) =>
  Tool.define(id, {
    description: id,
    parameters: z.object({}),
    ownAbort,
    execute: (_args, ctx) =>
      Effect.callback<Tool.Result>((resume) => {
        const done = () => resume(Effect.succeed({ title: "", output: "kept", metadata: {} }))
        if (ownAbort) ctx.abort.addEventListener("abort", done, { once: true })
        Effect.runFork(ctx.metadata({ title: "running" }))
        return Effect.sync(() => ctx.abort.removeEventListener("abort", done))
      })
  })

describe("ToolRegistry: abort while the tool runs", () => {
  const abortDuringRun = (id: string) =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const controller = new AbortController()
      const running = yield* Deferred.make<void>()
      const metadata = () => Deferred.succeed(running, undefined).pipe(Effect.asVoid)
      const fiber = yield* registry.execute(id, {}, yield* context({ abort: controller.signal, metadata })).pipe(
        Effect.forkChild
      )
      yield* Deferred.await(running)
      controller.abort()
      return yield* Effect.result(Fiber.join(fiber))
    })

  it.effect("a tool that answers the abort itself keeps its result; any other gets the aborted error", () =>
    Effect.gen(function*() {
      const own = yield* abortDuringRun("own")
      assert.isTrue(Result.isSuccess(own))
      if (Result.isSuccess(own)) assert.strictEqual(own.success.output, "kept")
      const other = yield* abortDuringRun("deaf")
      assert.isTrue(Result.isFailure(other))
      if (Result.isFailure(other)) assert.strictEqual(other.failure.message, "The tool call was aborted.")
    }).pipe(Effect.provide(registryLayer([waitsForAbort("own", true), waitsForAbort("deaf", false)]))))

  it.effect("onAuthorized runs once the permission step passed, and never for a refused call", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      let authorized = 0
      const onAuthorized = Effect.sync(() => void authorized++)
      yield* registry.execute("echo", { text: "a" }, yield* context(), { onAuthorized })
      assert.strictEqual(authorized, 1)
      const denied = yield* Effect.flip(registry.execute("planned", { files: ["a.ts"] }, yield* context(), { onAuthorized }))
      assert.strictEqual(denied._tag, "PermissionDeniedError")
      const invalid = yield* Effect.flip(registry.execute("echo", { text: 1 }, yield* context(), { onAuthorized }))
      assert.strictEqual(invalid._tag, "InvalidArgumentsError")
      assert.strictEqual(authorized, 1)
    }).pipe(Effect.provide(registryLayer([Echo, Planned], {}, [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "edit", pattern: "*", action: "deny" }
    ]))))
})

describe("ToolRegistry: one prompt per call, deny first", () => {
  const asking: Permission.Ruleset = [
    { permission: "*", pattern: "*", action: "allow" },
    { permission: "edit", pattern: "*", action: "ask" },
    { permission: "planned", pattern: "*", action: "ask" },
    { permission: "extra", pattern: "*", action: "ask" },
    { permission: "edit", pattern: "locked/*", action: "deny" }
  ]
  const call = (args: Record<string, unknown>) =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      return yield* registry.execute("planned", args, yield* context({ tool: "planned" }))
    })

  it.effect("every request of the call is one prompt; the tool's own asks for them ask nothing", () =>
    Effect.gen(function*() {
      const responder = yield* ScriptedPermission.run(["once"])
      const before = plannedRuns
      const result = yield* call({ files: ["a.ts", "b.ts"] })
      assert.strictEqual(result.output, "a.ts,b.ts")
      assert.strictEqual(plannedRuns, before + 1)
      const asked = yield* responder.asked
      assert.strictEqual(asked.length, 1)
      assert.deepStrictEqual(
        asked[0]!.request.requests.map((r) => [r.permission, r.patterns]),
        [["edit", ["a.ts", "b.ts"]], ["planned", ["run"]]]
      )
      assert.deepStrictEqual(asked[0]!.request.tool, { name: "planned", callID: "c1" })
    }).pipe(Effect.provide(registryLayer([Planned], {}, asking))))

  it.effect("a deny anywhere refuses before any prompt; the tool never runs", () =>
    Effect.gen(function*() {
      const responder = yield* ScriptedPermission.run(["once"])
      const before = plannedRuns
      const error = yield* Effect.flip(call({ files: ["a.ts", "locked/b.ts"] }))
      assert.strictEqual(error._tag, "PermissionDeniedError")
      assert.strictEqual(
        error.message,
        `A permission rule prevents this tool call: edit "locked/b.ts" is denied by the rule {"permission":"edit","pattern":"locked/*","action":"deny"}.`
      )
      assert.deepStrictEqual(yield* responder.asked, [])
      assert.strictEqual(plannedRuns, before)
    }).pipe(Effect.provide(registryLayer([Planned], {}, asking))))

  it.effect("always approves every request of the prompt: the same call then asks nothing", () =>
    Effect.gen(function*() {
      const responder = yield* ScriptedPermission.run(["always"])
      yield* call({ files: ["a.ts"] })
      yield* call({ files: ["a.ts"] })
      assert.strictEqual((yield* responder.asked).length, 1)
    }).pipe(Effect.provide(registryLayer([Planned], {}, asking))))

  it.effect("reject refuses the whole call; nothing runs", () =>
    Effect.gen(function*() {
      const responder = yield* ScriptedPermission.run(["reject"])
      const before = plannedRuns
      const error = yield* Effect.flip(call({ files: ["a.ts"] }))
      assert.strictEqual(error._tag, "PermissionRejectedError")
      assert.strictEqual(plannedRuns, before)
      assert.strictEqual((yield* responder.asked).length, 1)
    }).pipe(Effect.provide(registryLayer([Planned], {}, asking))))

  it.effect("an ask at run time for something not declared still prompts, on its own", () =>
    Effect.gen(function*() {
      const responder = yield* ScriptedPermission.run(["once", "once"])
      yield* call({ files: ["a.ts"], extra: "deploy" })
      const asked = yield* responder.asked
      assert.deepStrictEqual(asked.map((a) => a.request.permission), ["edit, planned", "extra"])
      assert.deepStrictEqual(asked[1]!.request.patterns, ["deploy"])
    }).pipe(Effect.provide(registryLayer([Planned], {}, asking))))
})
