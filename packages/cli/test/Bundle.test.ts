/**
 * What the bundled executable loads before any command runs: the chunks `bin.js` imports
 * statically (dynamic imports load only when a command needs them). Heavy dependencies that only
 * some commands use must stay out of them, or every `agent-tools call` pays for loading them.
 * Bundles into a temp directory and reads esbuild's metafile.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"

interface Metafile {
  readonly inputs: Record<string, { readonly imports: ReadonlyArray<{ readonly path: string; readonly kind: string }> }>
  readonly outputs: Record<string, {
    readonly imports: ReadonlyArray<{ readonly path: string; readonly kind: string; readonly external?: boolean }>
    readonly inputs: Record<string, { readonly bytesInOutput: number }>
    readonly entryPoint?: string
  }>
}

/** Packages that only some commands or features use: loaded with `import()` when needed. */
const LAZY: ReadonlyArray<readonly [string, RegExp]> = [
  ["the MCP SDK", /@modelcontextprotocol/],
  ["the AWS SDK", /@aws-sdk|@smithy/],
  ["tree-sitter", /tree-sitter/],
  ["turndown", /turndown|domino/],
  ["html-to-text", /html-to-text|htmlparser2/],
  ["undici", /undici/],
  ["a language server client", /vscode-jsonrpc|vscode-languageserver/],
  ["ajv", /[\\/]ajv[\\/]/],
  ["the terminal packages", /node-pty|@xterm/],
  // What a namespace import of a package index brings along: everything it re-exports. Sources
  // import `* as z from "zod"` and effect by module (`effect/Effect`), so a bundle keeps what is used.
  ["zod's locales (`import { z } from \"zod\"` keeps them all)", /zod[\\/]v4[\\/]locales[\\/](?!en\.js)/],
  ["effect's index (import effect by module: `effect/Effect`, …)", /effect[\\/]dist[\\/]index\.js$/]
]

