import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { z } from "zod"
import { Events, Permission, Tool, ToolRegistry } from "@agent-tools/core"
import { Asking, Echo, FakeTruncate, NoTruncate, SelfTruncating, Tailing, context, named, registryLayer, truncateCalls } from "./ToolRegistryHarness.ts"

describe("Tool.build", () => {
  it.effect("names every bad field in the invalid-arguments message", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const error = yield* Effect.flip(registry.execute("echo", { text: 3, times: -1 }, yield* context()))
      assert.strictEqual(error._tag, "InvalidArgumentsError")
      assert.strictEqual(
        error.message,
        "The echo tool was called with invalid arguments:\n" +
          "- text: Invalid input: expected string, received number\n" +
          "- times: Too small: expected number to be >0\n" +
          "Please rewrite the input so it satisfies the expected schema."
      )
    }).pipe(Effect.provide(registryLayer([Echo]))))

  it.effect("uses the tool's own formatValidationError when it has one", () => {
    const Custom = Tool.define("custom", {
      description: "custom message",
      parameters: z.object({ n: z.number() }),
      formatValidationError: (e) => `bad n (${e.issues.length} issue)`,
      execute: () => Effect.succeed({ title: "", output: "", metadata: {} })
    })
    return Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const error = yield* Effect.flip(registry.execute("custom", { n: "x" }, yield* context()))
      assert.strictEqual(error.message, "bad n (1 issue)")
    }).pipe(Effect.provide(registryLayer([Custom])))
  })

  it.effect("exposes a JSON Schema without $schema", () =>
    Effect.gen(function*() {
      const built = yield* Tool.build(Echo)
      assert.deepStrictEqual(built.jsonSchema, {
        type: "object",
        properties: { text: { type: "string" }, times: { type: "integer", exclusiveMinimum: 0, maximum: 9007199254740991 } },
        required: ["text"]
      })
    }).pipe(Effect.provide(FakeTruncate)))
})

describe("ToolRegistry builds each tool on first use", () => {
  const inits: Array<string> = []
  const counted = (id: string) =>
    Tool.define(id, Effect.sync(() => {
      inits.push(id)
      return {
        description: id,
        parameters: z.object({}),
        execute: () => Effect.succeed({ title: id, output: id, metadata: {} })
      }
    }))

  it.effect("none when the registry is built, the called one on a call, all on a listing, each once", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      assert.deepStrictEqual(inits, [])
      assert.deepStrictEqual(yield* registry.ids, ["a", "b", "c"])
      assert.deepStrictEqual(inits, [])
      yield* registry.execute("b", {}, yield* context())
      yield* registry.execute("b", {}, yield* context())
      assert.deepStrictEqual(inits, ["b"])
      assert.deepStrictEqual((yield* registry.tools()).map((t) => t.id), ["a", "b", "c"])
      assert.deepStrictEqual(inits, ["b", "a", "c"])
      yield* registry.tools()
      assert.deepStrictEqual(inits, ["b", "a", "c"])
    }).pipe(Effect.provide(registryLayer([counted("a"), counted("b"), counted("c")]))))
})

describe("ToolRegistry lookup", () => {
  it.effect("an unknown id fails with the list of valid ids", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const error = yield* Effect.flip(registry.execute("nope", {}, yield* context()))
      assert.strictEqual(error._tag, "UnknownToolError")
      assert.strictEqual(error.message, `Unknown tool "nope". Available tools: echo, self.`)
    }).pipe(Effect.provide(registryLayer([Echo, SelfTruncating]))))

  it.effect("accepts a capitalised tool name", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const result = yield* registry.execute("Echo", { text: "hi" }, yield* context())
      assert.strictEqual(result.output, "hi")
    }).pipe(Effect.provide(registryLayer([Echo]))))

  it.effect("register replaces a tool with the same id", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const replacement = yield* Tool.build(
        Tool.define("echo", {
          description: "shouts",
          parameters: z.object({ text: z.string() }),
          execute: (a) => Effect.succeed({ title: "", output: a.text.toUpperCase(), metadata: {} })
        })
      )
      yield* registry.register(replacement)
      assert.deepStrictEqual(yield* registry.ids, ["echo"])
      assert.strictEqual((yield* registry.execute("echo", { text: "hi" }, yield* context())).output, "HI")
      assert.isTrue(yield* registry.unregister("echo"))
      assert.deepStrictEqual(yield* registry.ids, [])
    }).pipe(Effect.provide(registryLayer([Echo]))))
})

