/**
 * Per-call overhead of ToolRegistry.execute on a no-op tool, against calling the same no-op
 * Effect directly in the same process. The registry path includes lookup, validation (zod),
 * events, abort wiring, the span, and the truncation decision (with the real Truncate layer,
 * whose in-limits fast path is part of every call).
 */
import { Effect, Layer, Path } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { z } from "zod"
import { Events, ModuleLoader, Permission, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { describeShare, loadAverage, otherCpuShare } from "./lib/load.ts"
import { fmt, machine, median, percentile } from "./lib/stats.ts"

const NoOp = Tool.define("noop", {
  description: "does nothing",
  parameters: z.object({ text: z.string().optional() }),
  execute: () => Effect.succeed({ title: "", output: "ok", metadata: {} })
})

const Live = ToolRegistry.layer([NoOp]).pipe(
  Layer.provideMerge(Layer.mergeAll(
    Truncate.layer().pipe(Layer.provide(SpillStorage.layerMemory())),
    Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
    Workspace.layer({ root: "." })
  )),
  Layer.provideMerge(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, Path.layer, ModuleLoader.layer(), Events.layer()))
)

const N = 20_000
const WARMUP = 5_000

const program = Effect.gen(function*() {
  const registry = yield* ToolRegistry.ToolRegistry
  const ctx = yield* Tool.makeContext({ sessionID: "bench", callID: "c" })
  const args = { text: "hello" }
  const direct = Effect.succeed({ title: "", output: "ok", metadata: {} })

  const sample = (call: () => Effect.Effect<unknown, unknown>) =>
    Effect.gen(function*() {
      for (let i = 0; i < WARMUP; i++) yield* call()
      const times: Array<number> = []
      for (let i = 0; i < N; i++) {
        const t0 = performance.now()
        yield* call()
        times.push((performance.now() - t0) * 1000)
      }
      return times
    })

  const loadBefore = loadAverage()
  const share = otherCpuShare()
  const baseline = yield* sample(() => direct)
  const registryTimes = yield* sample(() => registry.execute("noop", args, ctx))
  const others = share.stop()
  const b = median(baseline)
  const r = median(registryTimes)
  console.log(`${machine()}; ${N} calls after ${WARMUP} warm-up calls; load average ${loadBefore} at the start; ${describeShare(others)}\n`)
  console.log("| path | median µs | p90 µs | p99 µs |")
  console.log("|---|---|---|---|")
  console.log(`| direct no-op Effect (baseline) | ${fmt(b)} | ${fmt(percentile(baseline, 90))} | ${fmt(percentile(baseline, 99))} |`)
  console.log(
    `| ToolRegistry.execute(noop) | ${fmt(r)} | ${fmt(percentile(registryTimes, 90))} | ${fmt(percentile(registryTimes, 99))} |`
  )
  console.log(`\nregistry overhead (median − baseline median): **${fmt(r - b)} µs** per call (goal ≤ 20 µs)`)
})

Effect.runPromise(program.pipe(Effect.provide(Live))).catch((e) => {
  console.error(e)
  process.exit(1)
})
