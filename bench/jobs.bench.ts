/**
 * Background jobs: the cost of starting one against a foreground call, and memory on a huge output.
 *
 * 1. `echo hi` through the bash tool, foreground, against the same command started as a job
 *    (`run_in_background`; the call returns at its first output), interleaved in one process so
 *    both see the same load; the ratio is the figure to compare. No sandbox (the sandbox's own
 *    cost is sandbox.bench.ts's).
 * 2. A job printing 1 GiB: this process's RSS (sampled every 20 ms while the job runs, against
 *    the RSS before) stays flat, and the job's spill holds every byte (its size on disk).
 *
 *   ./node_modules/.bin/node bench/jobs.bench.ts [--runs=15] [--big-runs=3]
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Events, ModuleLoader, Permission, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { NodeGrammar } from "@agent-tools/node"
import { BackgroundJobs, Bash, BashKillTool, BashOutputTool } from "@agent-tools/tools"
import { describeShare, otherCpuShare } from "./lib/load.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback)
const runs = Math.max(3, arg("runs", 15))
const bigRuns = Math.max(3, arg("big-runs", 3))
const WARMUP = 3
const GIB = 1024 * 1024 * 1024

const base = realpathSync(mkdtempSync(join(tmpdir(), "jobs-bench-")))
const root = join(base, "ws")
const spillDir = join(base, "spill")
mkdirSync(root)

const services = Layer.mergeAll(
  Workspace.layer({ root, spillDirectories: [spillDir] }),
  Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
  Truncate.layer(),
  Bash.parserLayer.pipe(Layer.provide(NodeGrammar.layer)),
  Sandbox.layerNone("the benchmark measures jobs without a sandbox")
).pipe(
  Layer.provideMerge(SpillStorage.layer({ dir: spillDir, direct: true })),
  Layer.provideMerge(Layer.mergeAll(NodeServices.layer, Events.layerNoop, ModuleLoader.layerMemory({})))
)
const session = BackgroundJobs.layer({ startYield: 5_000 }).pipe(Layer.provideMerge(services))

const startVersusForeground = Effect.gen(function*() {
  const registry = yield* ToolRegistry.make([Bash.BashTool, BashOutputTool, BashKillTool])
  const ctx = yield* Tool.makeContext({ sessionID: "bench" })
  const timed = (input: Record<string, unknown>) =>
    Effect.gen(function*() {
      const t0 = performance.now()
      const result = yield* registry.execute("bash", { description: "bench", ...input }, ctx)
      const ms = performance.now() - t0
      if (!String(result.output).includes("hi")) throw new Error(`unexpected output ${JSON.stringify(result.output)}`)
      if (result.metadata.id !== undefined) yield* registry.execute("bash_kill", { id: result.metadata.id }, ctx)
      return ms
    })
  const foreground: Array<number> = []
  const job: Array<number> = []
  for (let i = 0; i < WARMUP + runs; i++) {
    const f = yield* timed({ command: "echo hi" })
    const j = yield* timed({ command: "echo hi; sleep 30", run_in_background: true })
    if (i >= WARMUP) {
      foreground.push(f)
      job.push(j)
    }
  }
  return { foreground, job }
})

const rss = () => process.memoryUsage().rss

/** RSS growth (peak − before, MiB) while a job prints `bytes`, and what its spill and its reads counted. */
const printing = (registry: ToolRegistry.ToolRegistry["Service"], ctx: Tool.Context, bytes: number) =>
  Effect.gen(function*() {
    globalThis.gc?.()
    const before = rss()
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss())
    }, 20)
    const t0 = performance.now()
    const started = yield* registry.execute("bash", {
      command: `yes 'job output — ünïcode 0123456789012345678901234567890123456789012345678901' | head -c ${bytes}`,
      description: "print",
      run_in_background: true
    }, ctx)
    let read = started
    while (read.metadata.status === "running") read = yield* registry.execute("bash_output", { id: started.metadata.id, wait_ms: 1_000 }, ctx)
    const seconds = (performance.now() - t0) / 1000
    clearInterval(sampler)
    const path = read.metadata.outputPath === undefined ? undefined : String(read.metadata.outputPath)
    const spilled = path === undefined ? 0 : statSync(path).size
    if (path !== undefined) rmSync(path, { force: true })
    return { growthMiB: (peak - before) / 1024 / 1024, spilled, total: Number(read.metadata.totalBytes), seconds, exit: read.metadata.exit }
  })

/** The same job printing 1 MiB (the baseline) and 1 GiB, after a warm-up call that loads the parser. */
const oneGiB = Effect.gen(function*() {
  const registry = yield* ToolRegistry.make([Bash.BashTool, BashOutputTool, BashKillTool])
  const ctx = yield* Tool.makeContext({ sessionID: "bench-big" })
  yield* registry.execute("bash", { command: "echo warm", description: "warm up" }, ctx)
  const small = yield* printing(registry, ctx, 1024 * 1024)
  const big = yield* printing(registry, ctx, GIB)
  return { ...big, smallGrowthMiB: small.growthMiB }
})

const main = async () => {
  const share = otherCpuShare()
  const load = (await import("node:os")).loadavg()
  const start = await Effect.runPromise(Effect.scoped(startVersusForeground.pipe(Effect.provide(session))))
  const big: Array<Effect.Success<typeof oneGiB>> = []
  for (let i = 0; i < bigRuns; i++) big.push(await Effect.runPromise(Effect.scoped(oneGiB.pipe(Effect.provide(session)))))
  console.log(`${machine()}; load average ${load.map((l) => l.toFixed(2)).join(" ")} at the start; ${describeShare(share.stop())}\n`)
  console.log(`### Start: a job against a foreground call (${runs} runs each after ${WARMUP} warm-up, interleaved, no sandbox)\n`)
  console.log("| call | median ms |")
  console.log("|---|---|")
  console.log(`| bash \`echo hi\`, foreground (baseline) | ${fmt(median(start.foreground))} |`)
  console.log(`| bash \`echo hi; sleep 30\`, run_in_background (returns at the first output) | ${fmt(median(start.job))} |`)
  console.log(`\nratio job / foreground: **${fmt(median(start.job) / median(start.foreground))}×**\n`)
  console.log(`### A job printing 1 GiB (${bigRuns} runs)\n`)
  console.log("| run | RSS growth MiB, 1 MiB job (baseline) | RSS growth MiB, 1 GiB job | spill bytes | bytes counted | exit | seconds |")
  console.log("|---|---|---|---|---|---|---|")
  big.forEach((b, i) =>
    console.log(`| ${i + 1} | ${fmt(b.smallGrowthMiB, 1)} | ${fmt(b.growthMiB, 1)} | ${b.spilled} | ${b.total} | ${String(b.exit)} | ${fmt(b.seconds, 1)} |`)
  )
  console.log(
    `\nmedian RSS growth: 1 GiB job **${fmt(median(big.map((b) => b.growthMiB)), 1)} MiB**, 1 MiB job ${fmt(median(big.map((b) => b.smallGrowthMiB)), 1)} MiB; ` +
      `spill whole: ${big.every((b) => b.spilled === GIB) ? "yes" : "NO"} (${GIB} bytes expected)`
  )
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
}).finally(() => rmSync(base, { recursive: true, force: true }))