describe("ToolRegistry.tools filtering", () => {
  const all = ["read", "edit", "write", "apply_patch", "bash", "task"].map(named)

  it.effect("GPT models get apply_patch instead of edit/write; others the reverse", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const ids = (model: string) => registry.tools({ model }).pipe(Effect.map((ts) => ts.map((t) => t.id)))
      assert.deepStrictEqual(yield* ids("gpt-5"), ["read", "apply_patch", "bash", "task"])
      assert.deepStrictEqual(yield* ids("gpt-4o"), ["read", "edit", "write", "bash", "task"])
      assert.deepStrictEqual(yield* ids("gpt-oss-120b"), ["read", "edit", "write", "bash", "task"])
      assert.deepStrictEqual(yield* ids("claude-sonnet"), ["read", "edit", "write", "bash", "task"])
    }).pipe(Effect.provide(registryLayer(all))))

  it.effect("keeps edit for GPT models when no apply_patch is registered", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const tools = yield* registry.tools({ model: "gpt-5" })
      assert.deepStrictEqual(tools.map((t) => t.id), ["edit", "write"])
    }).pipe(Effect.provide(registryLayer(["edit", "write"].map(named)))))

  it.effect("removes disabled ids and tools the agent's rules deny outright", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const ids = (agent: string) => registry.tools({ agent }).pipe(Effect.map((ts) => ts.map((t) => t.id)))
      assert.deepStrictEqual(yield* ids("build"), ["read", "edit", "write", "apply_patch"])
      // explore: edit permission denied → edit, write and apply_patch all go
      assert.deepStrictEqual(yield* ids("explore"), ["read"])
      const error = yield* Effect.flip(registry.execute("write", {}, yield* context({ agent: "explore" })))
      assert.strictEqual(error.message, `The write tool is not available to agent "explore": a permission rule denies it.`)
      const disabled = yield* Effect.flip(registry.execute("bash", {}, yield* context()))
      assert.strictEqual(disabled.message, `The bash tool is not available to agent "build": it is disabled in the configuration.`)
    }).pipe(Effect.provide(registryLayer(all, {
      disabled: ["bash", "task"],
      agents: { explore: [{ permission: "edit", pattern: "*", action: "deny" }] }
    }))))
})

describe("ToolRegistry availability, hidden tools and the Dispatcher", () => {
  let ready = false
  const Flaky = Tool.define("flaky", {
    description: "Offered only once ready",
    parameters: z.object({}),
    unavailable: Effect.sync(() => ready ? undefined : "it is not ready"),
    execute: () => Effect.succeed({ title: "flaky", output: "ran", metadata: {} })
  })
  const Hidden = Tool.define("hidden", {
    description: "Callable, never listed",
    parameters: z.object({}),
    hidden: true,
    execute: () => Effect.succeed({ title: "hidden", output: "hidden ran", metadata: {} })
  })
  // Calls another tool of its own registry, through the whole pipeline.
  const Twice = Tool.define(
    "twice",
    Effect.gen(function*() {
      const dispatcher = yield* ToolRegistry.Dispatcher
      const parameters = z.object({ text: z.string() })
      return {
        description: "Echoes twice through the registry",
        parameters,
        execute: (args: z.output<typeof parameters>, ctx: Tool.Context) =>
          Effect.gen(function*() {
            const one = yield* dispatcher.execute("echo", { text: args.text }, ctx)
            const listed = (yield* dispatcher.tools()).map((t) => t.id)
            return { title: "twice", output: `${one.output}${one.output}`, metadata: { listed, inner: one.metadata } }
          }).pipe(Effect.mapError((e) => new Tool.ToolError({ tool: "twice", reason: "other", message: e.message })))
      } satisfies Tool.Def<typeof parameters>
    })
  )

  it.effect("an unavailable tool is not listed and a call names why; it comes back when available", () =>
    Effect.gen(function*() {
      ready = false
      const registry = yield* ToolRegistry.ToolRegistry
      const ids = Effect.map(registry.tools(), (ts) => ts.map((t) => t.id))
      assert.deepStrictEqual(yield* ids, ["echo", "twice"])
      const error = yield* Effect.flip(registry.execute("flaky", {}, yield* context()))
      assert.strictEqual(error.message, `The flaky tool is not available to agent "build": it is not ready.`)
      const unknown = yield* Effect.flip(registry.execute("nope", {}, yield* context()))
      assert.strictEqual(unknown.message, `Unknown tool "nope". Available tools: echo, twice.`)
      ready = true
      assert.deepStrictEqual(yield* ids, ["echo", "flaky", "twice"])
      assert.strictEqual((yield* registry.execute("flaky", {}, yield* context())).output, "ran")
      assert.strictEqual((yield* registry.execute("hidden", {}, yield* context())).output, "hidden ran")
    }).pipe(Effect.provide(registryLayer([Echo, Flaky, Hidden, Twice]))))

  it.effect("a tool calls its registry through the Dispatcher: the inner call is truncated by the pipeline", () =>
    Effect.gen(function*() {
      ready = false
      truncateCalls.length = 0
      const registry = yield* ToolRegistry.ToolRegistry
      const result = yield* registry.execute("twice", { text: "a long enough text" }, yield* context())
      // The inner echo was cut at 10 characters by the pipeline, then the outer result too.
      assert.deepStrictEqual(result.metadata.inner, { truncated: true, outputPath: "/spill/tool_1" })
      assert.deepStrictEqual(result.metadata.listed, ["echo", "twice"])
      assert.deepStrictEqual(truncateCalls.map((o) => o?.tool), ["echo", "twice"])
    }).pipe(Effect.provide(registryLayer([Echo, Flaky, Hidden, Twice]))))
})

