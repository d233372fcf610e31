import { Effect } from "effect"
import { NodeAgentTools } from "@agent-tools/runtime"
import { ToolRegistry } from "@agent-tools/core"
const variant = process.argv[2]
const opts: any = { cwd: "/tmp/startup-ws" }
if (variant === "nosandbox") opts.config = { sandbox: { mode: "off" } }
if (variant === "portable") opts.ripgrep = { backend: "portable" }
if (variant === "notools") opts.tools = []
if (variant === "all") { opts.config = { sandbox: { mode: "off" } }; opts.ripgrep = { backend: "portable" }; opts.tools = [] }
// warm up the code paths once in another layer? no: first build is what a process pays
const t0 = performance.now()
await Effect.runPromise(Effect.gen(function*() { yield* ToolRegistry.ToolRegistry }).pipe(Effect.provide(NodeAgentTools.layer(opts))))
const t1 = performance.now()
await Effect.runPromise(Effect.gen(function*() { yield* ToolRegistry.ToolRegistry }).pipe(Effect.provide(NodeAgentTools.layer(opts))))
console.log(variant, "first", (t1 - t0).toFixed(1), "second", (performance.now() - t1).toFixed(1))
