/**
 * Tool sources in the registry: loaded by each listing and by a call or lookup of an id they
 * claim, never before; a failing source is reported and left out, its calls say why; a source
 * never replaces another tool; its tools leave with the scope it was added in.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Logger, Option, Scope } from "effect"
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
})
