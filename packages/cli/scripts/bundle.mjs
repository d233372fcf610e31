/**
 * Bundles the `agent-tools` executable into dist/bundle/: bin.cjs, one CommonJS file for every
 * command, which bin/run-bundle.js runs as a script with a V8 code cache; the dependencies only
 * some commands use in files of their own (vendor/, the MCP SDK's validator), loaded on first use;
 * and the bash analysis worker's entry at the path `AnalysisWorker` computes
 * (internal/analysisWorker.js beside bin.cjs, an ES module). Loading ~600 small modules cost more
 * than running the command; one file starts in a fraction.
 *
 * Bundled from the TypeScript sources (the workspace's `agent-tools-source` condition), so it does
 * not depend on the order of the tsc build. web-tree-sitter stays a package: it locates its wasm
 * files beside its own module (the cli package depends on it and on tree-sitter-bash for that).
 * So do the terminal packages: node-pty loads its native binary from its platform's package
 * beside it, and both are imported only when the first terminal opens (the cli depends on them).
 *
 * The MCP SDK's JSON Schema validator (ajv, with its formats) is loaded when it first validates, not
 * when the SDK's server or client is imported, and effect's CLI output module builds its grapheme
 * segmenter on first use, not at import. Every file is ASCII (scripts/ascii-output.mjs).
 */
import { build } from "esbuild"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { asciiOutput } from "../../../scripts/ascii-output.mjs"

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..")
// AGENT_TOOLS_BUNDLE_OUT=dir bundles there instead (the bundle test inspects a bundle of its own).
const outdir = process.env.AGENT_TOOLS_BUNDLE_OUT ?? join(pkg, "dist", "bundle")
const source = (workspacePackage, file) => join(pkg, "..", workspacePackage, "src", file)

/**
 * The SDK's server and client construct an `AjvJsonSchemaValidator` in their constructors, and
 * their modules import it (and with it all of ajv) at the top, though only an elicitation or a
 * tool's output schema is ever validated with it. This stand-in has the same constructor and
 * `getValidator`; the real validator, and ajv with it, is loaded and built on the first
 * `getValidator` call. It is a file of its own (AJV_FILE, CommonJS, built below), which Node's
 * `require` loads then, synchronously: bundled, ajv would sit in bin.cjs (300 KB read at every
 * start, if not run).
 */
const AJV_FILE = "ajv-validator.cjs"
const lazyAjv = {
  name: "lazy-ajv",
  setup(build) {
    build.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, async (args) => {
      // The stand-in's own `require` and the lookup below get the real module.
      if (args.pluginData === "real" || args.namespace === "lazy-ajv") return undefined
      const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "real" })
      return { path: real.path, namespace: "lazy-ajv" }
    })
    build.onLoad({ filter: /.*/, namespace: "lazy-ajv" }, (args) => {
      ajvProvider = args.path
      return {
        resolveDir: dirname(args.path),
        // The file's name is not a literal, so esbuild leaves the \`require\` to Node: the bundle's
        // own, which resolves it beside bin.cjs.
        contents: `
          let real
          const file = ${JSON.stringify(`./${AJV_FILE}`)}
          const load = () => real ??= require(file).AjvJsonSchemaValidator
          export class AjvJsonSchemaValidator {
            #ajv
            #validator
            constructor(ajv) { this.#ajv = ajv }
            getValidator(schema) {
              this.#validator ??= new (load())(this.#ajv)
              return this.#validator.getValidator(schema)
            }
          }
        `
      }
    })
  }
}
/** The SDK's ajv-provider module the stand-in replaced (set while bundling). */
let ajvProvider

rmSync(outdir, { recursive: true, force: true })
/**
 * effect's `cli/CliOutput` builds an `Intl.Segmenter` at import (ICU's grapheme rules are loaded
 * then, a few milliseconds), though only help and error text measures widths with it. Here it is
 * built by the first `segment` call. Fails the build if effect's module no longer has that line,
 * so an upgrade cannot silently drop the change.
 */
