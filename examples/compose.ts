// The README's composition example: the core layers by hand, one custom tool, one call.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Layer } from "effect"
import { z } from "zod"
import { Events, FileTime, ModuleLoader, Permission, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { Bash, ReadTool } from "@agent-tools/tools"

const Shout = Tool.define("shout", {
  description: "Upper-cases a text",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => Effect.succeed({ title: "shout", output: text.toUpperCase(), metadata: {} })
})

const Runtime = ToolRegistry.layer([ReadTool, Bash.BashTool, Shout]).pipe(
  Layer.provideMerge(Layer.mergeAll(
    Truncate.layer({ tools: { shout: { maxLines: 100 } } }),
    Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
    FileTime.layer(),
    Workspace.layerWithSpillStorage({ root: "." }), // its spills are readable without asking
    Bash.parserLayer,
    // Required by the bash tool: leaving it out does not type-check. `Bubblewrap.layer()` from
    // @agent-tools/node confines commands on Linux; this says that they run unconfined, and why.
    Sandbox.layerNone("this example runs commands without a sandbox")
  )),
  Layer.provideMerge(Layer.mergeAll(SpillStorage.layer({ dir: "/tmp/agent-tools-spill", workspace: "." }), Events.layer(), ModuleLoader.layer())),
  Layer.provideMerge(NodeServices.layer)
)

const program = Effect.gen(function*() {
  const registry = yield* ToolRegistry.ToolRegistry
  const ctx = yield* Tool.makeContext({ sessionID: "session-1" })
  const result = yield* registry.execute("shout", { text: "hello" }, ctx)
  console.log(result.output, result.metadata) // HELLO { truncated: false }
})

program.pipe(Effect.provide(Runtime), NodeRuntime.runMain)
