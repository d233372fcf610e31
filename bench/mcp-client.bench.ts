/**
 * Tools from an MCP server, against the node layer without one, in the same process (rounds
 * interleaved, so every scenario sees the same load):
 *
 * - layer built, no `mcp` config (the anchor) vs the same with one stdio server configured and
 *   never used: lazy start-up means configuring a server costs nothing until its tools are needed;
 * - the first listing with the server: spawn, handshake and tools/list of the test upstream
 *   (`packages/cli/test/mcp/fixtures/upstream.ts`, run on its TypeScript sources);
 * - one call of the upstream's `echo` on the running server vs one call of the built-in `todoread`;
 * - a 1 MB result through the registry's truncation and spill.
 *
 *   node --conditions=agent-tools-source bench/mcp-client.bench.ts [--runs=6]
 */
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { loadProbe, loadText } from "./lib/load.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const RUNS = Number(process.argv.find((a) => a.startsWith("--runs="))?.split("=")[1] ?? 6)
const CALLS = 100
const UPSTREAM = fileURLToPath(new URL("../packages/cli/test/mcp/fixtures/upstream.ts", import.meta.url))
const base = mkdtempSync(join(tmpdir(), "agent-tools-mcpclient-bench-"))
const mcp = { up: { type: "local" as const, command: [process.execPath, "--conditions=agent-tools-source", UPSTREAM, "stdio"] } }

const layer = (withServer: boolean) =>
  NodeAgentTools.layerWithoutPlatform({
    cwd: base,
    config: { permission: { "*": "allow" }, spill: { dir: join(base, "spill") }, ...(withServer ? { mcp } : {}) },
    unattended: "reject",
    analysisWorker: false
  })

const ms = (t0: number) => performance.now() - t0

/** One round: each scenario once, timed in ms (calls: µs per call); `flip` swaps the first two. */
const round = (flip: boolean) => Effect.gen(function*() {
  const built = (withServer: boolean) =>
    Effect.gen(function*() {
      const t0 = performance.now()
      yield* Effect.gen(function*() {
        yield* (yield* ToolRegistry.ToolRegistry).ids
      }).pipe(Effect.provide(layer(withServer)))
      return ms(t0)
    })
  const first = yield* built(flip)
  const second = yield* built(!flip)
  const [anchor, configured] = flip ? [second, first] : [first, second]
  return yield* Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "bench" })
    let t0 = performance.now()
    yield* registry.tools()
    const firstListing = ms(t0)
    t0 = performance.now()
    for (let i = 0; i < CALLS; i++) yield* registry.execute("todoread", {}, ctx)
    const builtinCall = ms(t0) * 1000 / CALLS
    t0 = performance.now()
    for (let i = 0; i < CALLS; i++) yield* registry.execute("up_echo", { text: "ping" }, ctx)
    const mcpCall = ms(t0) * 1000 / CALLS
    t0 = performance.now()
    const big = yield* registry.execute("up_big", { lines: 10_500 }, ctx)
    const bigCall = ms(t0)
    if (big.metadata.truncated !== true) throw new Error("the 1 MB result was not truncated")
    return { anchor, configured, firstListing, builtinCall, mcpCall, bigCall }
  }).pipe(Effect.provide(layer(true)))
})

const program = Effect.gen(function*() {
  const rounds: Array<Effect.Success<ReturnType<typeof round>>> = []
  const loads: Array<string> = []
  yield* round(false) // warm-up: module loading and the compile cache
  for (let i = 0; i < RUNS; i++) {
    const probe = loadProbe()
    // Alternating which layer is built first: neither always follows the last round's server exit.
    rounds.push(yield* round(i % 2 === 1))
    loads.push(loadText(probe, probe.othersShare()))
  }
  const m = (key: keyof Effect.Success<ReturnType<typeof round>>) => median(rounds.map((r) => r[key]))
  const anchor = m("anchor")
  console.log(`${machine()}; ${RUNS} rounds after one warm-up; medians\n`)
  console.log("| scenario | median | ratio |")
  console.log("|---|---|---|")
  console.log(`| node layer built, no mcp (anchor) | ${fmt(anchor)} ms | 1.00× |`)
  console.log(`| node layer built, one stdio server configured, not used | ${fmt(m("configured"))} ms | ${fmt(m("configured") / anchor)}× |`)
  console.log(`| first listing: spawn + handshake + tools/list | ${fmt(m("firstListing"))} ms | ${fmt(m("firstListing") / anchor)}× |`)
  console.log(`| call of built-in todoread (call anchor) | ${fmt(m("builtinCall"), 0)} µs | 1.00× |`)
  console.log(`| call of the server's echo over stdio | ${fmt(m("mcpCall"), 0)} µs | ${fmt(m("mcpCall") / m("builtinCall"))}× |`)
  console.log(`| 1 MB result, truncated and spilled | ${fmt(m("bigCall"))} ms | ${fmt(m("bigCall") / anchor)}× |`)
  console.log(`\nload per round: ${loads.join("; ")}`)
})

program.pipe(Effect.provide(NodeServices.layer), Effect.ensuring(Effect.sync(() => rmSync(base, { recursive: true, force: true }))), Effect.runPromise)
