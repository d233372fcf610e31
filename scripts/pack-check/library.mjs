// The library as a plain ES module: the Node layer on a project directory, one call of `read` and
// one of `bash` (tree-sitter analysis from the packaged wasm) through the registry.
import { NodeServices, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"

const project = process.argv[2]
const program = Effect.gen(function*() {
  const registry = yield* ToolRegistry.ToolRegistry
  const read = yield* registry.execute("read", { filePath: `${project}/hello.txt` }, yield* Tool.makeContext({ sessionID: "pack-check" }))
  console.log(`read: ${JSON.stringify(read.output.slice(0, 200))}`)
  if (!read.output.includes("hello from the project")) throw new Error("read did not return the file")
  const ruleset = [{ permission: "*", pattern: "*", action: "allow" }]
  const bash = yield* registry.execute("bash", { command: "echo one && echo two", description: "Prints two lines" }, yield* Tool.makeContext({ sessionID: "pack-check", ruleset }))
  console.log(`bash: ${JSON.stringify(bash.output.slice(0, 200))}`)
  if (!bash.output.includes("one\ntwo")) throw new Error("bash did not run")
}).pipe(Effect.provide(NodeAgentTools.layer({ cwd: project })), Effect.provide(NodeServices.layer))
NodeRuntime.runMain(program)
