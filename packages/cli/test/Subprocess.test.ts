/**
 * The real executable: `bin/agent-tools.js` on Node 22 as a child process, in temp workspaces.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { VERSION } from "@agent-tools/cli"
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { Processes } from "@agent-tools/testing"
import { BIN, NODE, SOURCE, spawnCli, spawnMcp, workspace } from "./harness.ts"

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, any>) =>
  it.live(name, () => body().pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>, 60_000)

describe("agent-tools (subprocess)", () => {
  live("--help and --version exit 0", () =>
    Effect.gen(function*() {
      const help = yield* spawnCli(["--help"])
      assert.strictEqual(help.code, 0)
      assert.include(help.stdout, "SUBCOMMANDS")
      const version = yield* spawnCli(["--version"])
      assert.deepStrictEqual(version, { code: 0, stdout: `agent-tools v${VERSION}\n`, stderr: "" })
    }))

  live("keeps V8's compiled code in the user's cache directory ($XDG_CACHE_HOME/agent-tools)", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const { NODE_COMPILE_CACHE: _set, ...inherited } = process.env as Record<string, string>
      const cache = `${ws.spillDir}/cache`
      const echo = yield* spawnCli(["call", "echo", `{"text":"hi"}`, "--cwd", ws.dir], { env: { ...inherited, XDG_CACHE_HOME: cache } })
      assert.deepStrictEqual(echo, { code: 0, stdout: "hi\n", stderr: "" })
      // One directory per Node version, holding the cached modules.
      const versions = readdirSync(`${cache}/agent-tools/compile-cache`)
      assert.strictEqual(versions.length, 1)
      assert.isAbove(readdirSync(`${cache}/agent-tools/compile-cache/${versions[0]}`).length, 0)
    }))

  live("without rg: a call that never searches leaves stderr empty; the first search warns once", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      // No rg on PATH nor in the download cache, no bwrap either; the user config directory that
      // trusts the workspace is kept.
      const env = { PATH: ws.spillDir, XDG_CACHE_HOME: ws.spillDir, HOME: ws.spillDir, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME! }
      const echo = yield* spawnCli(["call", "echo", `{"text":"hi"}`, "--cwd", ws.dir], { env })
      assert.deepStrictEqual(echo, { code: 0, stdout: "hi\n", stderr: "" })
      const grep = yield* spawnCli(["call", "grep", `{"pattern":"nothing-matches-this"}`, "--cwd", ws.dir], { env })
      assert.strictEqual(grep.code, 0, grep.stderr)
      assert.strictEqual(grep.stderr.match(/rg not found/g)?.length, 1, grep.stderr)
      assert.match(grep.stderr, /WARN.*Ripgrep: rg not found, using the portable search/)
    }))

  live("call: --json shape, stdin, and the exit codes 1, 2, 3", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const ok = yield* spawnCli(["call", "echo", `{"text":"hi"}`, "--json"], { cwd: ws.dir })
      assert.strictEqual(ok.code, 0)
      assert.deepStrictEqual(JSON.parse(ok.stdout), { title: "echo", output: "hi", metadata: { length: 2, truncated: false } })
      const stdin = yield* spawnCli(["call", "echo", "-", "--cwd", ws.dir], { stdin: `{"text":"piped"}` })
      assert.deepStrictEqual(stdin, { code: 0, stdout: "piped\n", stderr: "" })
      const failed = yield* spawnCli(["call", "fail", "--cwd", ws.dir])
      assert.strictEqual(failed.code, 1)
      assert.include(failed.stderr, "boom")
      const usage = yield* spawnCli(["call", "echo", "not json", "--cwd", ws.dir])
      assert.strictEqual(usage.code, 2)
      assert.include(usage.stderr, "Invalid JSON")
      // A pipe is not a TTY: the ask is rejected unless --yes.
      const rejected = yield* spawnCli(["call", "touch", `{"file":"a"}`, "--cwd", ws.dir])
      assert.strictEqual(rejected.code, 3)
      assert.include(rejected.stderr, "Pass --yes")
    }))

  live("a custom tool that fails to load is a warning on stderr; the others still work", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ files: { ".agent/tools/broken.js": "export default 42\n" } })
      const r = yield* spawnCli(["tools", "--cwd", ws.dir])
      assert.strictEqual(r.code, 0)
      assert.include(r.stdout, "echo(text, times?)")
      assert.match(r.stderr, /WARN.*Failed to load custom tool from .*broken\.js/)
    }))

  live("mcp: stdout carries only protocol messages, even when a tool writes to console.log", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        files: {
          ".agent/tools/noisy.js": `console.log("noise while loading")
export default { description: "Logs to stdout", execute: async () => { console.log("noise while running"); return "quiet result" } }
`
        }
      })
      const messages = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "noisy", arguments: {} } },
        { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo", arguments: { text: "over mcp" } } }
      ]
      const r = yield* spawnMcp(["--cwd", ws.dir], messages)
      const lines = r.stdout.split("\n").filter((l) => l !== "")
      const replies = lines.map((l) => JSON.parse(l) as { jsonrpc: string; id?: number; result?: any })
      for (const reply of replies) assert.strictEqual(reply.jsonrpc, "2.0")
      const byId = new Map(replies.map((m) => [m.id, m]))
      assert.deepStrictEqual([...byId.keys()].filter((k) => k !== undefined).sort(), [1, 2, 3, 4])
      const names = (byId.get(2)!.result.tools as Array<{ name: string }>).map((t) => t.name)
      assert.include(names, "noisy")
      assert.strictEqual(byId.get(3)!.result.content[0].text, "quiet result")
      assert.strictEqual(byId.get(4)!.result.content[0].text, "over mcp")
      assert.include(r.stderr, "noise while loading")
      assert.include(r.stderr, "noise while running")
      assert.strictEqual(r.code, 0)
    }))

  live("mcp: a custom tool's child with inherited stdio writes to stderr, never into the protocol", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        files: {
          ".agent/tools/child.js": `import { execSync, spawn } from "node:child_process"
export default {
  description: "Runs children that inherit stdio",
  execute: () => new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", "echo stray from a child"], { stdio: "inherit" })
    child.on("error", reject)
    child.on("close", () => {
      execSync("echo stray from a sync child", { stdio: "inherit" })
      resolve("children done")
    })
  })
}
`
        }
      })
      const messages = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "child", arguments: {} } },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "after the children" } } }
      ]
      const r = yield* spawnMcp(["--cwd", ws.dir], messages)
      // Every line of stdout is a JSON-RPC message (the calls may answer in either order).
      const replies = r.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { jsonrpc: string; id?: number; result?: any })
        .sort((a, b) => (a.id ?? 0) - (b.id ?? 0))
      assert.deepStrictEqual(replies.map((m) => [m.jsonrpc, m.id]), [["2.0", 1], ["2.0", 2], ["2.0", 3]])
      assert.strictEqual(replies[1]!.result.content[0].text, "children done")
      assert.strictEqual(replies[2]!.result.content[0].text, "after the children")
      assert.include(r.stderr, "stray from a child\n")
      assert.include(r.stderr, "stray from a sync child\n")
      assert.strictEqual(r.code, 0)
    }))

  live("call: SIGINT ends a running bash call and kills its processes", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const marker = Processes.marker()
      const args = JSON.stringify({ command: `sleep ${marker} & wait`, description: "Wait" })
      const child = spawn(NODE, [SOURCE, BIN, "call", "bash", args, "--yes", "--cwd", ws.dir], { stdio: ["ignore", "pipe", "pipe"] })
      const closed = Effect.callback<readonly [number | null, NodeJS.Signals | null]>((resume) => {
        child.on("close", (code, signal) => resume(Effect.succeed([code, signal] as const)))
        return Effect.sync(() => void child.kill("SIGKILL"))
      })
      yield* Processes.waitUntil(() => Processes.withMarker(marker).length > 0)
      child.kill("SIGINT")
      const ended = yield* closed
      assert.deepStrictEqual(Processes.withMarker(marker), [])
      // Interrupted: the CLI ends the way a shell expects of Ctrl-C, by the signal itself.
      assert.deepStrictEqual(ended, [null, "SIGINT"])
    }))
})
