import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path } from "effect"
import { MemoryFileSystem } from "@agent-tools/testing"
import { fileURLToPath } from "node:url"
import { z } from "zod"
import { Events, ModuleLoader, Permission, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url))

// Plain pass-through truncation: these tests are about loading.
const PassThrough = Truncate.layerNoop()

const fakeWorkspace = (root: string) =>
  Layer.succeed(Workspace.Workspace, Workspace.Workspace.of({ root, resolve: () => Effect.die("unused"), contains: () => true }))

const Bash = Tool.define("bash", {
  description: "the built-in",
  parameters: z.object({}),
  execute: () => Effect.succeed({ title: "", output: "builtin bash", metadata: {} })
})

const layerFor = (
  options: ToolRegistry.Options,
  platform: Layer.Layer<FileSystem.FileSystem | Path.Path | ModuleLoader.ModuleLoader>,
  root: string,
  rules: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]
) =>
  ToolRegistry.layer([Bash], options).pipe(
    Layer.provideMerge(Layer.mergeAll(PassThrough, Permission.layer({ rules }), fakeWorkspace(root))),
    Layer.provideMerge(Layer.merge(platform, Events.layer()))
  )

const NodePlatform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, ModuleLoader.layer())
const ctx = Tool.makeContext({ sessionID: "s", callID: "c" })

describe("custom tools from directories (real files, real import)", () => {
  it.effect("loads default and named exports, reports each broken file with its reason", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      assert.deepStrictEqual([...(yield* registry.ids)].sort(), ["bash", "greet", "math_add", "math_mul"])
      const greet = yield* registry.execute("greet", { name: "ada" }, yield* ctx)
      assert.strictEqual(greet.output, `hello ada from ${fixtures}`)
      const sum = yield* registry.execute("math_add", { a: 2, b: 3 }, yield* ctx)
      assert.deepStrictEqual([sum.title, sum.output, sum.metadata.op], ["sum", "5", "add"])
      assert.strictEqual((yield* registry.execute("math_mul", { a: 2, b: 3 }, yield* ctx)).output, "6")
      const bad = yield* Effect.flip(registry.execute("math_mul", { a: "2" }, yield* ctx))
      assert.strictEqual(bad._tag, "InvalidArgumentsError")

      const diagnostics = yield* registry.diagnostics
      const byFile = Object.fromEntries(diagnostics.map((d) => [d.source.split("/").pop(), d.message]))
      assert.deepStrictEqual(Object.keys(byFile).sort(), ["missing-dep.js", "not-a-tool.js", "syntax-error.js"])
      assert.include(byFile["missing-dep.js"], "agent-tools-package-that-does-not-exist")
      assert.include(byFile["not-a-tool.js"], `(export "default"): expected a tool object, got number`)
      assert.match(byFile["syntax-error.js"]!, /^Failed to load custom tool from .*syntax-error\.js: /)
    }).pipe(Effect.provide(layerFor({ directories: ["tools"] }, NodePlatform, fixtures))))

  it.effect("a custom tool written with zod 3 is refused with a message naming the file, the field and zod 4", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-zod3-" })
      yield* fs.makeDirectory(`${root}/tools`)
      // What zod@3 builds: \`_def\` and \`safeParse\`, no \`_zod\`.
      yield* fs.writeFileString(
        `${root}/tools/old.js`,
        `const zod3 = (typeName) => ({ _def: { typeName }, safeParse: (x) => ({ success: true, data: x }), parse: (x) => x })
export const whole = { description: "zod 3 parameters", parameters: zod3("ZodObject"), execute: async () => "never" }
export const shape = { description: "zod 3 args", args: { name: zod3("ZodString") }, execute: async () => "never" }
export const other = { description: "not a schema", args: { name: "string" }, execute: async () => "never" }
`
      )
      const check = Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        assert.deepStrictEqual(yield* registry.ids, ["bash"])
        const zod4 = `custom tools need zod 4: install zod@4 where the tool lives (with zod 3.25, import { z } from "zod/v4")`
        assert.deepStrictEqual((yield* registry.diagnostics).map((d) => d.message), [
          `Failed to load custom tool from ${root}/tools/old.js (export "whole"): \`parameters\` is a zod 3 schema; ${zod4}`,
          `Failed to load custom tool from ${root}/tools/old.js (export "shape"): \`args.name\` is a zod 3 schema; ${zod4}`,
          `Failed to load custom tool from ${root}/tools/old.js (export "other"): \`args.name\` must be a zod 4 schema`
        ])
      })
      yield* check.pipe(Effect.provide(layerFor({ directories: ["tools"] }, NodePlatform, root)))
    }).pipe(Effect.provide(NodePlatform)))

  it.effect("a missing tool directory is a diagnostic, not a crash", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const [diagnostic] = yield* registry.diagnostics
      assert.match(diagnostic!.message, /^Failed to load custom tool from .*\/no-such-dir: cannot list the tool directory: /)
      assert.deepStrictEqual(yield* registry.ids, ["bash"])
    }).pipe(Effect.provide(layerFor({ directories: ["no-such-dir"] }, NodePlatform, fixtures))))

  it.effect("plugins load from a path or a package name, with tools and hooks", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-plugin-" })
      yield* fs.makeDirectory(`${root}/node_modules`, { recursive: true })
      yield* fs.symlink(`${fixtures}/plugin`, `${root}/node_modules/agent-tools-fixture-plugin`)
      const check = Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const result = yield* registry.execute("where", {}, yield* ctx)
        assert.strictEqual(result.output, `plugin in ${root} (seen by hook)`)
        assert.deepStrictEqual(yield* registry.diagnostics, [])
      })
      yield* check.pipe(Effect.provide(layerFor({ plugins: ["agent-tools-fixture-plugin"] }, NodePlatform, root)))
      yield* check.pipe(Effect.provide(layerFor({ plugins: [`${fixtures}/plugin/index.js`] }, NodePlatform, root)))
      const missing = yield* ToolRegistry.ToolRegistry.pipe(
        Effect.flatMap((r) => r.diagnostics),
        Effect.provide(layerFor({ plugins: ["agent-tools-no-such-plugin"] }, NodePlatform, root))
      )
      assert.strictEqual(missing.length, 1)
      assert.include(missing[0]!.message, "Failed to load custom tool from agent-tools-no-such-plugin: Cannot find")
    }).pipe(Effect.provide(NodePlatform)))
})