describe("ToolRegistry truncation", () => {
  it.effect("truncates unless the tool set metadata.truncated or opted out", () =>
    Effect.gen(function*() {
      truncateCalls.length = 0
      const registry = yield* ToolRegistry.ToolRegistry
      const ctx = yield* context()
      const echoed = yield* registry.execute("echo", { text: "abcdefghijklmnop" }, ctx)
      assert.strictEqual(echoed.output, "abcdefghij[cut]")
      assert.deepStrictEqual(echoed.metadata, { truncated: true, outputPath: "/spill/tool_1" })
      const self = yield* registry.execute("self", {}, ctx)
      assert.strictEqual(self.output.length, 100)
      assert.deepStrictEqual(self.metadata, { truncated: false })
      const raw = yield* registry.execute("raw", {}, ctx)
      assert.strictEqual(raw.output.length, 100)
      assert.strictEqual(truncateCalls.length, 1)
    }).pipe(Effect.provide(registryLayer([Echo, SelfTruncating, NoTruncate]))))

  it.effect("passes tool defaults, then per-call options, and the permission-aware hint", () =>
    Effect.gen(function*() {
      truncateCalls.length = 0
      const registry = yield* ToolRegistry.ToolRegistry
      yield* registry.execute("tailing", {}, yield* context())
      yield* registry.execute("tailing", {}, yield* context({ truncation: { direction: "head+tail", maxLines: 5 } }))
      yield* registry.execute("tailing", {}, yield* context({ agent: "locked" }))
      // The tool's own setting ranks below any configuration: it is passed as `toolDefaults`.
      assert.deepStrictEqual(truncateCalls, [
        { toolDefaults: { direction: "tail" }, tool: "tailing", hint: { task: true, read: true, grep: false } },
        { direction: "head+tail", maxLines: 5, toolDefaults: { direction: "tail" }, tool: "tailing", hint: { task: true, read: true, grep: false } },
        { toolDefaults: { direction: "tail" }, tool: "tailing", hint: { task: false, read: true, grep: false } }
      ])
    }).pipe(Effect.provide(registryLayer([Tailing, named("task"), named("read")], {
      agents: { locked: [{ permission: "task", pattern: "*", action: "deny" }] }
    }))))

  it.effect("honours the registry's skip list and shouldTruncate decision", () =>
    Effect.gen(function*() {
      truncateCalls.length = 0
      const registry = yield* ToolRegistry.ToolRegistry
      const ctx = yield* context()
      const skipped = yield* registry.execute("tailing", {}, ctx)
      assert.strictEqual(skipped.output.length, 100)
      assert.deepStrictEqual(skipped.metadata, { truncated: false })
      const declined = yield* registry.execute("echo", { text: "a long enough text", times: 1 }, ctx)
      assert.strictEqual(declined.output, "a long enough text")
      const kept = yield* registry.execute("echo", { text: "a long enough text", times: 2 }, ctx)
      assert.isTrue(kept.metadata.truncated)
      assert.strictEqual(truncateCalls.length, 1)
    }).pipe(Effect.provide(registryLayer([Tailing, Echo], {
      truncation: { skip: ["tailing"], shouldTruncate: ({ result }) => result.output.length > 20 }
    }))))
})

