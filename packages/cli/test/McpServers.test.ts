/**
 * MCP servers configured for the CLI: `tools` lists their tools (a server that cannot start is a
 * warning on stderr), `call` and `explain` reach them by id, and `agent-tools mcp` serves them on.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { NODE, SOURCE, spawnCli, spawnMcp, workspace } from "./harness.ts"

const UPSTREAM = fileURLToPath(new URL("./mcp/fixtures/upstream.ts", import.meta.url))

// Each CLI run starts on the TypeScript sources and starts the upstream too: slow on a busy machine.
const live = <A, E>(name: string, body: () => Effect.Effect<A, E, any>) =>
  it.live(name, () => body().pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>, 120_000)

const mcp = {
  up: { type: "local", command: [NODE, SOURCE, UPSTREAM, "stdio"] },
  broken: { type: "local", command: ["/nonexistent/mcp-server"] }
}

describe("agent-tools with MCP servers (subprocess)", () => {
  live("tools lists a server's tools and warns about one that cannot start; call and explain reach them", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ config: { mcp } })
      const tools = yield* spawnCli(["tools", "--json", "--cwd", ws.dir])
      assert.strictEqual(tools.code, 0)
      const names = (JSON.parse(tools.stdout) as Array<{ name: string }>).map((t) => t.name)
      assert.includeMembers(names, ["read", "up_echo", "up_big"])
      assert.isFalse(names.some((n) => n.startsWith("broken_")))
      assert.match(tools.stderr, /WARN.*MCP server "broken" is down \(it failed to start: spawn \/nonexistent\/mcp-server ENOENT\).*its tools are left out/)

      // Unknown third-party tools ask (the default "*" rule): without a terminal, --yes approves.
      const rejected = yield* spawnCli(["call", "up_echo", `{"text":"hi"}`, "--cwd", ws.dir])
      assert.strictEqual(rejected.code, 3)
      const call = yield* spawnCli(["call", "up_echo", `{"text":"hi"}`, "--cwd", ws.dir, "--yes"])
      assert.strictEqual(call.code, 0)
      assert.strictEqual(call.stdout, "hi\n")
      const explain = yield* spawnCli(["explain", "up_echo", `{"text":"hi"}`, "--cwd", ws.dir, "--json"])
      assert.strictEqual(explain.code, 0)
      const report = JSON.parse(explain.stdout) as { tool: string; action: string; decisions: Array<{ permission: string }> }
      assert.deepStrictEqual([report.tool, report.action, report.decisions.map((d) => d.permission)], ["up_echo", "ask", ["up_echo"]])
    }))

  live("mcp: the server lists and calls the tools of its own MCP servers", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ config: { mcp, permission: { "up_*": "allow" } } })
      const r = yield* spawnMcp(["--cwd", ws.dir], [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "up_echo", arguments: { text: "relayed" } } }
      ] as never)
      const replies = new Map(r.stdout.split("\n").filter((l) => l !== "").map((l) => {
        const m = JSON.parse(l) as { id?: number; result?: any }
        return [m.id, m] as const
      }))
      const names = (replies.get(2)!.result.tools as Array<{ name: string }>).map((t) => t.name)
      assert.includeMembers(names, ["read", "up_echo"])
      assert.strictEqual(replies.get(3)!.result.content[0].text, "relayed")
      assert.strictEqual(r.code, 0)
    }))
})
