// The library as a plain ES module: the Node layer on a project directory, one call of `read` and
// one of `bash` (tree-sitter analysis from the packaged wasm) through the registry, and a program
// on a pseudo-terminal (node-pty's prebuilt binary from the registry's platform package).
import { NodeServices, NodeRuntime } from "@effect/platform-node"
import { Effect, Stream } from "effect"
import { Terminal, Tool, ToolRegistry } from "@agent-tools/core"
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
  const terminal = yield* Terminal.Terminal
  const status = yield* terminal.available
  if (!status.ok) throw new Error(`no terminals: ${status.reason}`)
  const tty = yield* Effect.scoped(Effect.gen(function*() {
    const proc = yield* terminal.spawn({ command: "sh", args: ["-c", "test -t 0 && echo tty"], cwd: project, env: { PATH: process.env.PATH }, cols: 80, rows: 24 })
    return new TextDecoder().decode(Buffer.concat(yield* Stream.runCollect(proc.output)))
  }))
  console.log(`terminal: ${JSON.stringify(tty)}`)
  if (!tty.includes("tty")) throw new Error("the program did not see a terminal")
}).pipe(Effect.provide(NodeAgentTools.layer({ cwd: project })), Effect.provide(NodeServices.layer))
NodeRuntime.runMain(program)
