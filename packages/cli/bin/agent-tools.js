#!/usr/bin/env node
// Launches the CLI. Installed, `#bin` is the bundled JavaScript (dist/bundle/bin.cjs, run by
// run-bundle.js with a code cache); inside this workspace, node runs with
// `--conditions=agent-tools-source`, which maps `#bin` to the TypeScript entry (src/bin.ts).
import module from "node:module"
import { homedir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const [major] = process.versions.node.split(".").map(Number)
if (major < 22) {
  process.stderr.write(`agent-tools needs Node >= 22; this is Node ${process.versions.node}.\n`)
  process.exit(2)
}
const args = process.argv.slice(2)
if (args.length === 1 && args[0] === "--version") {
  // Answered before anything heavy is imported: the same line the full command line prints.
  const { VERSION } = await import("#version")
  process.stdout.write(`agent-tools v${VERSION}\n`)
} else {
  // V8's compiled code is kept on disk, so later starts skip most compiling: in the user's cache
  // directory, which outlives the OS temp dir and is not shared with other users. NODE_COMPILE_CACHE
  // (set: Node has already enabled it there) and NODE_DISABLE_COMPILE_CACHE still decide; Node before
  // 22.1 has no compile cache. Node's cache serves the ES modules (this file, web-tree-sitter, the
  // bash analysis worker); the bundle's own code cache sits in a directory of its own inside it.
  const disabled = process.env.NODE_DISABLE_COMPILE_CACHE !== undefined
  const cache = process.env.NODE_COMPILE_CACHE || join(cacheDirectory(), "compile-cache")
  if (process.env.NODE_COMPILE_CACHE === undefined && !disabled) module.enableCompileCache?.(cache)
  const entry = import.meta.resolve("#bin")
  if (entry.endsWith(".cjs")) {
    const { runBundle } = await import("./run-bundle.js")
    runBundle(fileURLToPath(entry), disabled ? undefined : join(cache, "agent-tools-bundle"), commandOf(args))
  } else {
    await import(entry)
  }
}

/** The command a run starts with (`call`, `mcp`, …), or "": what the runs in a code cache were. */
function commandOf(args) {
  return /^[a-z][a-z-]{0,31}$/.test(args[0] ?? "") ? args[0] : ""
}

/** `$XDG_CACHE_HOME/agent-tools` (default `~/.cache/agent-tools`); `~/Library/Caches/agent-tools` on macOS, `%LOCALAPPDATA%\\agent-tools\\cache` on Windows. */
function cacheDirectory() {
  const { platform, env } = process
  if (platform === "win32") return join(env.LOCALAPPDATA || join(homedir(), "AppData", "Local"), "agent-tools", "cache")
  if (platform === "darwin") return join(homedir(), "Library", "Caches", "agent-tools")
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
  return join(env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : join(homedir(), ".cache"), "agent-tools")
}
