/**
 * What the bundled executable loads before any command runs: bin.cjs, read, decoded and run at
 * every start. Heavy dependencies that only some commands use must be files of their own, loaded
 * on first use, or code in bin.cjs that runs only when a command first imports it; otherwise every
 * `agent-tools call` pays for them. Bundles into a temp directory and reads esbuild's metafile,
 * then runs the bundle with bin/run-bundle.js as the executable does.
 */
import { NodeServices } from "@effect/platform-node"
import { WorkspaceTrust } from "@agent-tools/runtime"
import { Effect } from "effect"
import { execFile, execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { Worker } from "node:worker_threads"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"

interface Metafile {
  readonly inputs: Record<string, { readonly imports: ReadonlyArray<{ readonly path: string; readonly kind: string }> }>
  readonly outputs: Record<string, { readonly inputs: Record<string, { readonly bytesInOutput: number }> }>
}

/** The modules with code in bin.cjs (esbuild drops what nothing uses); the stand-ins that require a vendor/ file excepted. */
const codeIn = (metafile: Metafile): Array<string> => {
  const bin = Object.entries(metafile.outputs).find(([file]) => file.endsWith("/bin.cjs"))![1]
  return Object.entries(bin.inputs).filter(([path, { bytesInOutput }]) => bytesInOutput > 0 && !path.startsWith("vendored:")).map(([path]) => path)
}

/** Packages that only some commands or features use, in files of their own (or not bundled at all). */
const SEPARATE: ReadonlyArray<readonly [string, RegExp]> = [
  ["the AWS SDK", /@aws-sdk|@smithy/],
  ["tree-sitter", /tree-sitter/],
  ["turndown", /turndown|domino/],
  ["html-to-text", /html-to-text|htmlparser2/],
  ["undici", /undici/],
  ["ajv", /[\\/]ajv[\\/]/],
  ["a language server protocol library", /vscode-jsonrpc|vscode-languageserver/],
  ["the terminal packages", /node-pty|@xterm/],
  // What a namespace import of a package index brings along: everything it re-exports. Sources
  // import `* as z from "zod"` and effect by module (`effect/Effect`), so a bundle keeps what is used.
  // (Their index stays, emptied: it exports the languages.)
  ["zod's locales (`import { z } from \"zod\"` keeps them all)", /zod[\\/]v4[\\/]locales[\\/](?!en\.js|index\.js)/],
  ["effect's index (import effect by module: `effect/Effect`, …)", /effect[\\/]dist[\\/]index\.js$/]
]

/** Packages in bin.cjs whose code runs only when a command first imports them (`import()`). */
const ON_FIRST_IMPORT: ReadonlyArray<readonly [string, RegExp]> = [
  ["the MCP SDK", /@modelcontextprotocol/],
  ["the MCP server and client", /packages[\\/]mcp[\\/]/],
  ["the language server client", /packages[\\/]lsp[\\/]/],
  ["S3 spill storage", /packages[\\/]spill-s3[\\/]/]
]

// The cli package's node_modules beside the bundle: it finds the packages it leaves out
// (web-tree-sitter) as the installed one does.
const dir = mkdtempSync(join(tmpdir(), "agent-tools-startup-bundle-test-"))
symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(dir, "node_modules"), "dir")
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const out = join(dir, "out")
const RUN_BUNDLE = pathToFileURL(fileURLToPath(new URL("../bin/run-bundle.js", import.meta.url))).href

/** Bundles once; the metafile's inputs of bin.cjs. */
const bundled = (() => {
  let metafile: Metafile | undefined
  return (): Metafile => {
    if (metafile !== undefined) return metafile
    const meta = join(dir, "meta.json")
    const script = fileURLToPath(new URL("../scripts/bundle.mjs", import.meta.url))
    execFileSync(process.execPath, [script], {
      // From the repository's root, as the build runs it: the metafile's paths are relative to it.
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      env: { ...process.env, AGENT_TOOLS_BUNDLE_OUT: out, AGENT_TOOLS_BUNDLE_META: meta },
      stdio: ["ignore", "ignore", "inherit"]
    })
    // Run as the executable runs it, with a code cache of its own.
    writeFileSync(
      join(dir, "launch.mjs"),
      `import { runBundle } from ${JSON.stringify(RUN_BUNDLE)}\n` +
        `runBundle(${JSON.stringify(join(out, "bin.cjs"))}, ${JSON.stringify(join(dir, "code-cache"))}, process.argv[2] ?? "")\n`
    )
    metafile = JSON.parse(readFileSync(meta, "utf8")) as Metafile
    return metafile
  }
})()

/**
 * The code of each module of bin.cjs whose path matches, from its `// path` line to the next:
 * esbuild's CommonJS output runs a module's top level in place, or inside `__esm`/`__commonJS`
 * wrappers that run on the module's first import.
 */
