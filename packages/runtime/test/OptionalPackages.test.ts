/**
 * The MCP client, the S3 spill store and the language servers come from optional packages: a
 * config that asks for one whose package is not installed fails with the package to add, and a
 * config that asks for none never imports them. A failing importer stands in for a missing package.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem, Layer } from "effect"
import { NodeServices } from "@effect/platform-node"
import { type AgentConfig, NodeAgentTools, OptionalPackages } from "@agent-tools/runtime"

/** What Node's `import()` throws for a package that is not installed. */
const notInstalled = (name: string) => () =>
  Promise.reject(Object.assign(new Error(`Cannot find package '${name}' imported from /app/index.js`), { code: "ERR_MODULE_NOT_FOUND" }))

/** Importers that fail as if none of the optional packages were installed, counting their calls. */
const missing = () => {
  const calls: Array<string> = []
  const importers: OptionalPackages.Importers = {
    mcpClient: () => (calls.push("mcp"), notInstalled("@agent-tools/mcp")()),
    spillS3: () => (calls.push("spill-s3"), notInstalled("@agent-tools/spill-s3")()),
    lsp: () => (calls.push("lsp"), notInstalled("@agent-tools/lsp")())
  }
  return { calls, importers }
}

/** Builds the layer for `config` in a fresh temp workspace with the given importers; its failure, if any. */
const build = (config: AgentConfig.Input, importers: Partial<OptionalPackages.Importers>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-optional-" }))
    const configHome = yield* fs.makeTempDirectoryScoped({ prefix: "agent-optional-config-" })
    return yield* Layer.build(
      NodeAgentTools.layerWithoutPlatform({
        cwd: dir,
        config: config.spill === undefined ? { ...config, spill: { dir: `${dir}/.spill` } } : config,
        platform: "linux",
        analysisWorker: false,
        optionalPackages: importers
      })
    ).pipe(
      Effect.flip,
      Effect.option,
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/test", XDG_CONFIG_HOME: configHome } })))
    )
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

describe("optional packages", () => {
  const cases: ReadonlyArray<{ readonly key: string; readonly pkg: string; readonly config: AgentConfig.Input }> = [
    { key: "mcp", pkg: "@agent-tools/mcp", config: { mcp: { docs: { type: "remote", url: "http://127.0.0.1:1/mcp" } } } },
    { key: "spill.s3", pkg: "@agent-tools/spill-s3", config: { spill: { s3: { bucket: "spills" } } } },
    { key: "lsp", pkg: "@agent-tools/lsp", config: { lsp: true } }
  ]
  for (const { config, key, pkg } of cases) {
    it.live(`the config's ${key} without ${pkg} installed fails naming the package to add`, () =>
      Effect.gen(function*() {
        const { importers } = missing()
        const failure = yield* build(config, importers)
        assert.isTrue(failure._tag === "Some", "the layer failed")
        const error = failure._tag === "Some" ? failure.value : undefined
        assert.instanceOf(error, OptionalPackages.MissingPackageError)
        const missingPackage = error as OptionalPackages.MissingPackageError
        assert.strictEqual(missingPackage.package, pkg)
        assert.strictEqual(missingPackage.key, key)
        assert.strictEqual(missingPackage.reason, "not installed")
        assert.include(missingPackage.message, `npm install ${pkg}`)
        assert.include(missingPackage.message, `\`${key}\``)
      }))
  }

  it.live("a config that asks for none of them builds without importing any", () =>
    Effect.gen(function*() {
      const { calls, importers } = missing()
      const failure = yield* build({ permission: { "*": "allow" } }, importers)
      assert.strictEqual(failure._tag, "None")
      assert.deepStrictEqual(calls, [])
    }))

  it.live("a package that is installed but fails to load is named with its own error", () =>
    Effect.gen(function*() {
      const failure = yield* build({ lsp: true }, { lsp: () => Promise.reject(new Error("SyntaxError: Unexpected token\n  at x.js:1")) })
      assert.isTrue(failure._tag === "Some")
      const error = (failure as { readonly value: OptionalPackages.MissingPackageError }).value
      assert.strictEqual(error.reason, "SyntaxError: Unexpected token")
    }))
})
