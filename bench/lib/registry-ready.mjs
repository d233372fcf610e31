// A plain script as a library user writes it: import @agent-tools/runtime, build its layer for a
// workspace, list the tools. Prints JSON timings (ms): `imported` and `ready` from the script's first
// line, `sinceStart` from the process's start. Plain JavaScript, so nothing is type-stripped; run with
// `--conditions=agent-tools-source` it imports the TypeScript sources instead of dist.
const start = performance.now()
const { NodeAgentTools } = await import("@agent-tools/runtime")
const { ToolRegistry } = await import("@agent-tools/core")
const { Effect } = await import("effect")
const imported = performance.now()
const ids = await Effect.runPromise(
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    return (yield* registry.tools()).map((tool) => tool.id)
  }).pipe(Effect.provide(NodeAgentTools.layer({ cwd: process.argv[2] ?? "." })))
)
const ready = performance.now()
if (!ids.includes("read")) throw new Error(`no read tool in ${ids.join(", ")}`)
process.stdout.write(JSON.stringify({ imported: imported - start, ready: ready - start, sinceStart: ready, tools: ids.length }) + "\n")
