/**
 * What the sandbox's network proxy costs, interleaved in one process so every mode sees the same
 * load (the ratios are the figures to compare):
 *
 * - sandbox start: `echo hi` through the whole bash tool with `sandbox.network` `proxy`, `allow`
 *   (the host's network, no bridge) and `deny` (a network namespace only). Under `proxy`, a call of
 *   local programs only (`echo`) skips the bridge; `awk 'BEGIN{}'` is a program the list leaves
 *   out (gawk can open sockets), so under `proxy` it gets the proxy's socket and the bridge,
 *   started and waited for — measured against the same command under `allow`;
 * - an HTTP fetch from inside the sandbox to a server on this machine: through the proxy (the host
 *   allowed by a rule naming it) against direct (`allow`). One Node client per call makes
 *   `FETCHES` sequential requests, each on a new connection, and reports their time itself, so
 *   Node's start-up inside is not counted.
 *
 *   ./node_modules/.bin/node --conditions=agent-tools-source bench/sandbox-network.bench.ts [--rounds=5]
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { Events, ModuleLoader, Permission, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { Bubblewrap, NodeGrammar } from "@agent-tools/node"
import { Bash } from "@agent-tools/tools"
import { loadProbe, loadText } from "./lib/load.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const rounds = Number(process.argv.find((a) => a.startsWith("--rounds="))?.split("=")[1] ?? 5)
/** `echo hi` calls per mode and round. */
const CALLS = 10
/** Requests per fetching call. */
const FETCHES = 20

const base = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-network-bench-")))
const root = join(base, "ws")
mkdirSync(root)
// Prints the milliseconds `FETCHES` sequential GETs of argv[2] took (through http_proxy when set).
writeFileSync(
  join(root, "fetch.mjs"),
  `import { request } from "node:http"
const url = new URL(process.argv[2])
const proxy = process.env.http_proxy ? new URL(process.env.http_proxy) : undefined
const once = () => new Promise((resolve, reject) => {
  const options = proxy === undefined
    ? { host: url.hostname, port: url.port, path: url.pathname, agent: false }
    : { host: proxy.hostname, port: proxy.port, path: url.href, headers: { host: url.host }, agent: false }
  request(options, (res) => { res.resume(); res.on("end", () => res.statusCode === 200 ? resolve() : reject(new Error("status " + res.statusCode))) }).on("error", reject).end()
})
await once()
const t0 = performance.now()
for (let i = 0; i < ${FETCHES}; i++) await once()
console.log((performance.now() - t0).toFixed(3))
`
)

const services = Layer.mergeAll(
  Workspace.layer({ root }),
  // Every command and the benchmark's own server by name: a rule naming the host exactly lets
  // the proxy connect to its loopback address.
  Permission.layer({
    rules: [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "network", pattern: "127.0.0.1", action: "allow" }
    ]
  }),
  Truncate.layer(),
  Bash.parserLayer.pipe(Layer.provide(NodeGrammar.layer))
).pipe(
  Layer.provideMerge(SpillStorage.layerMemory()),
  Layer.provideMerge(Layer.mergeAll(NodeServices.layer, Events.layerNoop, ModuleLoader.layerMemory({})))
)

const MODES: ReadonlyArray<Sandbox.Network> = ["proxy", "allow", "deny"]

const program = (port: number) =>
  Effect.gen(function*() {
    const registries = new Map<Sandbox.Network, ToolRegistry.ToolRegistry["Service"]>()
    let backend = ""
    for (const network of MODES) {
      // Built in the program's scope: the layer holds the session's network until it closes.
      const sandbox = Context.get(yield* Layer.build(Bubblewrap.layer({ network })), Sandbox.Sandbox)
      const status = yield* sandbox.status
      if (!status.sandboxed) throw new Error(`no sandbox here: ${status.reason}`)
      backend = status.backend
      registries.set(network, yield* ToolRegistry.make([Bash.BashTool]).pipe(Effect.provideService(Sandbox.Sandbox, sandbox)))
    }
    const ctx = yield* Tool.makeContext({ sessionID: "bench" })
    const call = (network: Sandbox.Network, command: string) =>
      Effect.gen(function*() {
        const t0 = performance.now()
        const result = yield* registries.get(network)!.execute("bash", { command, description: "bench" }, ctx)
        if (result.metadata.exit !== 0) throw new Error(`${command} (${network}): ${result.output}`)
        return { ms: performance.now() - t0, output: result.output }
      })
    const fetch = `node fetch.mjs http://127.0.0.1:${port}/`
    // Warm-up: module loading, the probe, the file cache.
    for (const network of MODES) yield* call(network, "echo hi")
    yield* call("proxy", fetch)
    yield* call("allow", fetch)
    const rows: Array<{ readonly start: Record<string, number>; readonly proxied: number; readonly direct: number; readonly load: string }> = []
    for (let r = 0; r < rounds; r++) {
      const probe = loadProbe()
      const times: Record<string, Array<number>> = { proxy: [], allow: [], deny: [], bridge: [], shAllow: [] }
      for (let i = 0; i < CALLS; i++) {
        for (const network of MODES) times[network]!.push((yield* call(network, "echo hi")).ms)
        times.bridge!.push((yield* call("proxy", "awk 'BEGIN{}'")).ms)
        times.shAllow!.push((yield* call("allow", "awk 'BEGIN{}'")).ms)
      }
      const proxied = Number((yield* call("proxy", fetch)).output)
      const direct = Number((yield* call("allow", fetch)).output)
      rows.push({
        start: Object.fromEntries([...MODES, "bridge", "shAllow"].map((m) => [m, median(times[m]!)])),
        proxied,
        direct,
        load: loadText(probe, probe.othersShare())
      })
    }
    return { rows, backend }
  })

const main = async () => {
  const server: Server = createServer((_, res) => res.end("ok\n"))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  try {
    const { rows, backend } = await Effect.runPromise(program(port).pipe(Effect.scoped, Effect.provide(services)))
    console.log(`${machine()}; ${backend}; ${rounds} rounds; per round the median of ${CALLS} interleaved calls per mode, ` +
      `and one call of ${FETCHES} sequential fetches per path\n`)
    console.log("| round | load | `echo hi` proxy ms | allow ms | deny ms | proxy / allow | `awk` proxy (bridge) ms | allow ms | " +
      `bridge / allow | fetch ×${FETCHES} proxied ms | direct ms | proxied / direct |`)
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|")
    const line = (name: string, load: string, s: Record<string, number>, proxied: number, direct: number) =>
      console.log(
        `| ${name} | ${load} | ${fmt(s.proxy!)} | ${fmt(s.allow!)} | ${fmt(s.deny!)} | ${fmt(s.proxy! / s.allow!)}× | ${
          fmt(s.bridge!)
        } | ${fmt(s.shAllow!)} | ${fmt(s.bridge! / s.shAllow!)}× | ${fmt(proxied)} | ${fmt(direct)} | ${fmt(proxied / direct)}× |`
      )
    rows.forEach((r, i) => line(String(i + 1), r.load, r.start, r.proxied, r.direct))
    const med = (f: (r: typeof rows[number]) => number) => median(rows.map(f))
    line(
      "**median**",
      "",
      Object.fromEntries(["proxy", "allow", "deny", "bridge", "shAllow"].map((m) => [m, med((r) => r.start[m]!)])),
      med((r) => r.proxied),
      med((r) => r.direct)
    )
  } finally {
    server.close()
  }
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
}).finally(() => rmSync(base, { recursive: true, force: true }))
