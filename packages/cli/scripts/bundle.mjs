/**
 * Bundles the `agent-tools` executable into dist/bundle/: one file for every command but `mcp`,
 * whose MCP SDK is split into a chunk loaded only by that command, and the bash analysis worker's
 * entry at the path `AnalysisWorker` computes (internal/analysisWorker.js beside its chunk).
 * Loading ~600 small modules cost more than running the command; one file starts in a fraction.
 *
 * Bundled from the TypeScript sources (the workspace's `agent-tools-source` condition), so it does
 * not depend on the order of the tsc build. web-tree-sitter stays a package: it locates its wasm
 * files beside its own module (the cli package depends on it and on tree-sitter-bash for that).
 * So do the terminal packages: node-pty loads its native binary from its platform's package
 * beside it, and both are imported only when the first terminal opens (the cli depends on them).
 */
import { build } from "esbuild"
import { rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..")
// AGENT_TOOLS_BUNDLE_OUT=dir bundles there instead (the bundle test inspects a bundle of its own).
const outdir = process.env.AGENT_TOOLS_BUNDLE_OUT ?? join(pkg, "dist", "bundle")
const source = (workspacePackage, file) => join(pkg, "..", workspacePackage, "src", file)

rmSync(outdir, { recursive: true, force: true })
const result = await build({
  entryPoints: [
    { in: source("cli", "bin.ts"), out: "bin" },
    { in: source("node", "internal/analysisWorker.ts"), out: "internal/analysisWorker" }
  ],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  conditions: ["agent-tools-source"],
  external: ["web-tree-sitter", "@lydell/node-pty", "@xterm/headless"],
  // Bundled CommonJS dependencies call `require` for Node's built-ins.
  banner: { js: "import { createRequire as __agentToolsRequire } from \"node:module\"; const require = __agentToolsRequire(import.meta.url);" },
  sourcemap: "linked",
  // The maps name each file and line; the sources themselves are in the packages (and 10 MB).
  sourcesContent: false,
  legalComments: "none",
  logLevel: "warning",
  metafile: process.env.AGENT_TOOLS_BUNDLE_META !== undefined
})
// AGENT_TOOLS_BUNDLE_META=file writes esbuild's metafile there (what went into which chunk).
if (result.metafile !== undefined) writeFileSync(process.env.AGENT_TOOLS_BUNDLE_META, JSON.stringify(result.metafile))