const dir = mkdtempSync(join(tmpdir(), "agent-tools-startup-bundle-test-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let metafile: Metafile | undefined

/** Bundles once; the inputs of `bin.js` and of every chunk it imports statically. */
const startupInputs = (() => {
  let inputs: ReadonlyArray<string> | undefined
  return (): ReadonlyArray<string> => {
    if (inputs !== undefined) return inputs
    const meta = join(dir, "meta.json")
    const script = fileURLToPath(new URL("../scripts/bundle.mjs", import.meta.url))
    execFileSync(process.execPath, [script], {
      env: { ...process.env, AGENT_TOOLS_BUNDLE_OUT: join(dir, "out"), AGENT_TOOLS_BUNDLE_META: meta },
      stdio: ["ignore", "ignore", "inherit"]
    })
    metafile = JSON.parse(readFileSync(meta, "utf8")) as Metafile
    const outputs = metafile.outputs
    const bin = Object.keys(outputs).find((out) => out.endsWith("/bin.js"))!
    const seen = new Set<string>()
    const visit = (out: string) => {
      if (seen.has(out)) return
      seen.add(out)
      for (const i of outputs[out]?.imports ?? []) {
        if (i.kind === "import-statement" && i.external !== true) visit(i.path)
      }
    }
    visit(bin)
    inputs = [...seen].flatMap((out) => Object.keys(outputs[out]!.inputs))
    return inputs
  }
})()

describe("the bundled executable at start-up", () => {
  it("loads the tools, and none of the dependencies only some commands need", () => {
    const inputs = startupInputs()
    assert.isTrue(inputs.some((i) => i.includes("packages/tools/src/read/tool.ts")), "read is in the start-up chunks")
    for (const [name, pattern] of LAZY) {
      assert.deepStrictEqual(inputs.filter((i) => pattern.test(i)), [], `${name} is loaded at start-up`)
    }
  }, 120_000)

  it("loads the MCP SDK's validator (all of ajv) from a file of its own, only when something is first validated", async () => {
    startupInputs()
    const inputs = Object.entries(metafile!.inputs)
    const server = inputs.find(([path]) => /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/.test(path))
    assert.isDefined(server, "the SDK's server is in the bundle")
    const validator = server![1].imports.find((i) => /ajv-provider\.js$/.test(i.path))
    assert.isDefined(validator)
    assert.isTrue(validator!.path.startsWith("lazy-ajv:"), `the server imports ${validator!.path}, not the stand-in`)
    // No chunk of the ES module bundle holds ajv: a chunk the MCP command imports would be read
    // and compiled at every start even if its code ran later.
    for (const [out, { inputs }] of Object.entries(metafile!.outputs)) {
      assert.deepStrictEqual(Object.keys(inputs).filter((i) => /[\\/]ajv[\\/]/.test(i)), [], `${out} holds ajv`)
    }
    // The stand-in in the bundle loads the real validator on its first use, and it validates formats.
    const outDir = join(dir, "out")
    const chunk = readdirSync(outDir).find((file) =>
      file.endsWith(".js") && readFileSync(join(outDir, file), "utf8").includes("ajv-validator.cjs")
    )
    assert.isDefined(chunk, "a chunk holds the stand-in")
    const module = await import(pathToFileURL(join(outDir, chunk!)).href) as Record<string, unknown>
    const Validator = Object.values(module).find((value) =>
      typeof value === "function" && value.name === "AjvJsonSchemaValidator"
    ) as (new() => { getValidator: (schema: unknown) => (input: unknown) => { readonly valid: boolean } }) | undefined
    assert.isDefined(Validator, "the chunk exports the stand-in")
    const check = new Validator!().getValidator({
      type: "object",
      properties: { email: { type: "string", format: "email" } },
      required: ["email"]
    })
    assert.isTrue(check({ email: "someone@example.com" }).valid)
    assert.isFalse(check({ email: "not an address" }).valid)
  }, 120_000)

  it("loads node:https (and tls with it) only when a request needs it, not to call read", () => {
    startupInputs()
    const workspace = mkdtempSync(join(tmpdir(), "agent-tools-startup-bundle-ws-"))
    try {
      writeFileSync(join(workspace, "x"), "hello\n")
      const report = join(workspace, "builtins.mjs")
      writeFileSync(
        report,
        "process.on('exit', () => process.stderr.write('BUILTINS ' + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13))) + '\\n'))\n"
      )
      const run = spawnSync(process.execPath, ["--import", pathToFileURL(report).href, join(dir, "out", "bin.js"), "call", "read", "{\"filePath\":\"x\"}"], {
        cwd: workspace,
        encoding: "utf8",
        env: { ...process.env, HOME: workspace, XDG_CONFIG_HOME: join(workspace, ".config"), XDG_DATA_HOME: join(workspace, ".data") }
      })
      assert.strictEqual(run.status, 0, run.stderr)
      assert.include(run.stdout, "hello")
      const builtins = JSON.parse(/^BUILTINS (.*)$/m.exec(run.stderr)![1]!) as Array<string>
      assert.includeMembers(builtins, ["fs"], "the report lists the loaded built-in modules")
      assert.notInclude(builtins, "https")
      assert.notInclude(builtins, "tls")
    } finally {
      rmSync(workspace, { recursive: true, force: true })
    }
  }, 120_000)

  it("builds no Intl.Segmenter while loading (effect's CLI output builds its own on first use)", () => {
    startupInputs()
    const out = join(dir, "out")
    const chunks = readdirSync(out).filter((file) => file.endsWith(".js"))
    assert.isTrue(chunks.some((file) => readFileSync(join(out, file), "utf8").includes("Intl.Segmenter")))
    for (const file of chunks) {
      // A top-level statement of a chunk starts its line.
      assert.notMatch(readFileSync(join(out, file), "utf8"), /^(var|let|const) \w+ = (\/\*.*?\*\/ )?new Intl\.Segmenter\(/m, file)
    }
  }, 120_000)
})