const modulesIn = (text: string, pattern: RegExp): Array<{ readonly path: string; readonly code: ReadonlyArray<string> }> => {
  const lines = text.split("\n")
  const found: Array<{ path: string; code: Array<string> }> = []
  let current: { path: string; code: Array<string> } | undefined
  for (const line of lines) {
    const head = /^\/\/ (\S+)$/.exec(line)
    if (head !== null) {
      current = pattern.test(head[1]!) ? { path: head[1]!, code: [] } : undefined
      if (current !== undefined) found.push(current)
    } else current?.code.push(line)
  }
  return found
}

/**
 * Whether a module's top level does nothing when bin.cjs loads: declarations (`var x;`, hoisted
 * functions, its exports object) and the wrapper that runs the rest on first import.
 */
const runsOnFirstImport = (code: ReadonlyArray<string>): boolean => {
  let inBlock = false
  for (const line of code) {
    if (inBlock) {
      if (/^(}|}\);)$/.test(line)) inBlock = false
      continue
    }
    if (line === "" || /^var [\w$]+(, [\w$]+)*;$/.test(line) || /^var [\w$]+ = \{\};$/.test(line)) continue
    if (/^var [\w$]+ = __(esm|commonJS)\(\{$/.test(line)) return true
    if (/^(async )?function\*? [\w$]+\(.*\{$/.test(line) || /^__export\([\w$]+, \{$/.test(line)) {
      inBlock = true
      continue
    }
    if (/^(async )?function\*? [\w$]+\(.*\) \{\s*\}$/.test(line)) continue
    return false
  }
  // Nothing but declarations.
  return true
}

/** Runs the bundle without blocking this process (a server of the test may have to answer it). */
const runBundled = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resolve) =>
    execFile(process.execPath, [join(dir, "launch.mjs"), ...args], { cwd, encoding: "utf8" }, (error, stdout, stderr) =>
      resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
  )

describe("the bundled executable at start-up", () => {
  it("holds the tools; what only some commands need is a file of its own or runs on first import", () => {
    const inputs = codeIn(bundled())
    assert.isTrue(inputs.some((i) => i.includes("packages/tools/src/read/tool.ts")), "read is in bin.cjs")
    for (const [name, pattern] of SEPARATE) {
      assert.deepStrictEqual(inputs.filter((i) => pattern.test(i)), [], `${name} is in bin.cjs`)
    }
    const text = readFileSync(join(out, "bin.cjs"), "utf8")
    const read = modulesIn(text, /packages[\\/]tools[\\/]src[\\/]read[\\/]tool\.ts$/)
    assert.isTrue(read.some((module) => !runsOnFirstImport(module.code)), "the check tells the read tool's module, run at load")
    for (const [name, pattern] of ON_FIRST_IMPORT) {
      const modules = modulesIn(text, pattern)
      assert.isAbove(modules.length, 0, `${name} is in bin.cjs`)
      for (const module of modules) assert.isTrue(runsOnFirstImport(module.code), `${module.path} runs when bin.cjs loads`)
    }
    for (const file of ["undici", "turndown", "html-to-text", "aws-sdk"]) {
      assert.isTrue(existsSync(join(out, "vendor", `${file}.cjs`)), `vendor/${file}.cjs`)
    }
  }, 120_000)

  it("loads the MCP SDK's validator (all of ajv) from a file of its own, which validates formats", () => {
    const inputs = Object.entries(bundled().inputs)
    const server = inputs.find(([path]) => /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]index\.js$/.test(path))
    assert.isDefined(server, "the SDK's server is in the bundle")
    const validator = server![1].imports.find((i) => /ajv-provider\.js$/.test(i.path))
    assert.isDefined(validator)
    assert.isTrue(validator!.path.startsWith("lazy-ajv:"), `the server imports ${validator!.path}, not the stand-in`)
    // The file the stand-in requires, in a Node of its own (it loads all of ajv).
    const check = spawnSync(process.execPath, ["-e", validates(join(out, "ajv-validator.cjs"))], { encoding: "utf8" })
    assert.strictEqual(check.status, 0, check.stderr)
    assert.deepStrictEqual(JSON.parse(check.stdout), [true, false])
  }, 120_000)

  it("calls read without loading node:http, node:https (and tls with it), node:child_process or any file of vendor/", () => {
    bundled()
    const workspace = mkdtempSync(join(tmpdir(), "agent-tools-startup-bundle-ws-"))
    try {
      writeFileSync(join(workspace, "x"), "hello\n")
      const report = join(workspace, "report.cjs")
      writeFileSync(
        report,
        "const Module = require('node:module'); const load = Module._load; const files = []\n" +
          "Module._load = function (request, ...rest) { files.push(request); return load.call(this, request, ...rest) }\n" +
          "process.on('exit', () => process.stderr.write('BUILTINS ' + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13))) + '\\nREQUIRED ' + JSON.stringify(files) + '\\n'))\n"
      )
      const run = spawnSync(process.execPath, ["--require", report, join(dir, "launch.mjs"), "call", "read", "{\"filePath\":\"x\"}"], {
        cwd: workspace,
        encoding: "utf8",
        env: { ...process.env, HOME: workspace, XDG_CONFIG_HOME: join(workspace, ".config"), XDG_DATA_HOME: join(workspace, ".data") }
      })
      assert.strictEqual(run.status, 0, run.stderr)
      assert.include(run.stdout, "hello")
      const builtins = JSON.parse(/^BUILTINS (.*)$/m.exec(run.stderr)![1]!) as Array<string>
      assert.includeMembers(builtins, ["fs"], "the report lists the loaded built-in modules")
      for (const module of ["http", "https", "tls", "child_process"]) assert.notInclude(builtins, module)
      const required = JSON.parse(/^REQUIRED (.*)$/m.exec(run.stderr)![1]!) as Array<string>
      assert.includeMembers(required, ["node:fs"], "the report lists what was required")
      assert.deepStrictEqual(required.filter((r) => /vendor|ajv/.test(r)), [])
    } finally {
      rmSync(workspace, { recursive: true, force: true })
    }
  }, 120_000)

  it("fetches a page as markdown: turndown loads from vendor/ on first use", async () => {
    bundled()
    const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<h1>Local</h1><p>served</p>"))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), "agent-tools-startup-bundle-web-")))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
      writeFileSync(
        join(workspace, "agent-tools.json"),
        JSON.stringify({ permission: { webfetch: "allow" }, webfetch: { allowPrivateNetwork: true } })
      )
      await Effect.runPromise(WorkspaceTrust.trust(workspace).pipe(Effect.provide(NodeServices.layer)))
      const run = await runBundled(["call", "webfetch", JSON.stringify({ url, format: "markdown" }), "--cwd", workspace], workspace)
      assert.strictEqual(run.status, 0, run.stderr)
      assert.include(run.stdout, "# Local\n\nserved")
      assert.strictEqual(run.stderr, "")
    } finally {
      server.close()
      rmSync(workspace, { recursive: true, force: true })
    }
  }, 120_000)

  it("runs the bash analysis worker, an ES module of its own beside bin.cjs", async () => {
    bundled()
    const worker = new Worker(join(out, "internal", "analysisWorker.js"))
    try {
      const reply = await new Promise<{ readonly id: number; readonly analysis?: { readonly commands: ReadonlyArray<{ readonly argv: ReadonlyArray<string> }> } }>(
        (resolve, reject) => {
          worker.once("message", resolve)
          worker.once("error", reject)
          worker.postMessage({ id: 7, source: "cat notes.md | wc -l", options: { cwd: "/ws", home: "/home/u" } })
        }
      )
      assert.strictEqual(reply.id, 7)
      assert.deepStrictEqual(reply.analysis?.commands.map((c) => c.argv), [["cat", "notes.md"], ["wc", "-l"]])
    } finally {
      await worker.terminate()
    }
  }, 120_000)

  it("builds no Intl.Segmenter while loading (effect's CLI output builds its own on first use)", () => {
    bundled()
    const text = readFileSync(join(out, "bin.cjs"), "utf8")
    assert.include(text, "Intl.Segmenter")
    // A top-level statement starts its line.
    assert.notMatch(text, /^(var|let|const) \w+ = (\/\*.*?\*\/ )?new Intl\.Segmenter\(/m)
  }, 120_000)

  it("the ASCII pass escapes what comments hold and refuses a non-ASCII character in code, naming the file", async () => {
    const { asciiOutput } = await import(pathToFileURL(fileURLToPath(new URL("../../../scripts/ascii-output.mjs", import.meta.url))).href) as {
      asciiOutput: (files: ReadonlyArray<string>) => Promise<void>
    }
    const comments = join(dir, "comments.js")
    writeFileSync(comments, "/* \u2192 */ const s = \"x\"\n// \u00fc\n")
    const code = join(dir, "code.js")
    writeFileSync(code, "const r = /a\u2026/\nconsole.log(r)\n")
    await asciiOutput([comments])
    assert.strictEqual(readFileSync(comments, "utf8"), "/* \\u2192 */ const s = \"x\"\n// \\u00fc\n")
    const error = await asciiOutput([code]).then(() => undefined, (e: Error) => e)
    assert.strictEqual(
      error?.message,
      `${code}: a non-ASCII character in code, not in a comment (near "const r=/a\u2026/;console.log(r);\\n"); write it as a \\u escape in the source`
    )
    assert.strictEqual(readFileSync(code, "utf8"), "const r = /a\u2026/\nconsole.log(r)\n", "left as it was")
  })

  it("is ASCII, file by file: Node keeps it as one-byte text", () => {
    bundled()
    for (const file of ["bin.cjs", "ajv-validator.cjs", "internal/analysisWorker.js", "vendor/undici.cjs", "vendor/aws-sdk.cjs"]) {
      const bytes = readFileSync(join(out, file))
      assert.strictEqual(bytes.findIndex((b) => b > 0x7f), -1, file)
    }
  }, 120_000)
})

/** A script printing whether the validator in `file` takes an address and refuses a non-address. */
const validates = (file: string) =>
  `const { AjvJsonSchemaValidator } = require(${JSON.stringify(file)})
const check = new AjvJsonSchemaValidator().getValidator({ type: "object", properties: { email: { type: "string", format: "email" } }, required: ["email"] })
console.log(JSON.stringify([check({ email: "someone@example.com" }).valid, check({ email: "not an address" }).valid]))`
