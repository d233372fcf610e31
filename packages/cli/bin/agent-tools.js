#!/usr/bin/env node
// Launches the CLI. Installed, `#bin` is the built JavaScript (dist/bin.js); inside this workspace,
// node runs with `--conditions=agent-tools-source`, which maps `#bin` to the TypeScript entry (src/bin.ts).
const [major] = process.versions.node.split(".").map(Number)
if (major < 22) {
  process.stderr.write(`agent-tools needs Node >= 22; this is Node ${process.versions.node}.\n`)
  process.exit(2)
}
await import("#bin")
