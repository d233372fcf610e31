/**
 * The Node Lsp layer against the real typescript-language-server on a small project in a temp
 * directory: diagnostics after the file tools, the lsp tool, and no server left running after the
 * layer's scope closes. The server takes a few seconds to start: the tests allow a minute.
 */
import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem, Path } from "effect"
import { NodeServices } from "@effect/platform-node"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { type AgentConfig, NodeAgentTools } from "@agent-tools/runtime"

const fakeEnv = ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/test", XDG_DATA_HOME: "/tmp/lsp-test-xdg" } }))

const PROJECT: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "esnext", moduleResolution: "bundler" }
  }),
  "math.ts": "export function add(a: number, b: number): number {\n  return a + b\n}\n",
  "main.ts": "import { add } from \"./math\"\n\nexport const total: number = add(1, 2)\n"
}

// Generous: the diagnostics of a file the server has just opened come after its project loads.
const CONFIG: AgentConfig.Input = { lsp: { diagnosticsTimeout: 30_000 }, experimental: { lsp_tool: true } }

const call = (id: string, args: unknown) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "lsp", tool: id })
    return yield* registry.execute(id, args, ctx)
  })

const output = (id: string, args: unknown) => Effect.map(call(id, args), (r) => r.output)

/** This process's descendants running the language server or its tsserver. */
const serverPids = (): ReadonlyArray<number> => {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" }).split("\n").flatMap((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)
    return m === null ? [] : [{ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }]
  })
  const ours = new Set([process.pid])
  for (let grew = true; grew;) {
    grew = false
    for (const r of rows) if (ours.has(r.ppid) && !ours.has(r.pid)) (ours.add(r.pid), grew = true)
  }
  return rows.filter((r) => ours.has(r.pid) && /typescript-language-server|tsserver/.test(r.args)).map((r) => r.pid)
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Runs `f` with the node layer (LSP on) in a fresh copy of the project; once the layer's scope
 * has closed, checks that every server process seen while `f` ran is gone.
 */
const inProject = <A, E>(
  f: Effect.Effect<A, E, NodeAgentTools.Services>,
  options: { readonly files?: Record<string, string>; readonly config?: AgentConfig.Input } = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-lsp-" }))
    for (const [name, content] of Object.entries({ ...PROJECT, ...options.files })) {
      yield* fs.makeDirectory(path.dirname(path.join(dir, name)), { recursive: true })
      yield* fs.writeFileString(path.join(dir, name), content)
    }
    let seen: ReadonlyArray<number> = []
    const result = yield* f.pipe(
      Effect.tap(() => Effect.sync(() => (seen = serverPids()))),
      Effect.provide(NodeAgentTools.layerWithoutPlatform({ cwd: dir, platform: "linux", unattended: "allow", config: options.config ?? CONFIG }))
    )
    assert.isAbove(seen.length, 0, "a language server ran")
    assert.deepStrictEqual(seen.filter(alive), [], "no server process is left after the scope closed")
    assert.deepStrictEqual(serverPids(), [])
    return result
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer), Effect.provide(fakeEnv))

const MATH_ERROR = "<diagnostics file=\"math.ts\">\nERROR [2:3] Type 'string' is not assignable to type 'number'.\n</diagnostics>"
const MAIN_ERROR = "<diagnostics file=\"main.ts\">\nERROR [3:30] Expected 3 arguments, but got 2.\n</diagnostics>"

/**
 * A workspace's own TypeScript, as a command run in the workspace could plant it: it marks that it
 * ran, then serves as the real one.
 */
const planted = (marker: string): Record<string, string> => ({
  "node_modules/typescript/package.json": JSON.stringify({ name: "typescript", version: "5.9.3" }),
  "node_modules/typescript/lib/tsserver.js": `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran")
require(${JSON.stringify(createRequire(import.meta.url).resolve("typescript/lib/tsserver.js"))})
`
})

