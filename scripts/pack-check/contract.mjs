// Prints the outside contract as JSON: the tools the library lists (id, description, JSON Schema,
// annotations), the tools an MCP server lists (`tools/list` as it arrives), and the config file's
// JSON Schema. pack-check runs it once on the installed tarballs and once on the workspace's
// sources (`--conditions=agent-tools-source`) and requires the two outputs to be byte-identical,
// so the build (bundling, the bundled zod, lazy schemas) cannot change what a model or a client sees.
//
//   node contract.mjs <project dir> <the command that starts the CLI, as a JSON array>
import { spawn } from "node:child_process"
import * as Effect from "effect/Effect"
import { ToolRegistry } from "@agent-tools/core"
import { AgentConfig, NodeAgentTools } from "@agent-tools/runtime"

const project = process.argv[2]
const cli = JSON.parse(process.argv[3])

const library = await Effect.runPromise(
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    return (yield* registry.tools()).map((tool) => ({
      id: tool.id,
      description: tool.description,
      jsonSchema: tool.jsonSchema,
      annotations: tool.annotations
    }))
  }).pipe(Effect.provide(NodeAgentTools.layer({ cwd: project })))
)

/** `initialize`, `notifications/initialized`, `tools/list` over the server's stdio; the raw answer. */
const mcpTools = () =>
  new Promise((resolve, reject) => {
    const child = spawn(cli[0], [...cli.slice(1), "mcp", "--cwd", project], { stdio: ["pipe", "pipe", "inherit"] })
    let buffer = ""
    const send = (message) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n")
    child.on("error", reject)
    child.on("exit", (code) => reject(new Error(`the MCP server exited (${code}) before listing its tools`)))
    child.stdout.on("data", (chunk) => {
      buffer += chunk.toString("utf8")
      let newline
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, newline))
        buffer = buffer.slice(newline + 1)
        if (message.id === 1) {
          send({ method: "notifications/initialized" })
          send({ id: 2, method: "tools/list", params: {} })
        } else if (message.id === 2) {
          child.removeAllListeners("exit")
          child.stdin.end()
          resolve(message.result)
        }
      }
    })
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "contract", version: "0" } }
    })
  })

process.stdout.write(JSON.stringify({ library, mcp: await mcpTools(), config: AgentConfig.jsonSchemaText() }, null, 2) + "\n")
