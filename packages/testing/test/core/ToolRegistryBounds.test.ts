/**
 * The registry's guarantee that every output fits the configured limits: a tool that says it
 * truncated itself (`metadata.truncated` set) is trusted only while its output fits; past the
 * limits by even a byte or a line, the output is truncated again and spilled. A result that names
 * its spill is a Truncate preview already; a tool whose truncation is disabled is left alone.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Path, Stream } from "effect"
import { MemoryFileSystem } from "@agent-tools/testing"
import { z } from "zod"
import { Events, ModuleLoader, Permission, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"

/** Returns `lines` lines of `width` x's (newline-separated), with the given metadata. */
const Sized = Tool.define("sized", {
  description: "An output of an exact size",
  parameters: z.object({
    width: z.number().int(),
    lines: z.number().int().default(1),
    metadata: z.record(z.string(), z.unknown()).default({})
  }),
  execute: (args) =>
    Effect.succeed({
      title: "sized",
      output: Array.from({ length: args.lines }, () => "x".repeat(args.width)).join("\n"),
      metadata: args.metadata
    })
})

const registry = (config: Truncate.Config) =>
  ToolRegistry.layer([Sized]).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Truncate.layer(config),
      Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
      Workspace.layer({ root: "/ws" })
    )),
    Layer.provideMerge(Layer.mergeAll(
      SpillStorage.layerMemory(),
      Events.layerNoop,
      ModuleLoader.layerMemory({}),
      MemoryFileSystem.layer({ directories: ["/ws"] }),
      Path.layer
    ))
  )

const run = (args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const reg = yield* ToolRegistry.ToolRegistry
    return yield* reg.execute("sized", args, yield* Tool.makeContext({ sessionID: "s1" }))
  })

const spilled = (path: string) =>
  Effect.gen(function*() {
    const spill = yield* SpillStorage.SpillStorage
    return yield* Stream.mkString(Stream.decodeText(spill.read(path)))
  })

const self = { truncated: false }

describe("registry: every output within the limits", () => {
  it.effect("a self-truncated output of exactly maxBytes is kept; one byte more is truncated again and spilled", () =>
    Effect.gen(function*() {
      const exact = yield* run({ width: 1000, metadata: self })
      assert.strictEqual(exact.output, "x".repeat(1000))
      assert.deepStrictEqual(exact.metadata, { truncated: false })
      const over = yield* run({ width: 1001, metadata: self })
      const path = over.metadata.outputPath as string
      assert.isTrue(over.output.startsWith(`[Output truncated: 22 bytes omitted; showing the first 1 (line 1 cut) of 1 lines. Full output: ${path}]\n`))
      assert.include(over.output, `\n${"x".repeat(979)} ... [line truncated]\n`)
      assert.strictEqual(over.metadata.truncated, true)
      assert.strictEqual(yield* spilled(path), "x".repeat(1001))
    }).pipe(Effect.provide(registry({ maxBytes: 1000 }))))

  it.effect("the line limit too: maxLines lines are kept, one more is truncated again", () =>
    Effect.gen(function*() {
      const exact = yield* run({ width: 3, lines: 5, metadata: self })
      assert.deepStrictEqual(exact.metadata, { truncated: false })
      const over = yield* run({ width: 3, lines: 6, metadata: self })
      assert.strictEqual(over.metadata.truncated, true)
      assert.include(over.output, "showing the first 5 of 6 lines")
    }).pipe(Effect.provide(registry({ maxLines: 5 }))))

  it.effect("per-tool and runtime limits apply the same way", () =>
    Effect.gen(function*() {
      const truncate = yield* Truncate.Truncate
      assert.deepStrictEqual((yield* run({ width: 800, metadata: self })).metadata, { truncated: false })
      yield* truncate.setToolConfig("sized", { maxBytes: 799 })
      assert.strictEqual((yield* run({ width: 800, metadata: self })).metadata.truncated, true)
      yield* truncate.setToolConfig("sized", { disabled: true })
      assert.deepStrictEqual((yield* run({ width: 5000, metadata: self })).metadata, { truncated: false })
    }).pipe(Effect.provide(registry({}))))

  it.effect("a result that names its spill is a Truncate preview already: kept as it is", () =>
    Effect.gen(function*() {
      const metadata = { truncated: true, outputPath: "memory://spill/tool_x" }
      const kept = yield* run({ width: 1500, metadata })
      assert.strictEqual(kept.output, "x".repeat(1500))
      assert.deepStrictEqual(kept.metadata, metadata)
    }).pipe(Effect.provide(registry({ maxBytes: 1000 }))))
})
