/**
 * Does a bash call with a big command hold up the MCP server? `agent-tools mcp` runs in a child
 * process; a raw JSON-RPC client sends a bash call whose command has N words and, right behind it,
 * `tools/list`. The `tools/list` latency is compared with the same request on the idle server (the
 * baseline, same run): a ratio near 1 means the analysis of the big command did not block the
 * server; a ratio near the bash call's own latency means it did.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describeShare, loadAverage, otherCpuShare } from "./lib/load.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const here = dirname(fileURLToPath(import.meta.url))
const BIN = join(here, "..", "packages", "cli", "src", "bin.ts")
const RUNS = 5
const SIZES = [1_000, 4_000, 8_000]

const ws = mkdtempSync(join(tmpdir(), "agent-tools-mcp-bench-"))
writeFileSync(join(ws, "agent-tools.json"), JSON.stringify({ permission: { "*": "allow" }, spill: { dir: join(ws, ".spill") } }))

const child = spawn(process.execPath, ["--conditions=agent-tools-source", BIN, "mcp", "--cwd", ws], { stdio: ["pipe", "pipe", "inherit"] })
const waiting = new Map<number, (at: number) => void>()
let buffer = ""
child.stdout.on("data", (chunk: Buffer) => {
  const now = performance.now()
  buffer += chunk.toString("utf8")
  let newline: number
  while ((newline = buffer.indexOf("\n")) !== -1) {
    const message = JSON.parse(buffer.slice(0, newline)) as { id?: number }
    buffer = buffer.slice(newline + 1)
    if (message.id !== undefined) waiting.get(message.id)?.(now)
  }
})

let nextId = 1
/** Sends a request; resolves with the time its response arrived. */
const request = (method: string, params: object = {}): Promise<number> => {
  const id = nextId++
  const answered = new Promise<number>((resolve) => waiting.set(id, resolve))
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")
  return answered
}

const command = (words: number) => `echo ${Array.from({ length: words }, (_, i) => `w${i}`).join(" ")} > /dev/null`

await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } })
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
// Warm-up: the bash parser's wasm, the tools list, the first spawn.
await request("tools/call", { name: "bash", arguments: { command: "true", description: "warm up" } })

const loadBefore = loadAverage()
const share = otherCpuShare()
const idle: Array<number> = []
for (let i = 0; i < 20; i++) {
  const t0 = performance.now()
  idle.push((await request("tools/list")) - t0)
}
const base = median(idle)

const rows: Array<string> = []
for (const words of SIZES) {
  const text = command(words)
  const list: Array<number> = []
  const call: Array<number> = []
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now()
    const bash = request("tools/call", { name: "bash", arguments: { command: text, description: "big" } })
    const listed = request("tools/list")
    const [bashAt, listAt] = await Promise.all([bash, listed])
    call.push(bashAt - t0)
    list.push(listAt - t0)
  }
  const l = median(list)
  rows.push(`| ${words} words (${fmt(text.length / 1024, 0)} KiB) | ${fmt(median(call), 0)} | ${fmt(l, 1)} | ${fmt(l / base, 1)}× |`)
}

// The server's CPU counts as this process's once it has exited and been waited for.
child.stdin.end()
await new Promise((resolve) => child.once("exit", resolve))
const others = share.stop()
console.log(`${machine()}; load average ${loadBefore} at the start; ${describeShare(others)}; median of ${RUNS} runs\n`)
console.log(`tools/list on the idle server (baseline): ${fmt(base, 2)} ms median of 20\n`)
console.log("| bash command | bash call ms | tools/list sent behind it, ms | vs idle |")
console.log("|---|---|---|---|")
for (const row of rows) console.log(row)
rmSync(ws, { recursive: true, force: true })
