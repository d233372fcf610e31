// A plain script as a library user writes it: import @agent-tools/runtime, build its layer for a
// workspace, list the tools. Prints JSON timings (ms): `imported` and `ready` from the script's first
// line, `sinceStart` from the process's start. Plain JavaScript, so nothing is type-stripped; run with
// `--conditions=agent-tools-source` it imports the TypeScript sources instead of dist. Effect comes
// from its `effect/Effect` module, as the packages import it: effect's index loads every module of
// effect (about 60 more than the packages need), a cost of the script's own choice, not of the tools.
const start = performance.now()
const { NodeAgentTools } = await import("@agent-tools/runtime")
const { ToolRegistry } = await import("@agent-tools/core")
const Effect = await import("effect/Effect")
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
