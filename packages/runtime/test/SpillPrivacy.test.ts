import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem, Path, type Scope } from "effect"
import { NodeServices } from "@effect/platform-node"
import { z } from "zod"
import { SpillStorage, Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"
import { builtins } from "@agent-tools/tools"

// Two workspaces share one spill root, as every workspace of a user does by default.
const Echo = Tool.define("echo", {
  description: "Echo the text back",
  parameters: z.object({ text: z.string() }),
  execute: (args) => Effect.succeed({ title: "echo", output: args.text, metadata: {} })
})

const tools = [...builtins, Echo]
const fakeEnv = ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/test" } }))
const SECRET = ["secret-1", "secret-2", "secret-3", "secret-4", "secret-5"].join("\n")

const call = (id: string, args: unknown) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "test", tool: id })
    return yield* registry.execute(id, args, ctx)
  })

/** The tool layer of `cwd` over the shared spill root; any `ask` is rejected at once. */
const agent = (cwd: string, spillDir: string, permission: Record<string, unknown> = {}) =>
  NodeAgentTools.layerWithoutPlatform({
    cwd,
    tools,
    platform: "linux",
    unattended: "reject",
    // Only echo cuts at 3 lines: read must page its spills with room to show a page.
    config: { truncation: { tools: { echo: { maxLines: 3 } } }, spill: { dir: spillDir }, permission: permission as never }
  })

const setup = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const base = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-spill-privacy-" }))
  const spillDir = path.join(base, "spill")
  const a = path.join(base, "a")
  const b = path.join(base, "b")
  for (const d of [a, b]) yield* fs.makeDirectory(d)
  // Workspace A truncates an output: the full text goes to A's spill directory.
  const spilled = yield* call("echo", { text: SECRET }).pipe(Effect.provide(agent(a, spillDir)))
  assert.isTrue(spilled.metadata.truncated)
  return { fs, path, spillDir, a, b, outputPath: spilled.metadata.outputPath as string }
})

const inTemp = <A, E>(body: Effect.Effect<A, E, NodeAgentTools.Platform | Scope.Scope>) =>
  Effect.scoped(body).pipe(Effect.provide(NodeServices.layer), Effect.provide(fakeEnv))

describe("spill privacy across workspaces", () => {
  it.effect("a spill lives in its workspace's own 0700 directory as a 0600 file", () =>
    inTemp(Effect.gen(function*() {
      const { fs, path, spillDir, a, outputPath } = yield* setup
      const own = path.join(spillDir, yield* SpillStorage.workspaceDirectoryName(a))
      assert.strictEqual(path.dirname(outputPath), own)
      const mode = (p: string) => Effect.map(fs.stat(p), (i) => i.mode & 0o7777)
      assert.deepStrictEqual([yield* mode(spillDir), yield* mode(own), yield* mode(outputPath)], [0o700, 0o700, 0o600])
    })))

  it.effect("read and grep of the workspace's own spill need no prompt (every ask is rejected here)", () =>
    inTemp(Effect.gen(function*() {
      const { a, path, outputPath } = yield* setup
      yield* Effect.gen(function*() {
        const read = yield* call("read", { filePath: outputPath })
        assert.include(read.output, "5: secret-5")
        const grepFile = yield* call("grep", { pattern: "secret-4", path: outputPath })
        assert.include(grepFile.output, "secret-4")
        const grepDir = yield* call("grep", { pattern: "secret-2", path: path.dirname(outputPath) })
        assert.include(grepDir.output, "secret-2")
      }).pipe(Effect.provide(agent(a, path.dirname(path.dirname(outputPath)))))
    })))

  it.effect("another workspace under external_directory: deny cannot read or grep it", () =>
    inTemp(Effect.gen(function*() {
      const { b, spillDir, outputPath, path } = yield* setup
      const denied = (target: string) =>
        `A permission rule prevents this tool call: external_directory "${target}/*" is denied by the rule ` +
        `{"permission":"external_directory","pattern":"*","action":"deny"}.`
      yield* Effect.gen(function*() {
        // B's own spills are still readable: B's store is B's subdirectory, not the shared root.
        const own = yield* call("echo", { text: SECRET })
        assert.include((yield* call("read", { filePath: own.metadata.outputPath as string })).output, "secret-5")

        const read = yield* Effect.flip(call("read", { filePath: outputPath }))
        assert.strictEqual(read.message, denied(path.dirname(outputPath)))
        const grepFile = yield* Effect.flip(call("grep", { pattern: "secret", path: outputPath }))
        assert.strictEqual(grepFile.message, denied(path.dirname(outputPath)))
        const grepRoot = yield* Effect.flip(call("grep", { pattern: "secret", path: spillDir }))
        assert.strictEqual(grepRoot.message, denied(spillDir))
      }).pipe(Effect.provide(agent(b, spillDir, { external_directory: "deny" })))
    })))

  it.effect("without a deny rule, reading another workspace's spill asks external_directory", () =>
    inTemp(Effect.gen(function*() {
      const { b, spillDir, outputPath } = yield* setup
      const asked = yield* Effect.flip(call("read", { filePath: outputPath }).pipe(Effect.provide(agent(b, spillDir))))
      assert.strictEqual(asked._tag, "PermissionRejectedError")
      assert.deepStrictEqual((asked as { readonly permission?: string }).permission, "external_directory")
    })))
})
