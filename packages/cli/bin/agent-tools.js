#!/usr/bin/env node
// Launches the CLI. Installed, `#bin` is the bundled JavaScript (dist/bundle/bin.js); inside this
// workspace, node runs with `--conditions=agent-tools-source`, which maps `#bin` to the TypeScript
// entry (src/bin.ts).
import module from "node:module"

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
  // V8's compiled code is kept on disk (the OS temp dir), so later starts skip most compiling.
  module.enableCompileCache?.()
  await import("#bin")
}
