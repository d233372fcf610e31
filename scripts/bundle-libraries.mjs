/**
 * Bundles each library package's entry points into one file beside tsc's output
 * (`dist/index.bundle.js`, and `dist/client.bundle.js` for `@agent-tools/mcp/client`), which the
 * packages' `exports` name. Importing `@agent-tools/runtime` from tsc's output loaded about 180
 * small modules of these packages; resolving and compiling them took more time than running them.
 *
 * Run after `tsc -b` (`pnpm run build` does both). Package imports stay imports (effect, the
 * other @agent-tools packages, optional peers), so one copy of each is shared with the user's code,
 * with two exceptions, packages whose many small modules cost more to load than their code to run:
 * - zod (~95 modules, most of them its error messages' translations): bundled once, in core's
 *   `@agent-tools/core/internal/zod`, which every other package's bundle imports instead of "zod".
 *   zod keeps its settings and registry on `globalThis`, so this copy and a user's agree, and a
 *   schema of either copy works with the other's functions. Only the English messages are kept
 *   (the ones zod uses unless told otherwise): see `englishOnly`.
 * - diff (~20 modules, plain functions): bundled into the tools package, its only user.
 * tsc's per-module output stays in dist: the declarations sit beside it, and the bash analysis
 * worker starts from dist/internal/analysisWorker.js, found beside the bundle.
 */
import { build } from "esbuild"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { asciiOutput } from "./ascii-output.mjs"

const packages = join(dirname(fileURLToPath(import.meta.url)), "..", "packages")
// The CLI bundles itself with everything it needs (packages/cli/scripts/bundle.mjs); the test kit
// is not on anyone's start-up path.
const LIBRARIES = ["core", "tools", "node", "runtime", "mcp", "lsp", "spill-s3", "ai-sdk"]
/** Bundled into the packages that import them (see above), not imported at run time. */
const INLINED = new Set(["diff"])
const SHARED_ZOD = "@agent-tools/core/internal/zod"

/** The package a bare import names: `zod/v4/core` → `zod`, `@effect/platform-node/X` → `@effect/platform-node`. */
const packageOf = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

/**
 * Every package import stays external, except those bundled on purpose: zod in core (the shared
 * copy), elsewhere an import of core's copy; the INLINED packages.
 */
const packageImports = (name) => ({
  name: "package-imports",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const pkg = packageOf(args.path)
      if (pkg === "zod") {
        if (args.path !== "zod") throw new Error(`${args.importer}: import zod as "zod" (the shared copy stands in for that path only)`)
        return name === "core" ? undefined : { path: SHARED_ZOD, external: true }
      }
      return INLINED.has(pkg) ? undefined : { path: args.path, external: true }
    })
  }
})

/**
 * zod's locales index imports the error messages of every language it knows (about 60 modules),
 * though zod uses English unless `z.config` is given another locale. The bundled copy keeps
 * English only (the packages never change the locale); a user's own zod keeps them all. Fails the
 * build if zod moves the file, so an upgrade cannot silently bundle them again.
 */
const englishOnly = {
  name: "zod-english-only",
  setup(build) {
    let replaced = false
    build.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, async (args) => {
      if (args.pluginData === "real") return undefined
      const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "real" })
      if (!/[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/.test(real.path)) return undefined
      replaced = true
      return { path: real.path, namespace: "zod-english-only" }
    })
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => {
      const english = join(dirname(args.path), "en.js")
      if (!existsSync(english)) throw new Error(`${english} is missing; update or drop the zod-english-only plugin`)
      return { contents: `export { default as en } from ${JSON.stringify(english)}`, resolveDir: dirname(args.path) }
    })
    build.onEnd((result) => {
      if (result.errors.length === 0 && !replaced) {
        throw new Error("zod's locales index was not found; update or drop the zod-english-only plugin")
      }
    })
  }
}

await Promise.all(LIBRARIES.map(async (name) => {
  const dir = join(packages, name)
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  // Each export with a TypeScript source and a bundle as its default: `./src/x.ts` → `dist/x.bundle.js`.
  const entryPoints = Object.values(manifest.exports)
    .filter((target) => typeof target === "object" && target.default?.endsWith(".bundle.js"))
    .map((target) => ({ in: join(dir, target["agent-tools-source"]), out: target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, "") }))
  if (entryPoints.length === 0) throw new Error(`${manifest.name}: no export names a .bundle.js file`)
  // Chunks are named by their content's hash: those of an earlier build would stay and be packed.
  rmSync(join(dir, "dist", "chunks"), { recursive: true, force: true })
  const result = await build({
    entryPoints,
    outdir: join(dir, "dist"),
    bundle: true,
    // A package with two entry points shares their common code in a chunk, not two copies.
    splitting: entryPoints.length > 1,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    platform: "node",
    target: "node22",
    plugins: name === "core" ? [packageImports(name), englishOnly] : [packageImports(name)],
    // Function and class names as in the sources (stack traces, error names).
    keepNames: true,
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    metafile: true
  })
  await asciiOutput(Object.keys(result.metafile.outputs).map((file) => resolve(file)))
}))
