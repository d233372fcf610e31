/**
 * Bundles each library package's entry points into one file beside tsc's output
 * (`dist/index.bundle.js`, and `dist/client.bundle.js` for `@agent-tools/mcp/client`), which the
 * packages' `exports` name. Importing `@agent-tools/runtime` from tsc's output loaded about 180
 * small modules of these packages; resolving and compiling them took more time than running them.
 *
 * Run after `tsc -b` (`pnpm run build` does both). Every package import stays an import (effect,
 * zod, the other @agent-tools packages, optional peers), so one copy of each is shared with the
 * user's code. tsc's per-module output stays in dist: the declarations sit beside it, and the bash
 * analysis worker starts from dist/internal/analysisWorker.js, found beside the bundle.
 */
import { build } from "esbuild"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const packages = join(dirname(fileURLToPath(import.meta.url)), "..", "packages")
// The CLI bundles itself with everything it needs (packages/cli/scripts/bundle.mjs); the test kit
// is not on anyone's start-up path.
const LIBRARIES = ["core", "tools", "node", "runtime", "mcp", "lsp", "spill-s3", "ai-sdk"]

await Promise.all(LIBRARIES.map(async (name) => {
  const dir = join(packages, name)
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  // Each export with a TypeScript source and a bundle as its default: `./src/x.ts` → `dist/x.bundle.js`.
  const entryPoints = Object.values(manifest.exports)
    .filter((target) => typeof target === "object" && target.default?.endsWith(".bundle.js"))
    .map((target) => ({ in: join(dir, target["agent-tools-source"]), out: target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, "") }))
  if (entryPoints.length === 0) throw new Error(`${manifest.name}: no export names a .bundle.js file`)
  await build({
    entryPoints,
    outdir: join(dir, "dist"),
    bundle: true,
    // A package with two entry points shares their common code in a chunk, not two copies.
    splitting: entryPoints.length > 1,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    platform: "node",
    target: "node22",
    packages: "external",
    // Function and class names as in the sources (stack traces, error names).
    keepNames: true,
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning"
  })
}))
