/** The bash tool end to end: what it runs (the shell, its environment, the sandbox it is given). */
import { join } from "node:path"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { Events, ModuleLoader, Permission, Sandbox, SpillStorage, Tool, Truncate, Workspace } from "@agent-tools/core"
import { FakeSpawner } from "@agent-tools/testing"
import * as Bash from "../../src/bash/index.ts"
import { ALLOW_ALL, args, base, call, root } from "./toolHarness.ts"

describe("bash tool: what it runs", () => {
  const fake = Layer.mergeAll(
    Workspace.layer({ root }),
    Permission.layer({ rules: ALLOW_ALL }),
    Truncate.layer(),
    Bash.parserLayer,
    Bash.configLayer({ home: base, env: { EXTRA: "1" } }),
    ConfigProvider.layer(ConfigProvider.fromEnvRecord({ PATH: "/usr/bin:/bin", SHELL: "/bin/bash", GITHUB_TOKEN: "ghp_secret" }))
  ).pipe(
    Layer.provideMerge(SpillStorage.layerMemory()),
    Layer.provideMerge(Layer.mergeAll(
      FakeSpawner.layer(() => ({ stdout: "fake\n" })),
      NodeFileSystem.layer,
      NodePath.layer,
      Events.layerNoop,
      ModuleLoader.layerMemory({}),
      Sandbox.layerNone("these tests run a fake spawner")
    ))
  )

  it.live("passes the command unchanged to the shell, with the non-interactive environment and no host secret", () =>
    Effect.gen(function*() {
      const { result } = yield* call(args("git log | head -3", { workdir: "sub" }))
      assert.strictEqual(result.output, "fake\n")
      const [spawned] = yield* FakeSpawner.spawned
      assert.strictEqual(spawned!.command, "git log | head -3")
      assert.strictEqual(spawned!.shell, "/bin/bash")
      assert.strictEqual(spawned!.cwd, join(root, "sub"))
      // Without a sandbox too, only allow-listed host variables come in: the token stays out.
      assert.deepStrictEqual(spawned!.env, { PATH: "/usr/bin:/bin", SHELL: "/bin/bash", ...Bash.NON_INTERACTIVE_ENV, EXTRA: "1" })
    }).pipe(Effect.provide(fake)))

  it.live("a command too large or too deeply nested is a tool error, and nothing runs", () =>
    Effect.gen(function*() {
      let deep = "ls"
      for (let i = 0; i < 1000; i++) deep = `echo $(${deep})`
      const nested = yield* Effect.flip(call(args(deep)))
      assert.strictEqual(nested._tag, "ToolError")
      assert.match(nested.message, /^The command nests more than 500 levels deep/)
      const large = yield* Effect.flip(call(args(`echo ${"x".repeat(200_000)}`)))
      assert.strictEqual(large._tag, "ToolError")
      assert.match(large.message, /^The command is 200005 bytes; a command may be at most 131072 bytes \(128 KiB\)/)
      assert.deepStrictEqual(yield* FakeSpawner.spawned, [])
    }).pipe(Effect.provide(fake)))

  it.effect("describes itself with the parameters opencode uses", () =>
    Effect.gen(function*() {
      const tool = yield* Tool.build(Bash.BashTool)
      assert.deepStrictEqual(Object.keys((tool.jsonSchema as { properties: object }).properties), ["command", "timeout", "workdir", "description", "run_in_background", "tty", "cols", "rows"])
      assert.deepStrictEqual((tool.jsonSchema as { required: Array<string> }).required, ["command", "description"])
      assert.include(tool.description, `All commands run in ${root} by default`)
      assert.include(tool.description, "commands time out after 120000ms")
      assert.include(tool.description, "A command may be at most 131072 bytes (128 KiB)")
      // True by "passes the command unchanged…" above: the token in the environment is not passed on.
      assert.include(tool.description, "credentials in the agent's environment (API keys, tokens) are not set")
      assert.isTrue(tool.annotations.destructive)
    }).pipe(Effect.provide(fake)))
})
