// The floor under "registry ready": imports exactly the modules of effect and @effect/platform-node
// that the packages' built bundles import (the specifiers come as arguments), and nothing of ours.
// Prints JSON: `imported` (ms from the script's first line). Whatever the packages do, a process
// that uses them loads at least these.
const start = performance.now()
for (const specifier of process.argv.slice(2)) await import(specifier)
process.stdout.write(JSON.stringify({ imported: performance.now() - start, modules: process.argv.length - 2 }) + "\n")
