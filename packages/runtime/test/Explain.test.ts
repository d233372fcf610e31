import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem } from "effect"
import { NodeServices } from "@effect/platform-node"
import { z } from "zod"
import { Tool } from "@agent-tools/core"
import { type AgentConfig, Explain, NodeAgentTools } from "@agent-tools/runtime"
import { builtins } from "@agent-tools/tools"

const Shell = Tool.define("shell", {
  description: "A tool with its own requests",
  parameters: z.object({ script: z.string() }),
  execute: () => Effect.die("must not run"),
  // One request per `;`-separated command, the way bash reports sub-commands.
  requests: (args) =>
    Effect.succeed([{ permission: "bash", patterns: args.script.split(";").map((c) => c.trim()) }])
})

const Plain = Tool.define("plain", {
  description: "A tool that declares no requests",
  parameters: z.object({}),
  execute: () => Effect.die("must not run")
})

const tools = [...builtins, Shell, Plain]

const config: AgentConfig.Input = { permission: { bash: { "*": "ask", "git status": "allow", "rm *": "deny" } } }

const explainIn = <A, E>(f: (dir: string) => Effect.Effect<A, E, any>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-explain-" }))
    return yield* f(dir).pipe(
      Effect.provide(NodeAgentTools.layerWithoutPlatform({ cwd: dir, tools, config, platform: "linux" }))
    )
  }).pipe(
    Effect.provide(NodeServices.layer),
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/t", XDG_DATA_HOME: "/xdg" } })))
  ) as Effect.Effect<A, E>

const brief = (report: Explain.Report) => report.decisions.map((d) => `${d.action} ${d.permission} ${d.pattern}`)

describe("Explain", () => {
  it.effect("read and edit: the tools' own requests, with the path as the tools ask it", () =>
    explainIn((dir) =>
      Effect.gen(function*() {
        const read = yield* Explain.explain("read", { filePath: "src/a.ts" })
        assert.strictEqual(read.source, "tool")
        assert.strictEqual(read.action, "allow")
        assert.deepStrictEqual(brief(read), [`allow read src/a.ts`])
        assert.deepStrictEqual(read.decisions[0]?.rule, { permission: "read", pattern: "*", action: "allow" })
        const edit = yield* Explain.explain("edit", { filePath: `${dir}/src/a.ts`, oldString: "a", newString: "b" })
        assert.deepStrictEqual(brief(edit), ["ask edit src/a.ts"])
        assert.strictEqual(edit.decisions[0]?.reason, `rule edit "*" → ask (configured)`)
      })
    ))

  it.effect("bash_output asks nothing up front and says that input to a shell or interpreter job is asked when written", () =>
    explainIn(() =>
      Effect.gen(function*() {
        const report = yield* Explain.explain("bash_output", { id: "job-1", input: "rm -rf /\n" })
        assert.strictEqual(report.action, "allow")
        assert.deepStrictEqual(report.decisions, [])
        assert.include(report.atRunTime?.[0], "asked as a bash command when it is written")
      })
    ))

  it.effect("a path outside the workspace needs external_directory, on its real directory", () =>
    explainIn(() =>
      Effect.gen(function*() {
        const report = yield* Explain.explain("read", { filePath: "/etc/hostname" })
        assert.strictEqual(report.action, "ask")
        assert.deepStrictEqual(brief(report), ["ask external_directory /etc/*", "allow read /etc/hostname"])
        const patch = yield* Explain.explain("apply_patch", {
          patchText: "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Delete File: old.txt\n*** End Patch"
        })
        assert.deepStrictEqual(brief(patch), ["ask edit new.txt", "ask edit old.txt"])
      })
    ))

  it.effect("bash: every sub-command by the bash analysis; a deny wins", () =>
    explainIn(() =>
      Effect.gen(function*() {
        const report = yield* Explain.explain("bash", { command: "git status && rm -rf build", description: "s" })
        assert.strictEqual(report.source, "tool")
        assert.strictEqual(report.action, "deny")
        // deleting `build` is an edit of it, asked first
        assert.deepStrictEqual(brief(report), ["ask edit build", "allow bash git status", "deny bash rm -rf build"])
        assert.strictEqual(report.decisions[2]?.reason, `rule bash "rm *" → deny (configured)`)
      })
    ))

  it.effect("a custom tool's requests are used as is; without any, explain says so", () =>
    explainIn(() =>
      Effect.gen(function*() {
        const own = yield* Explain.explain("shell", { script: "git status; rm -rf build; make" })
        assert.strictEqual(own.source, "tool")
        assert.strictEqual(own.action, "deny")
        assert.deepStrictEqual(brief(own), ["allow bash git status", "deny bash rm -rf build", "ask bash make"])
        const plain = yield* Explain.explain("plain", {})
        assert.deepStrictEqual([plain.source, plain.action, plain.decisions], ["none", "allow", []])
        assert.strictEqual(
          Explain.render(plain),
          "plain: allow (the tool declares no permission requests; it may still ask while it runs)"
        )
      })
    ))

  it.effect("unknown tools and invalid arguments fail like a call would", () =>
    explainIn(() =>
      Effect.gen(function*() {
        const unknown = yield* Effect.flip(Explain.explain("nope", {}))
        assert.strictEqual(unknown._tag, "UnknownToolError")
        const invalid = yield* Effect.flip(Explain.explain("read", { file: "x" }))
        assert.strictEqual(invalid._tag, "InvalidArgumentsError")
        // Case-insensitive like ToolRegistry.execute.
        assert.strictEqual((yield* Explain.explain("READ", { filePath: "a" })).tool, "read")
        assert.strictEqual(Explain.render(yield* Explain.explain("grep", { pattern: "x" })), `grep: allow\n  allow grep "x": rule grep "*" → allow (configured)`)
      })
    ))
})