const lazySegmenter = {
  name: "lazy-segmenter",
  setup(build) {
    build.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]cli[\\/]CliOutput\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8")
      const eager = /const graphemeSegmenter = \/\*#__PURE__\*\/new Intl\.Segmenter\(undefined, \{\s*granularity: "grapheme"\s*\}\);/
      if (!eager.test(text)) throw new Error(`${args.path}: the grapheme segmenter line changed; update or drop the lazy-segmenter plugin`)
      return {
        contents: text.replace(
          eager,
          "let segmenter;\nconst graphemeSegmenter = { segment: (text) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: \"grapheme\" })).segment(text) };"
        ),
        loader: "js"
      }
    })
  }
}

/**
 * Module code declaring `name` as a stand-in for the built-in module `id`, which Node's `require`
 * loads on the stand-in's first property read. Each built-in module gets its own `lazy_*` helper
 * (`name` is part of it), so that two in one file do not clash.
 */
const lazyBuiltin = (name, id) =>
  `import { createRequire as lazy_require_${name} } from "node:module";\n` +
  `let lazy_${name};\n` +
  `const ${name} = new Proxy({}, { get: (_, key) => (lazy_${name} ??= lazy_require_${name}(import.meta.url)(${JSON.stringify(id)}))[key] });`

/**
 * @effect/platform-node's HTTP client requires node:http and node:https when its module loads
 * (https brings tls: a few milliseconds of every start), though only a request uses them. Here each
 * is required on the first property read (`http.request`, `new https.Agent`). Fails the build if
 * the module no longer reads as expected, so an upgrade cannot silently drop the change.
 */
const lazyNodeHttp = {
  name: "lazy-node-http",
  setup(build) {
    build.onLoad({ filter: /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]internal[\\/]http\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8")
      const exports = [...text.matchAll(/^export const (\w+) = \/\*#__PURE__\*\/require\("(node:\w+)"\);$/gm)]
      if (exports.length !== 2 || !text.includes("createRequire")) {
        throw new Error(`${args.path}: the module changed; update or drop the lazy-node-http plugin`)
      }
      return {
        contents: exports.map(([, name, id]) => `${lazyBuiltin(name, id)}\nexport { ${name} };`).join("\n"),
        loader: "js"
      }
    })
  }
}

/**
 * @effect/platform-node's process spawner imports node:child_process when its module loads (with
 * net, dgram and streams: about 4 ms of every start), though only a command's spawn uses it. Here
 * it is required on the first property read (`spawn`, `execFile`). Fails the build if the import
 * line changed, so an upgrade cannot silently drop the change.
 */
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(build) {
    build.onLoad({ filter: /[\\/]@effect[\\/]platform-node-shared[\\/]dist[\\/]NodeChildProcessSpawner\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8")
      const line = 'import * as NodeChildProcess from "node:child_process";'
      if (text.split(line).length !== 2 || /\bNodeChildProcess\b(?!\.(spawn|execFile)\()/.test(text.replace(line, ""))) {
        throw new Error(`${args.path}: the module changed; update or drop the lazy-child-process plugin`)
      }
      return {
        contents: text.replace(line, lazyBuiltin("NodeChildProcess", "node:child_process")),
        loader: "js"
      }
    })
  }
}

/**
 * Dependencies only some commands use (web pages, S3, undici's HTTP client), bundled into CommonJS
 * files of their own in vendor/ (file name → the packages in it) that Node's `require` loads on
 * first use. Inside, they made bin.cjs 4.7 MB instead of 2.4, read, decoded and hashed at every
 * start though their code never runs. Packages that use each other share a file: one copy of each.
 */
const VENDORED = {
  undici: ["undici"],
  turndown: ["turndown"],
  "html-to-text": ["html-to-text"],
  "aws-sdk": ["@aws-sdk/client-s3", "@aws-sdk/lib-storage"]
}
const vendorFileOf = new Map(Object.entries(VENDORED).flatMap(([file, names]) => names.map((name) => [name, file])))
/** Each vendored package's module as the bundle resolved it (set while bundling). */
const vendoredEntries = new Map()
const vendored = {
  name: "vendored",
  setup(build) {
    const names = [...vendorFileOf.keys()].map((name) => name.replace(/[/.-]/g, "\\$&")).join("|")
    build.onResolve({ filter: new RegExp(`^(${names})$`) }, async (args) => {
      if (args.pluginData === "real") return undefined
      const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "real" })
      if (real.errors.length > 0) return { errors: real.errors }
      vendoredEntries.set(args.path, real.path)
      return { path: args.path, namespace: "vendored" }
    })
    // As for the ajv stand-in: the file's name is not a literal, so the `require` stays Node's.
    build.onLoad({ filter: /.*/, namespace: "vendored" }, (args) => ({
      contents: `const file = ${JSON.stringify(`./vendor/${vendorFileOf.get(args.path)}.cjs`)}\nmodule.exports = require(file)`,
      loader: "js"
    }))
  }
}
/** A vendor file's module: its one package's exports as they are, or those of all its packages. */
const vendorEntry = (names) => {
  const paths = names.map((name) => JSON.stringify(vendoredEntries.get(name)))
  return paths.length === 1
    ? `module.exports = require(${paths[0]})`
    : `module.exports = Object.assign({}, ${paths.map((path) => `require(${path})`).join(", ")})`
}

