import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem, Layer, Path } from "effect"
import { NodeServices } from "@effect/platform-node"
import { z } from "zod"
import { Permission, SpillStorage, Terminal, Tool, ToolRegistry, Workspace } from "@agent-tools/core"
import { NodeAgentTools, WorkspaceTrust } from "@agent-tools/runtime"
import { builtins } from "@agent-tools/tools"

// Small tools standing in for the built-ins: what the layer wires (config, rules, truncation,
// spill, custom tools) is the same for every tool.
const Echo = Tool.define("echo", {
  description: "Echo the text back",
  parameters: z.object({ text: z.string() }),
  execute: (args) => Effect.succeed({ title: "echo", output: args.text, metadata: {} })
})

const Touch = Tool.define("touch", {
  description: "Pretends to change a file",
  parameters: z.object({ filePath: z.string() }),
  execute: (args, ctx) =>
    ctx.ask({ permission: "edit", patterns: [args.filePath] }).pipe(
      Effect.as({ title: args.filePath, output: "touched", metadata: {} })
    )
})

const tools = [Echo, Touch]

const fakeEnv = (configHome: string) =>
  ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/test", XDG_DATA_HOME: "/xdg", XDG_CONFIG_HOME: configHome } }))

/**
 * Runs `f` in a fresh temp workspace holding `files`, on the real Node platform, with an empty
 * user config directory of its own; `trusted`: the user trusts the workspace (its config applies).
 */
const inWorkspace = <A, E, R>(
  files: Record<string, string>,
  f: (dir: string) => Effect.Effect<A, E, R>,
  options: { readonly trusted?: boolean } = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-node-" }))
    const configHome = yield* fs.makeTempDirectoryScoped({ prefix: "agent-node-config-" })
    return yield* Effect.gen(function*() {
      for (const [name, content] of Object.entries(files)) {
        yield* fs.makeDirectory(path.dirname(path.join(dir, name)), { recursive: true })
        yield* fs.writeFileString(path.join(dir, name), content)
      }
      if (options.trusted === true) yield* WorkspaceTrust.trust(dir)
      return yield* f(dir)
    }).pipe(Effect.provide(fakeEnv(configHome)))
  }).pipe(Effect.provide(NodeServices.layer))

const agent = (dir: string, options: Partial<NodeAgentTools.Options> = {}) =>
  NodeAgentTools.layerWithoutPlatform({ cwd: dir, tools, platform: "linux", unattended: "reject", ...options })

const call = (id: string, args: unknown) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "test", tool: id })
    return yield* registry.execute(id, args, ctx)
  })

const action = (permission: string, pattern: string) =>
  Permission.Permission.use((p) => p.evaluate(permission, pattern)).pipe(Effect.map((d) => d.action))