describe("LSP diagnostics (typescript-language-server)", () => {
  it.live("the server runs our TypeScript, not the workspace's, unless lsp.workspaceTypeScript", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const marker = yield* fs.makeTempFileScoped({ prefix: "agent-lsp-marker-" })
      yield* fs.remove(marker)
      const edit = call("read", { filePath: "math.ts" }).pipe(
        Effect.andThen(output("edit", { filePath: "math.ts", oldString: "return a + b", newString: "return \"oops\"" }))
      )
      assert.include(yield* inProject(edit, { files: planted(marker) }), MATH_ERROR)
      assert.isFalse(yield* fs.exists(marker), "the workspace's tsserver.js did not run")
      // The planted file is a working TypeScript: opted in, it is the one that runs.
      const config = { ...CONFIG, lsp: { diagnosticsTimeout: 30_000, workspaceTypeScript: true } }
      assert.include(yield* inProject(edit, { files: planted(marker), config }), MATH_ERROR)
      assert.isTrue(yield* fs.exists(marker), "the workspace's tsserver.js ran when opted in")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 120_000)

  it.live("an edit's type error is reported, the fixing edit reports none, and a broken importer is reported as another file", () =>
    inProject(Effect.gen(function*() {
      yield* call("read", { filePath: "math.ts" })
      yield* call("read", { filePath: "main.ts" })
      // The server's first check of the project is slow: a new clean file waits it out.
      assert.strictEqual(yield* output("write", { filePath: "warm.ts", content: "export const warm = 1\n" }), "Created warm.ts (+1 −0 lines).")
      assert.strictEqual(
        yield* output("edit", { filePath: "math.ts", oldString: "return a + b", newString: "return \"oops\"" }),
        `Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n${MATH_ERROR}`
      )
      assert.strictEqual(
        yield* output("edit", { filePath: "math.ts", oldString: "return \"oops\"", newString: "return a + b" }),
        "Edit applied successfully."
      )
      // main.ts, open since its read, breaks when add's signature changes.
      assert.strictEqual(
        yield* output("multiedit", { filePath: "math.ts", edits: [{ oldString: "b: number)", newString: "b: number, c: number)" }] }),
        `Applied 1 edit to math.ts.\n\nLSP errors detected in other files:\n${MAIN_ERROR}`
      )
      assert.strictEqual(
        yield* output("write", { filePath: "main.ts", content: "import { add } from \"./math\"\n\nexport const total: number = add(1, 2, 3)\n" }),
        "Wrote main.ts (+1 −1 lines)."
      )
    })), 120_000)

  it.live("apply_patch names each changed file with errors", () =>
    inProject(Effect.gen(function*() {
      const patch = "*** Begin Patch\n*** Update File: math.ts\n@@\n-  return a + b\n+  return \"oops\"\n*** End Patch"
      yield* output("read", { filePath: "math.ts" })
      assert.strictEqual(
        yield* output("apply_patch", { patchText: patch }),
        `Success. Updated the following files:\nM math.ts\n\nLSP errors detected in math.ts, please fix:\n${MATH_ERROR}`
      )
    })), 120_000)

  it.live("the lsp tool answers hover, definition, references and document symbols", () =>
    inProject(Effect.gen(function*() {
      const at = { filePath: "main.ts", line: 3, character: 30 }
      assert.strictEqual(
        yield* output("lsp", { operation: "hover", filePath: "math.ts", line: 1, character: 17 }),
        "```typescript\nfunction add(a: number, b: number): number\n```"
      )
      assert.strictEqual(yield* output("lsp", { operation: "goToDefinition", ...at }), "math.ts:1:17")
      assert.strictEqual(yield* output("lsp", { operation: "findReferences", ...at }), "main.ts:1:10\nmain.ts:3:30\nmath.ts:1:17")
      assert.strictEqual(yield* output("lsp", { operation: "documentSymbol", filePath: "math.ts", line: 1, character: 1 }), "Function add (line 1)")
      assert.strictEqual(
        yield* output("lsp", { operation: "hover", filePath: "tsconfig.json", line: 1, character: 1 }).pipe(Effect.flip, Effect.map((e) => e.message)),
        "no language server handles .json files (servers: typescript (.ts .mts .cts .tsx .js .mjs .cjs .jsx))"
      )
    })), 120_000)
})
