#!/usr/bin/env node
// Launches the TypeScript entry. Node >= 22.18 strips types natively; it refuses to do so for files
// under node_modules, which is fine here: Node resolves this workspace package through its symlink
// to its real path (packages/cli), outside node_modules.
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`agent-tools needs Node >= 22.18 (type stripping); this is Node ${process.versions.node}.\n`)
  process.exit(2)
}
await import("../src/bin.ts")
