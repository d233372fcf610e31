import { assert, describe, it } from "@effect/vitest"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { z } from "zod"
import { SpillStorage, Tool, Truncate, Workspace } from "@agent-tools/core"
import { Fixtures, ScriptedPermission, Testing } from "../src/index.ts"

const Shout = Tool.define("shout", {
  description: "Upper-cases the text",
  parameters: z.object({ text: z.string() }),
  execute: (args) => Effect.succeed({ title: "shout", output: args.text.toUpperCase(), metadata: {} })
})

const Touch = Tool.define("touch", {
  description: "Asks to edit a file",
  parameters: z.object({ file: z.string() }),
  requests: (args) => Effect.succeed([{ permission: "edit", patterns: [args.file] }]),
  execute: (args) => Effect.succeed({ title: args.file, output: "touched", metadata: {} })
})

// A Truncate that replaces any output over 10 characters by "[cut]".
const Cutting = Truncate.layerNoop({
  output: (text) =>
    Effect.succeed(
      text.length > 10
        ? { content: "[cut]", truncated: true, totalBytes: text.length, totalLines: 1, removedLines: 0, removedBytes: text.length }
        : { content: text, truncated: false, totalBytes: text.length, totalLines: 1, removedLines: 0, removedBytes: 0 }
    ),
  limits: () => ({ maxLines: 1, maxBytes: 1, direction: "head" })
})

describe("Testing.layer", () => {
  it.effect("a registry of the given tools over the in-memory workspace, truncating through the memory spill store", () =>
    Effect.gen(function*() {
      const result = yield* Testing.call("shout", { text: "a\n".repeat(3000) })
      assert.strictEqual(result.metadata.truncated, true)
      const spill = yield* SpillStorage.SpillStorage
      assert.isTrue(spill.owns(result.metadata.outputPath as string))
      const resolved = yield* Workspace.Workspace.use((w) => w.resolve("src/a.ts"))
      assert.deepStrictEqual([resolved.real, resolved.exists, resolved.inside], ["/ws/src/a.ts", true, true])
    }).pipe(Effect.provide(Testing.layer({ files: { "src/a.ts": "x\n" }, tools: [Shout] }))))

  it.effect("rules decide, and an ask nobody answers is rejected", () =>
    Effect.gen(function*() {
      const denied = yield* Effect.flip(Testing.call("touch", { file: "a.ts" }))
      assert.strictEqual(denied._tag, "PermissionDeniedError")
      const asked = yield* Effect.flip(Testing.call("touch", { file: "b.ts" }))
      assert.strictEqual(asked._tag, "PermissionRejectedError")
    }).pipe(Effect.provide(Testing.layer({
      tools: [Touch],
      rules: [{ permission: "edit", pattern: "*", action: "ask" }, { permission: "edit", pattern: "a.ts", action: "deny" }]
    }))))

  it.effect("services replace what the layer builds, for the registry too", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Testing.call("touch", { file: "a.ts" })).output, "touched")
      const [ask] = yield* ScriptedPermission.asked
      assert.deepStrictEqual(ask?.request.patterns, ["a.ts"])
      assert.strictEqual((yield* Testing.call("shout", { text: "long enough" })).output, "[cut]")
    }).pipe(Effect.provide(Testing.layer({
      tools: [Touch, Shout],
      rules: [],
      services: Layer.merge(ScriptedPermission.layer(["once"]), Cutting)
    }))))

  it.live("spill: { dir } spills to files that read and grep reach without asking, on a real directory", () =>
    Effect.gen(function*() {
      const root = yield* Fixtures.tempWorkspace({ "a.txt": "x\n" })
      const spillDir = `${root}-spill`
      const check = Effect.gen(function*() {
        const result = yield* Testing.call("shout", { text: "b\n".repeat(3000) })
        const outputPath = result.metadata.outputPath as string
        assert.isTrue(outputPath.startsWith(`${spillDir}/`))
        const resolved = yield* Workspace.Workspace.use((w) => w.resolve(outputPath))
        assert.deepStrictEqual([resolved.inside, resolved.spill], [false, true])
      })
      yield* check.pipe(Effect.provide(Testing.layer({
        root,
        platform: Layer.merge(NodeFileSystem.layer, NodePath.layer),
        spill: { dir: spillDir },
        tools: [Shout]
      })))
    }).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))))
})
