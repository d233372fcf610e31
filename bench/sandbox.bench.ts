/**
 * The sandbox's cost per bash call: `echo hi` through the whole bash tool (analysis, permission,
 * spawn, output) with the bubblewrap sandbox and without it, interleaved in the same process so
 * both see the same load; the ratio is the figure to compare. Raw `bwrap … true` against
 * `bash -c true` (spawnSync) shows what bwrap itself adds.
 *
 *   ./node_modules/.bin/node bench/sandbox.bench.ts [--runs=60]
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Events, ModuleLoader, Permission, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { Bubblewrap } from "@agent-tools/node"
import { Bash } from "@agent-tools/tools"
import { fmt, machine, median, percentile } from "./lib/stats.ts"

const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.split("=")[1] ?? 60)
const WARMUP = 5

const base = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-bench-")))
const root = join(base, "ws")
mkdirSync(root)

const services = Layer.mergeAll(
  Workspace.layer({ root }),
  Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
  Truncate.layer(),
  Bash.parserLayer
).pipe(
  Layer.provideMerge(SpillStorage.layerMemory()),
  Layer.provideMerge(Layer.mergeAll(NodeServices.layer, Events.layerNoop, ModuleLoader.layerMemory({})))
)

const build = ToolRegistry.make([Bash.BashTool])

const program = Effect.gen(function*() {
  const plain = yield* build.pipe(Effect.provide(Sandbox.layerNone("the baseline runs without a sandbox")))
  const sandbox = yield* Sandbox.Sandbox.pipe(Effect.provide(Bubblewrap.layer()))
  const status = yield* sandbox.status
  if (!status.sandboxed) throw new Error(`no sandbox here: ${status.reason}`)
  const boxed = yield* build.pipe(Effect.provideService(Sandbox.Sandbox, sandbox))
  const ctx = yield* Tool.makeContext({ sessionID: "bench" })
  const args = { command: "echo hi", description: "bench" }
  const time = (registry: ToolRegistry.ToolRegistry["Service"]) =>
    Effect.gen(function*() {
      const t0 = performance.now()
      const result = yield* registry.execute("bash", args, ctx)
      if (result.output !== "hi\n") throw new Error(`unexpected output ${JSON.stringify(result.output)}`)
      return performance.now() - t0
    })
  for (let i = 0; i < WARMUP; i++) {
    yield* time(plain)
    yield* time(boxed)
  }
  const without: Array<number> = []
  const withSandbox: Array<number> = []
  for (let i = 0; i < runs; i++) {
    without.push(yield* time(plain))
    withSandbox.push(yield* time(boxed))
  }
  return { without, withSandbox, backend: status.backend }
})

const spawnTimes = (command: string, args: ReadonlyArray<string>) => {
  const times: Array<number> = []
  for (let i = 0; i < WARMUP + runs; i++) {
    const t0 = performance.now()
    const r = spawnSync(command, args, { stdio: "ignore" })
    if (r.status !== 0) throw new Error(`${command} exited with ${r.status}`)
    if (i >= WARMUP) times.push(performance.now() - t0)
  }
  return times
}

const main = async () => {
  const { without, withSandbox, backend } = await Effect.runPromise(program.pipe(Effect.provide(services)))
  const bash = spawnTimes("bash", ["-c", "true"])
  const bwrap = spawnTimes("bwrap", [
    "--die-with-parent",
    "--unshare-pid",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "bash",
    "-c",
    "true"
  ])
  console.log(`${machine()}; ${backend}; ${runs} runs each after ${WARMUP} warm-up, interleaved; load ${
    readFileSync("/proc/loadavg", "utf8").trim()
  }\n`)
  console.log("| path | median ms | p90 ms |")
  console.log("|---|---|---|")
  const row = (name: string, xs: ReadonlyArray<number>) => console.log(`| ${name} | ${fmt(median(xs))} | ${fmt(percentile(xs, 90))} |`)
  row("bash tool `echo hi`, no sandbox (baseline)", without)
  row("bash tool `echo hi`, bubblewrap sandbox", withSandbox)
  row("spawnSync `bash -c true`", bash)
  row("spawnSync `bwrap … bash -c true`", bwrap)
  console.log(
    `\nsandbox overhead per call: **${fmt(median(withSandbox) - median(without))} ms** (ratio ${
      fmt(median(withSandbox) / median(without))
    }×); bwrap alone adds ${fmt(median(bwrap) - median(bash))} ms`
  )
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
}).finally(() => rmSync(base, { recursive: true, force: true }))
