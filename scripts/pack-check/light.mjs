// @agent-tools/runtime installed alone (no MCP client, S3 store or language servers): the layer
// builds and runs a call, and a config that asks for language servers fails naming the package to add.
import { NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"

const project = process.argv[2]
const read = Effect.gen(function*() {
  const registry = yield* ToolRegistry.ToolRegistry
  const result = yield* registry.execute("read", { filePath: `${project}/hello.txt` }, yield* Tool.makeContext({ sessionID: "pack-check" }))
  if (!result.output.includes("hello from the project")) throw new Error("read did not return the file")
  console.log("light: read works without the optional packages")
})
await Effect.runPromise(read.pipe(Effect.provide(NodeAgentTools.layer({ cwd: project, config: {} })), Effect.provide(NodeServices.layer)))

const error = await Effect.runPromise(
  Layer.build(NodeAgentTools.layer({ cwd: project, config: { lsp: true } })).pipe(Effect.flip, Effect.scoped, Effect.provide(NodeServices.layer))
)
console.log(`light: lsp without @agent-tools/lsp: ${error.message}`)
if (error._tag !== "MissingPackageError" || error.package !== "@agent-tools/lsp" || error.reason !== "not installed") {
  throw new Error(`expected MissingPackageError for @agent-tools/lsp, got ${error._tag}`)
}
