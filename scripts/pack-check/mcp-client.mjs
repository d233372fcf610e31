// An MCP client on the installed @modelcontextprotocol/sdk: starts `npx agent-tools mcp --cwd DIR`,
// initializes, lists the tools and reads a file through the `read` tool.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const project = process.argv[2]
const transport = new StdioClientTransport({ command: "npx", args: ["--no-install", "agent-tools", "mcp", "--cwd", project], stderr: "inherit" })
const client = new Client({ name: "pack-check", version: "1.0.0" })
await client.connect(transport)
const server = client.getServerVersion()
console.log(`initialize: ${server?.name} ${server?.version}`)
const { tools } = await client.listTools()
console.log(`tools/list: ${tools.map((t) => t.name).join(", ")}`)
if (!tools.some((t) => t.name === "read")) throw new Error("no read tool")
const result = await client.callTool({ name: "read", arguments: { filePath: `${project}/hello.txt` } })
const text = result.content.map((c) => c.text ?? "").join("")
console.log(`tools/call read: ${JSON.stringify(text.slice(0, 200))}`)
if (result.isError || !text.includes("hello from the project")) throw new Error(`unexpected read result: ${JSON.stringify(result)}`)
await client.close()
