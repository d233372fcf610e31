/**
 * What each command loads at start: `--version` nothing but the version, the MCP SDK only for
 * `mcp`, the tree-sitter parser only when a bash command is analysed. A new process per case, its
 * resolved modules recorded by a preloaded hook.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect, FileSystem, Path } from "effect"
import { fileURLToPath } from "node:url"
import { spawnCli, workspace } from "./harness.ts"

const HOOK = fileURLToPath(new URL("./fixtures/record-imports.mjs", import.meta.url))

/** Runs the CLI with `args` in a temp workspace; the URLs of the modules it resolved. */
const importsOf = (args: ReadonlyArray<string>, options: { readonly stdin?: string } = {}) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const ws = yield* workspace({ files: { "x.txt": "hello\n" } })
    const file = path.join(ws.spillDir, "imports.txt")
    const run = yield* spawnCli(args, {
      ...options,
      cwd: ws.dir,
      env: { ...process.env, NODE_OPTIONS: `--import=${HOOK}`, RECORD_IMPORTS_FILE: file } as Record<string, string>
    })
    assert.strictEqual(run.code, 0, run.stderr)
    return { run, urls: (yield* fs.readFileString(file)).split("\n") }
  })

const loads = (urls: ReadonlyArray<string>, fragment: string) => urls.some((url) => url.includes(fragment))

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, any>) =>
  it.live(name, () => body().pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>, 60_000)

describe("start-up imports", () => {
  live("--version loads only the launcher and the version module", () =>
    Effect.gen(function*() {
      const { run, urls } = yield* importsOf(["--version"])
      assert.match(run.stdout, /^agent-tools v\d+\.\d+\.\d+\n$/)
      assert.isTrue(loads(urls, "/packages/cli/src/Version.ts"), urls.join("\n"))
      const others = urls.filter((url) => !url.startsWith("node:") && !url.endsWith("/bin/agent-tools.js") && !url.endsWith("/Version.ts"))
      assert.deepStrictEqual(others, [])
    }))

  live("call read loads neither the MCP SDK nor tree-sitter", () =>
    Effect.gen(function*() {
      const { run, urls } = yield* importsOf(["call", "read", `{"filePath":"x.txt"}`])
      assert.include(run.stdout, "hello")
      assert.isTrue(loads(urls, "/packages/tools/src/"), "the tools are loaded")
      assert.isFalse(loads(urls, "@modelcontextprotocol"), "the MCP SDK is loaded")
      assert.isFalse(loads(urls, "web-tree-sitter"), "tree-sitter is loaded")
    }))

  live("a bash call loads tree-sitter; mcp loads the MCP SDK", () =>
    Effect.gen(function*() {
      const bash = yield* importsOf(["call", "bash", `{"command":"echo hi","description":"echo"}`, "--yes"])
      assert.include(bash.run.stdout, "hi")
      assert.isTrue(loads(bash.urls, "web-tree-sitter"))
      assert.isFalse(loads(bash.urls, "@modelcontextprotocol"))
      // stdin closed at once: the server starts, then ends with the session.
      const mcp = yield* importsOf(["mcp"])
      assert.isTrue(loads(mcp.urls, "@modelcontextprotocol/sdk"))
    }))
})
