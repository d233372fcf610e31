/**
 * Tool sources in the registry: loaded by each listing and by a call or lookup of an id they
 * claim, never before; a failing source is reported and left out, its calls say why; a source
 * never replaces another tool; its tools leave with the scope it was added in.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Logger, Option, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Testing } from "@agent-tools/testing"
import { z } from "zod"
import { Tool, ToolRegistry, ToolSource } from "@agent-tools/core"

const echo = (id: string) =>
  Tool.build(Tool.define(id, {
    description: `echo as ${id}`,
    parameters: z.object({ text: z.string() }),
    execute: (args) => Effect.succeed({ title: id, output: args.text, metadata: {} })
  }))

const Builtin = Tool.define("ext_builtin", {
  description: "a tool of the registry's own",
  parameters: z.object({}),
  execute: () => Effect.succeed({ title: "", output: "mine", metadata: {} })
})

/** A source whose loads are counted; `fail` makes the next loads fail. */
const counted = (prefix: string, ids: ReadonlyArray<string>) => {
  const state = { loads: 0, fail: undefined as string | undefined }
  const source: ToolSource.ToolSource = {
    name: prefix,
    claims: (id) => id.startsWith(`${prefix}_`),
    tools: Effect.suspend(() => {
      state.loads++
      return state.fail === undefined
        ? Effect.forEach(ids, echo)
        : Effect.fail(new ToolSource.ToolSourceError({ source: prefix, message: state.fail }))
    })
  }
  return { source, state }
}

describe("ToolRegistry sources", () => {
  it.effect("load on listing and on a claimed call, in the order they were added", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const a = counted("ext", ["ext_one", "ext_two", "ext_builtin"])
      const b = counted("other", ["other_one"])
      yield* registry.addSource(b.source)
      yield* registry.addSource(a.source)
      assert.deepStrictEqual(yield* registry.ids, ["ext_builtin"])
      assert.deepStrictEqual([a.state.loads, b.state.loads], [0, 0])

      // A call loads only the sources that claim the id.
      const ctx = yield* Tool.makeContext({ sessionID: "sources" })
      assert.strictEqual((yield* registry.execute("ext_one", { text: "hi" }, ctx)).output, "hi")
      assert.deepStrictEqual([a.state.loads, b.state.loads], [1, 0])

      const ids = (yield* registry.tools()).map((t) => t.id)
      assert.deepStrictEqual(ids, ["ext_builtin", "ext_one", "ext_two", "other_one"])
      assert.strictEqual((yield* registry.execute("ext_builtin", {}, ctx)).output, "mine")
      assert.isTrue(Option.isSome(yield* registry.get("other_one")))
    }).pipe(Effect.provide(Testing.layer({ tools: [Builtin] }))))

  it.effect("a failing source is reported once per reason, left out, and its claimed calls say why", () =>
    Effect.gen(function*() {
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => void logs.push(`${logLevel}: ${String(message)}`))
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const a = counted("ext", ["ext_one"])
        yield* registry.addSource(a.source)
        assert.deepStrictEqual((yield* registry.tools()).map((t) => t.id), ["ext_one"])
        a.state.fail = "server ext is down"
        assert.deepStrictEqual((yield* registry.tools()).map((t) => t.id), [])
        yield* registry.tools()
        assert.deepStrictEqual(logs, ["Warn: server ext is down; its tools are left out"])
        const ctx = yield* Tool.makeContext({ sessionID: "sources" })
        const error = yield* Effect.flip(registry.execute("ext_one", { text: "x" }, ctx))
        assert.strictEqual(error.message, `The ext_one tool is not available to agent "build": server ext is down.`)
        const unknown = yield* Effect.flip(registry.execute("nothing", {}, ctx))
        assert.strictEqual(unknown._tag, "UnknownToolError")
      }).pipe(Effect.provide(Logger.layer([logger])))
    }).pipe(Effect.provide(Testing.layer())))

  it.effect("a source's tools leave with its scope", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const scope = yield* Scope.make()
      yield* registry.addSource(counted("ext", ["ext_one"]).source).pipe(Scope.provide(scope))
      assert.deepStrictEqual((yield* registry.tools()).map((t) => t.id), ["ext_one"])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual((yield* registry.tools()).map((t) => t.id), [])
    }).pipe(Effect.provide(Testing.layer())))

  it.effect("a listing that bounds its wait leaves a slow source out, and announces it when it lands", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const gate = yield* Deferred.make<void>()
      let loads = 0
      yield* registry.addSource(counted("fast", ["fast_one"]).source)
      yield* registry.addSource({
        name: "slow",
        claims: (id) => id.startsWith("slow_"),
        tools: Effect.suspend(() => {
          loads++
          return Effect.andThen(Deferred.await(gate), Effect.forEach(["slow_one"], echo))
        })
      })
      const announced = yield* Effect.forkChild(Stream.runHead(registry.changes))
      const listing = yield* Effect.forkChild(registry.tools({ wait: "5 seconds" }))
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual((yield* Fiber.join(listing)).map((t) => t.id), ["fast_one"])
      // A second bounded listing waits on the same load instead of starting another.
      const again = yield* Effect.forkChild(registry.tools({ wait: "1 second" }))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual((yield* Fiber.join(again)).map((t) => t.id), ["fast_one"])
      assert.strictEqual(loads, 1)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(announced)
      assert.deepStrictEqual((yield* registry.ids).toSorted(), ["fast_one", "slow_one"])
    }).pipe(Effect.provide(Testing.layer())))
})