describe("NodeAgentTools.layer", () => {
  it.effect("embedded defaults: looking is allowed, changing asks, spills go to the data dir", () =>
    inWorkspace({}, (dir) =>
      Effect.gen(function*() {
        const settings = yield* NodeAgentTools.NodeSettings
        assert.strictEqual(settings.spillDir, "/xdg/agent-tools/tool-output")
        assert.strictEqual(settings.file, undefined)
        assert.strictEqual(yield* action("read", `${dir}/src/a.ts`), "allow")
        assert.strictEqual(yield* action("read", `${dir}/.env`), "ask")
        assert.strictEqual(yield* action("read", `${dir}/.env.example`), "allow")
        assert.strictEqual(yield* action("grep", "foo"), "allow")
        assert.strictEqual(yield* action("glob", "**/*.ts"), "allow")
        assert.strictEqual(yield* action("list", dir), "allow")
        assert.strictEqual(yield* action("edit", "src/a.ts"), "ask")
        assert.strictEqual(yield* action("bash", "ls"), "ask")
        assert.strictEqual(yield* action("external_directory", "/etc/*"), "ask")
        assert.strictEqual(yield* action("webfetch", "https://x"), "ask")
        assert.strictEqual(
          (yield* SpillStorage.SpillStorage).directory,
          `/xdg/agent-tools/tool-output/${yield* SpillStorage.workspaceDirectoryName(dir)}`
        )
        assert.strictEqual((yield* Workspace.Workspace).root, dir)
        // A 2 GiB output is spilled whole.
        assert.strictEqual((yield* SpillStorage.SpillStorage).maxBytes, 4 * 1024 * 1024 * 1024)
        // unattended "reject": an ask fails at once with a message saying why.
        const error = yield* Effect.flip(call("touch", { filePath: "a.ts" }))
        assert.strictEqual(error._tag, "PermissionRejectedError")
      }).pipe(Effect.provide(agent(dir)))
    ))

  it.effect("agent-tools.json of a trusted workspace: rules, disabled tools, truncation and the spill dir", () =>
    inWorkspace({
      "agent-tools.json": JSON.stringify({
        permission: { edit: { "*": "allow", "secret/*": "deny" } },
        truncation: { maxLines: 3 },
        spill: { dir: "spill", retentionDays: 2 },
        tools: { disabled: ["echo"] }
      })
    }, (dir) =>
      Effect.gen(function*() {
        const settings = yield* NodeAgentTools.NodeSettings
        assert.strictEqual(settings.file, `${dir}/agent-tools.json`)
        assert.strictEqual(settings.spillDir, `${dir}/spill`)
        assert.strictEqual(settings.retentionDays, 2)
        const registry = yield* ToolRegistry.ToolRegistry
        assert.deepStrictEqual((yield* registry.tools()).map((t) => t.id), ["touch"])
        assert.strictEqual((yield* call("touch", { filePath: "src/a.ts" })).output, "touched")
        const denied = yield* Effect.flip(call("touch", { filePath: "secret/key" }))
        assert.strictEqual(denied._tag, "PermissionDeniedError")
        const disabled = yield* Effect.flip(call("echo", { text: "x" }))
        assert.strictEqual(disabled._tag, "ToolUnavailableError")
      }).pipe(Effect.provide(agent(dir))), { trusted: true }))

  it.effect("truncation.tools.<id>.strategy from agent-tools.json: a JSON output stays valid JSON", () =>
    inWorkspace({
      "agent-tools.json": JSON.stringify({ truncation: { maxBytes: 100, tools: { echo: { strategy: "json" } } } })
    }, (dir) =>
      Effect.gen(function*() {
        const result = yield* call("echo", { text: JSON.stringify(Array.from({ length: 100 }, (_, i) => i)) })
        const preview = JSON.parse(result.output) as Array<unknown>
        assert.deepStrictEqual(preview.slice(1), [...Array.from({ length: 25 }, (_, i) => i), "[… 75 more items]"])
        assert.isTrue(result.metadata.truncated)
      }).pipe(Effect.provide(agent(dir)))
    ))

  it.effect("truncates by the config and spills to spill.dir, readable without an outside ask", () =>
    inWorkspace({}, (dir) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const spillDir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-spill-" }))
        const config = { truncation: { maxLines: 3 }, spill: { dir: spillDir } }
        yield* Effect.gen(function*() {
          const result = yield* call("echo", { text: ["1", "2", "3", "4", "5", "6"].join("\n") })
          assert.isTrue(result.metadata.truncated)
          const outputPath = result.metadata.outputPath as string
          assert.isTrue(outputPath.startsWith(`${spillDir}/`))
          // The spill is written in the background; resolving it (as read and grep do) waits for it.
          const resolved = yield* (yield* Workspace.Workspace).resolve(outputPath)
          assert.strictEqual(yield* fs.readFileString(outputPath), "1\n2\n3\n4\n5\n6")
          assert.isFalse(resolved.inside)
          assert.isTrue(resolved.spill)
        }).pipe(Effect.provide(agent(dir, { config })))
        // spill.maxBytes caps each spill, and the notice says so.
        yield* Effect.gen(function*() {
          const result = yield* call("echo", { text: ["1", "2", "3", "4", "5", "6"].join("\n") })
          const outputPath = result.metadata.outputPath as string
          yield* (yield* Workspace.Workspace).resolve(outputPath)
          assert.strictEqual(yield* fs.readFileString(outputPath), "1\n2\n\n[spill truncated at 4 bytes]\n")
          assert.include(result.output, `Only the first 4 of 11 bytes were saved (the spill size limit), to: ${outputPath}`)
        }).pipe(Effect.provide(agent(dir, { config: { ...config, spill: { dir: spillDir, maxBytes: 4 } } })))
      })
    ))

  it.effect("a custom SpillStorage in services receives every spill, and read pages it", () =>
    inWorkspace({}, (dir) =>
      Effect.gen(function*() {
        const spilled: Array<string> = []
        // A recording store over the in-memory one: every committed spill is noted.
        const Recording = Layer.effect(
          SpillStorage.SpillStorage,
          Effect.gen(function*() {
            const inner = yield* SpillStorage.SpillStorage
            const note = (p: string) => Effect.sync(() => spilled.push(p))
            return SpillStorage.SpillStorage.of({
              ...inner,
              write: (content) => Effect.tap(inner.write(content), note),
              writer: Effect.map(inner.writer, (w) => ({ ...w, commit: Effect.tap(w.commit, note) }))
            })
          })
        ).pipe(Layer.provide(SpillStorage.layerMemory()))
        const fs = yield* FileSystem.FileSystem
        const spillDir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-spill-" }))
        // Only the tools that make spills cut at 3 lines: read must page them with room to show a page.
        const config = {
          truncation: { tools: { bash: { maxLines: 3 }, echo: { maxLines: 3 } } },
          sandbox: { mode: "off" as const },
          spill: { dir: spillDir }
        }
        yield* Effect.gen(function*() {
          assert.strictEqual((yield* SpillStorage.SpillStorage).directory, undefined)
          const bash = yield* call("bash", { command: "seq 1 10", description: "Count to ten" })
          assert.isTrue(bash.metadata.truncated)
          const bashSpill = bash.metadata.outputPath as string
          assert.isTrue(bashSpill.startsWith("memory://spill/"), bashSpill)
          const echo = yield* call("echo", { text: ["a", "b", "c", "d", "e"].join("\n") })
          const echoSpill = echo.metadata.outputPath as string
          assert.deepStrictEqual(spilled, [bashSpill, echoSpill])
          // The node layer's own file store saw nothing.
          assert.deepStrictEqual(yield* fs.readDirectory(spillDir), [])
          const page = yield* call("read", { filePath: bashSpill, offset: 8, limit: 2 })
          assert.include(page.output, "8: 8\n9: 9")
          assert.notInclude(page.output, "10: 10")
        }).pipe(Effect.provide(agent(dir, { tools: [...builtins, Echo], config, unattended: "allow", services: Recording })))
      })
    ))

  it.effect("a config object instead of a file", () =>
    inWorkspace({}, (dir) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* action("edit", "x"), "allow")
        assert.strictEqual(yield* action("bash", "git status -s"), "allow")
        assert.strictEqual(yield* action("bash", "git push"), "ask")
      }).pipe(Effect.provide(agent(dir, { config: { permission: { edit: "allow", bash: { "git status": "allow" } } } })))
    ))

  it.effect("provides real terminals: the PTY package's status, not the default's lack of a terminal layer", () =>
    inWorkspace({}, (dir) =>
      Effect.gen(function*() {
        const status = yield* (yield* Terminal.Terminal).available
        // Where the package cannot load here, the reason is the Node layer's, not "no terminal layer".
        assert.isTrue(status.ok || status.reason.includes("terminal packages could not be loaded"), JSON.stringify(status))
      }).pipe(Effect.provide(agent(dir)))
    ))

  it.effect("loads custom tools from tools.directories", () =>
    inWorkspace({
      "agent-tools.json": JSON.stringify({ tools: { directories: [".agent/tools"] } }),
      ".agent/tools/hello.js": `export default { description: "Says hello", execute: async () => "hello from a custom tool" }\n`
    }, (dir) =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        assert.deepStrictEqual(yield* registry.diagnostics, [])
        assert.include((yield* registry.tools()).map((t) => t.id), "hello")
        assert.strictEqual((yield* call("hello", {})).output, "hello from a custom tool")
      }).pipe(Effect.provide(agent(dir))), { trusted: true }))

  it.effect("fails with the bad key of the config, or the missing workspace", () =>
    inWorkspace({ "agent-tools.json": `{"truncation":{"direction":"middle"}}` }, (dir) =>
      Effect.gen(function*() {
        const bad = yield* Effect.flip(Layer.build(agent(dir)))
        assert.strictEqual(bad._tag, "ConfigError")
        assert.strictEqual(bad.message, `${dir}/agent-tools.json: truncation.direction: expected head | tail | head+tail, got "middle"`)
        const missing = yield* Effect.flip(Layer.build(agent(`${dir}/nope`)))
        assert.strictEqual(missing._tag, "WorkspaceRootError")
      })
    ))

  it.effect("a tools.disabled entry naming no tool is refused with its path and the known ids", () =>
    inWorkspace({ "agent-tools.json": `{"tools":{"disabled":["touch","tuoch"]}}` }, (dir) =>
      Effect.gen(function*() {
        const bad = yield* Effect.flip(Layer.build(agent(dir)))
        assert.strictEqual(bad._tag, "ConfigError")
        assert.strictEqual(
          bad.message,
          `${dir}/agent-tools.json: tools.disabled[1]: unknown tool id "tuoch" (known: echo, touch)`
        )
      })
    ))

  it.effect("mcp: enabled servers with cwd made absolute; tools.disabled may name their tools; nothing starts with the layer", () =>
    inWorkspace({
      "agent-tools.json": JSON.stringify({
        mcp: {
          files: { type: "local", command: ["/nonexistent/files-mcp"], cwd: "sub" },
          off: { type: "local", command: ["/nonexistent/off"], enabled: false },
          "My Docs": { type: "remote", url: "https://example.com/mcp" }
        },
        tools: { disabled: ["files_write", "My_Docs_search"] }
      })
    }, (dir) =>
      Effect.gen(function*() {
        const settings = yield* NodeAgentTools.NodeSettings
        assert.deepStrictEqual(settings.mcp, {
          files: { type: "local", command: ["/nonexistent/files-mcp"], cwd: `${dir}/sub` },
          "My Docs": { type: "remote", url: "https://example.com/mcp" }
        })
        // Built without starting anything: no server was reachable, yet no warning and no failure.
        const registry = yield* ToolRegistry.ToolRegistry
        assert.deepStrictEqual(yield* registry.ids, ["echo", "touch"])
      }).pipe(Effect.provide(agent(dir))), { trusted: true }))

  it.effect("mcp: a tools.disabled entry with no server's prefix is still refused", () =>
    inWorkspace({
      "agent-tools.json": JSON.stringify({
        mcp: { files: { type: "local", command: ["/nonexistent/files-mcp"] } },
        tools: { disabled: ["file_write"] }
      })
    }, (dir) =>
      Effect.gen(function*() {
        const bad = yield* Effect.flip(Layer.build(agent(dir)))
        assert.strictEqual(bad.message, `${dir}/agent-tools.json: tools.disabled[0]: unknown tool id "file_write" (known: echo, touch)`)
      })
    ))

  it.effect("apply_patch.mode: atomic refuses an unanchored chunk that matches twice, sequential patches the first copy", () => {
    const twice = "x = 1\ny = 2\nx = 1\ny = 2\n"
    const patchText = ["*** Begin Patch", "*** Update File: m.py", "@@", "-x = 1", "+x = 3", "*** End Patch"].join("\n")
    const run = (config: NodeAgentTools.Options["config"]) =>
      inWorkspace({ "m.py": twice }, (dir) =>
        Effect.gen(function*() {
          yield* call("read", { filePath: "m.py" })
          const outcome = yield* Effect.result(call("apply_patch", { patchText }))
          const fs = yield* FileSystem.FileSystem
          return { failed: outcome._tag === "Failure", text: yield* fs.readFileString(`${dir}/m.py`) }
        }).pipe(Effect.provide(agent(dir, { tools: builtins, config }))))
    return Effect.gen(function*() {
      assert.deepStrictEqual(yield* run({ permission: "allow" }), { failed: true, text: twice })
      assert.deepStrictEqual(yield* run({ permission: "allow", apply_patch: { mode: "sequential" } }), {
        failed: false,
        text: twice.replace("x = 1", "x = 3")
      })
    })
  })

  it.effect("builds every built-in tool with the embedded services", () =>
    inWorkspace({}, (dir) =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry.ToolRegistry
        const ids = (yield* registry.ids).toSorted()
        assert.deepStrictEqual(ids, builtins.map((t) => t.id).toSorted())
      }).pipe(Effect.provide(NodeAgentTools.layer({ cwd: dir, platform: "linux" })))
    ))
})