describe("ToolRegistry hooks", () => {
  it.effect("a before hook's in-place change is what runs, and hooks chain", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const seen: Array<unknown> = []
      yield* registry.addHooks({ before: (input) => void (input.args.text = "MUTATED") })
      yield* registry.addHooks({ before: (input) => void seen.push(input.args.text) })
      const result = yield* registry.execute("echo", { text: "orig" }, yield* context())
      assert.strictEqual(result.output, "MUTATED")
      assert.deepStrictEqual(seen, ["MUTATED"])
    }).pipe(Effect.provide(registryLayer([Echo]))))

  it.effect("a before hook may replace the arguments, which are validated again", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      yield* registry.addHooks({ before: async () => ({ args: { text: 42 } }) })
      const error = yield* Effect.flip(registry.execute("echo", { text: "ok" }, yield* context()))
      assert.strictEqual(error._tag, "InvalidArgumentsError")
    }).pipe(Effect.provide(registryLayer([Echo]))))

  it.effect("a failing before hook stops the call with its message; the tool never runs", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      let ran = false
      yield* registry.register(
        yield* Tool.build(Tool.define("spy", {
          description: "",
          parameters: z.object({}),
          execute: () => Effect.sync(() => (ran = true)).pipe(Effect.as({ title: "", output: "", metadata: {} }))
        }))
      )
      yield* registry.addHooks({
        name: "guard",
        before: () => {
          throw new Error("blocked by policy")
        }
      })
      const error = yield* Effect.flip(registry.execute("spy", {}, yield* context()))
      assert.strictEqual(error.message, "The before hook of guard failed: blocked by policy")
      assert.isFalse(ran)
    }).pipe(Effect.provide(registryLayer([]))))

  it.effect("an after hook changes the result and truncation still applies after it", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      let seen: Tool.Result | undefined
      yield* registry.addHooks({
        after: ({ result }) => Effect.succeed({ ...result, output: `${result.output} + appended by hook` })
      })
      yield* registry.addHooks({ after: ({ result }) => void (seen = result) })
      const result = yield* registry.execute("echo", { text: "hi" }, yield* context())
      assert.strictEqual(seen?.output, "hi + appended by hook")
      assert.isUndefined(seen?.metadata.truncated)
      assert.strictEqual(result.output, "hi + appen[cut]")
    }).pipe(Effect.provide(registryLayer([Echo]))))
})

describe("ToolRegistry permissions, events and abort", () => {
  it.effect("ctx.ask goes through Permission with the agent's rules", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const allowed = yield* registry.execute("asking", { target: "safe" }, yield* context())
      assert.strictEqual(allowed.output, "did safe")
      const denied = yield* Effect.flip(registry.execute("asking", { target: "prod" }, yield* context()))
      assert.strictEqual(denied._tag, "PermissionDeniedError")
      const agentDenied = yield* Effect.flip(
        registry.execute(
          "asking",
          { target: "safe" },
          yield* context({ ruleset: [{ permission: "asking", pattern: "*", action: "deny" }] })
        )
      )
      assert.strictEqual(agentDenied._tag, "PermissionDeniedError")
    }).pipe(Effect.provide(registryLayer([Asking], {}, [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "asking", pattern: "prod", action: "deny" }
    ]))))

  it.effect("an ask waits for a reply given through the Permission service", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const permission = yield* Permission.Permission
      const fiber = yield* registry.execute("asking", { target: "x" }, yield* context({ tool: "asking" })).pipe(
        Effect.forkChild
      )
      const pending = yield* Stream.runCollect(Stream.take(permission.asks, 1))
      assert.deepStrictEqual(pending[0]?.patterns, ["x"])
      assert.deepStrictEqual(pending[0]?.tool, { name: "asking", callID: "c1" })
      yield* permission.reply({ requestID: pending[0]!.id, reply: "reject", message: "not now" })
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(
        error.message,
        "The user rejected permission to use this specific tool call with the following feedback: not now"
      )
    }).pipe(Effect.provide(registryLayer([Asking], {}, []))))

  it.effect("publishes started and finished events", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const events = yield* Events.Events
      const collected = yield* events.subscribe.pipe(Stream.take(4), Stream.runCollect, Effect.forkChild)
      yield* Effect.yieldNow
      yield* registry.execute("echo", { text: "a" }, yield* context())
      yield* Effect.flip(registry.execute("echo", {}, yield* context({ callID: "c2" })))
      const tags = (yield* Fiber.join(collected)).map((e) =>
        e._tag === "ToolFinished" ? `${e._tag}:${e.callID}:${e.outcome}` : `${e._tag}:${"callID" in e ? e.callID : ""}`
      )
      assert.deepStrictEqual(tags, [
        "ToolStarted:c1",
        "ToolFinished:c1:success",
        "ToolStarted:c2",
        "ToolFinished:c2:failure"
      ])
    }).pipe(Effect.provide(registryLayer([Echo]))))

  it.effect("an aborted signal stops the call", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const controller = new AbortController()
      controller.abort()
      const before = yield* Effect.flip(registry.execute("echo", { text: "a" }, yield* context({ abort: controller.signal })))
      assert.strictEqual(before.message, "The tool call was aborted before it started.")

      const later = new AbortController()
      const fiber = yield* registry.execute("asking", { target: "x" }, yield* context({ abort: later.signal })).pipe(
        Effect.forkChild
      )
      const permission = yield* Permission.Permission
      yield* Stream.runHead(permission.asks)
      later.abort()
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error.message, "The tool call was aborted.")
      // the abandoned permission request is withdrawn
      assert.deepStrictEqual(yield* permission.pending, [])
    }).pipe(Effect.provide(registryLayer([Echo, Asking], {}, []))))
})

// Says it runs (ctx.metadata), then waits: one answers the abort with a result of its own, the
// other does not listen.