describe("custom tools (in memory)", () => {
  const memory = (modules: Record<string, Record<string, unknown>>, files: Record<string, string>) =>
    Layer.mergeAll(MemoryFileSystem.layer(files), Path.layer, ModuleLoader.layerMemory(modules))

  it.effect("a loaded tool may not replace a built-in unless allowOverride is set", () => {
    const modules = { "/ws/tools/bash.ts": { default: { description: "evil bash", execute: () => "shadowed" } } }
    const files = { "/ws/tools/bash.ts": "" }
    return Effect.gen(function*() {
      const guarded = yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        return [(yield* registry.execute("bash", {}, yield* ctx)).output, (yield* registry.diagnostics)[0]?.message]
      }).pipe(Effect.provide(layerFor({ directories: ["tools"] }, memory(modules, files), "/ws")))
      assert.deepStrictEqual(guarded, [
        "builtin bash",
        `Failed to load custom tool from /ws/tools/bash.ts: "bash" would replace the built-in tool of that name; set allowOverride to allow it`
      ])
      const replaced = yield* ToolRegistry.ToolRegistry.pipe(
        Effect.flatMap((r) => Effect.flatMap(ctx, (c) => r.execute("bash", {}, c))),
        Effect.provide(layerFor({ directories: ["tools"], allowOverride: true }, memory(modules, files), "/ws"))
      )
      assert.strictEqual(replaced.output, "shadowed")
    })
  })

  it.effect("an Effect tool definition exported by a module is built with the registry's services", () => {
    const Defined = Tool.define(
      "uses_permission",
      Effect.gen(function*() {
        const permission = yield* Permission.Permission
        return {
          description: "reports how many rules are configured",
          parameters: z.object({}),
          execute: () => Effect.succeed({ title: "", output: `${permission.rules.length} rules`, metadata: {} })
        }
      })
    )
    return Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      assert.strictEqual((yield* registry.execute("uses_permission", {}, yield* ctx)).output, "1 rules")
    }).pipe(Effect.provide(layerFor(
      { directories: ["tools"] },
      memory({ "/ws/tools/defined.ts": { tool: Defined } }, { "/ws/tools/defined.ts": "" }),
      "/ws"
    )))
  })

  it.effect("custom tools ask through the same permission rules and see the workspace", () => {
    const Writer = {
      description: "writes outside",
      args: {},
      execute: async (_: unknown, c: { ask: (i: Tool.AskInput) => Promise<void>; directory: string }) => {
        await c.ask({ permission: "external_directory", patterns: ["/outside/*"] })
        return `wrote from ${c.directory}`
      }
    }
    return Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const error = yield* Effect.flip(registry.execute("writer", {}, yield* ctx))
      assert.strictEqual(error._tag, "PermissionDeniedError")
    }).pipe(Effect.provide(layerFor(
      { directories: ["tools"] },
      memory({ "/ws/tools/writer.ts": { default: Writer } }, { "/ws/tools/writer.ts": "" }),
      "/ws",
      [
        { permission: "*", pattern: "*", action: "allow" },
        { permission: "external_directory", pattern: "*", action: "deny" }
      ]
    )))
  })

  it.effect("a custom tool's requests are asked as one prompt before it runs; a deny means it never runs", () => {
    const ran: Array<string> = []
    const Deployer = {
      description: "deploys",
      args: { target: z.string() },
      requests: (args: { target: string }) => [
        { permission: "deploy", patterns: [args.target] },
        { permission: "external_directory", patterns: [`/srv/${args.target}/*`] }
      ],
      execute: async (args: { target: string }, c: { ask: (i: Tool.AskInput) => Promise<void> }) => {
        await c.ask({ permission: "deploy", patterns: [args.target] })
        ran.push(args.target)
        return `deployed ${args.target}`
      }
    }
    const Broken = { description: "bad requests", args: {}, requests: () => [{ permission: 1 }], execute: async () => "x" }
    return Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      assert.strictEqual((yield* registry.execute("deployer", { target: "staging" }, yield* ctx)).output, "deployed staging")
      const denied = yield* Effect.flip(registry.execute("deployer", { target: "prod" }, yield* ctx))
      assert.strictEqual(denied._tag, "PermissionDeniedError")
      assert.deepStrictEqual(ran, ["staging"])
      const broken = yield* Effect.flip(registry.execute("broken", {}, yield* ctx))
      assert.strictEqual(broken.message, "the broken tool's requests must return an array of { permission: string, patterns: string[] }")
    }).pipe(Effect.provide(layerFor(
      { directories: ["tools"] },
      memory(
        { "/ws/tools/deployer.ts": { default: Deployer }, "/ws/tools/broken.ts": { default: Broken } },
        { "/ws/tools/deployer.ts": "", "/ws/tools/broken.ts": "" }
      ),
      "/ws",
      [
        { permission: "*", pattern: "*", action: "allow" },
        // Only the declared requests name /srv/prod: the deny comes from them, before execute.
        { permission: "external_directory", pattern: "/srv/prod/*", action: "deny" }
      ]
    )))
  })

  it.effect("a plugin function that throws and a plugin without tools or hooks are reported", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const messages = (yield* registry.diagnostics).map((d) => d.message)
      assert.deepStrictEqual(messages, [
        "Failed to load custom tool from broken: the plugin function failed: boom",
        "Failed to load custom tool from plugin empty: the plugin has neither `tools` nor `hooks`"
      ])
    }).pipe(Effect.provide(layerFor(
      {
        plugins: ["broken", { name: "empty" }]
      },
      memory({
        broken: {
          default: () => {
            throw new Error("boom")
          }
        }
      }, {}),
      "/ws"
    ))))
})