const common = {
  bundle: true,
  platform: "node",
  target: "node22",
  sourcemap: "linked",
  // The maps name each file and line; the sources themselves are in the packages (and 10 MB).
  sourcesContent: false,
  legalComments: "none",
  logLevel: "warning",
  metafile: true
}

// The executable: one CommonJS file, which bin/run-bundle.js runs as a script with a code cache.
const result = await build({
  ...common,
  entryPoints: [{ in: source("cli", "bin.ts"), out: "bin" }],
  outdir,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  conditions: ["agent-tools-source"],
  external: ["web-tree-sitter", "@lydell/node-pty", "@xterm/headless"],
  plugins: [lazyAjv, lazySegmenter, lazyNodeHttp, lazyChildProcess, vendored],
  // `import.meta.url` (createRequire, the worker's file) is the bundle's own URL.
  define: { "import.meta.url": "__agentToolsUrl" },
  banner: { js: "var __agentToolsUrl = require(\"node:url\").pathToFileURL(__filename).href;" }
})
if (ajvProvider === undefined) throw new Error("the MCP SDK's ajv-provider module was not found; update or drop the lazy-ajv plugin")
for (const name of vendorFileOf.keys()) {
  if (!vendoredEntries.has(name)) throw new Error(`${name} is no longer imported; drop it from VENDORED`)
}
const others = await Promise.all([
  // The bash analysis worker, an ES module at the path `AnalysisWorker` computes beside bin.cjs.
  build({
    ...common,
    entryPoints: [{ in: source("node", "internal/analysisWorker.ts"), out: "internal/analysisWorker" }],
    outdir,
    format: "esm",
    conditions: ["agent-tools-source"],
    external: ["web-tree-sitter"],
    // Bundled CommonJS dependencies call `require` for Node's built-ins.
    banner: { js: "import { createRequire as __agentToolsRequire } from \"node:module\"; const require = __agentToolsRequire(import.meta.url);" }
  }),
  // The real validator with ajv and its formats, for the stand-in's `require`.
  build({ ...common, entryPoints: [ajvProvider], outfile: join(outdir, AJV_FILE), format: "cjs" }),
  ...Object.entries(VENDORED).map(([file, names]) =>
    build({
      ...common,
      stdin: { contents: vendorEntry(names), resolveDir: pkg, sourcefile: `vendor/${file}.cjs`, loader: "js" },
      outfile: join(outdir, "vendor", `${file}.cjs`),
      format: "cjs"
    })
  )
])
await asciiOutput([result, ...others].flatMap((built) => Object.keys(built.metafile.outputs).map((file) => resolve(file))))
// AGENT_TOOLS_BUNDLE_META=file writes esbuild's metafile of bin.cjs there (what went into it).
if (process.env.AGENT_TOOLS_BUNDLE_META !== undefined) writeFileSync(process.env.AGENT_TOOLS_BUNDLE_META, JSON.stringify(result.metafile))
