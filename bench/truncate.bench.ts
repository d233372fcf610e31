/**
 * Truncate on big outputs: ours against a faithful re-implementation of opencode's algorithm
 * (bench/baseline/opencode-truncate.ts), same process, same inputs, same spill directory.
 *
 * For 1 MB, 10 MB and 100 MB of realistic log lines:
 * - end to end: `Truncate.output` (head, and head+tail) and `Truncate.stream` (64 KiB byte chunks)
 *   against opencode's `output`, spill written to a temp dir with the real NodeFileSystem; every
 *   spill is deleted right after its run so page-cache writeback does not pile up on one side;
 * - CPU only (spill excluded): our measure + window + render against opencode's split + walk;
 * - extra heap: peak of live heapUsed + arrayBuffers (a GC before each sample, every 2 ms while
 *   the call runs) above the level after a GC, relative to the input size.
 *
 * The text is log lines, one in a hundred with non-ASCII characters (a two-byte string in V8).
 *
 * First, the latency table: a 100 MB output through `Truncate.output` (string) and
 * `Truncate.outputBytes` (bytes): when the preview is back, against opencode's split + walk of the
 * same text run right before it, and when the spill (written in the background) is complete,
 * against `cat input > file` of the same bytes run right before it (each of those writes, the
 * anchor's and ours alike, starts after a `sync`: the dirty pages the previous write left would
 * otherwise be flushed in the middle of the next one, which made a row 0.8× or 6× at random); a
 * control column writes the same bytes with a bare `writeSync` loop, no agent-tools code, to show
 * when the machine's writes themselves were slow; medians of the per-run ratios
 * over `--latency-runs` (5) runs, each with its load and the CPU share other processes took, and
 * the CPU time of the preview and of opencode's algorithm.
 *
 *   ./node_modules/.bin/node --expose-gc bench/truncate.bench.ts [--runs=N] [--sizes=1,10,100] [--latency-only]
 * Writes bench/RESULTS-truncate.md (git-ignored: a fresh run, to merge into RESULTS.md).
 */
import { spawnSync } from "node:child_process"
import { closeSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Context, Effect, FileSystem, Layer, Stream } from "effect"
import { Events, SpillStorage, Truncate } from "@agent-tools/core"
import * as LineWindow from "../packages/core/src/LineWindow.ts"
import * as Strategy from "../packages/core/src/TruncationStrategy.ts"
import * as Baseline from "./baseline/opencode-truncate.ts"
import { fmt, loadProbe, loadText, machine, median } from "./lib/stats.ts"

const argv = process.argv.slice(2)
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]
const sizes = (flag("sizes") ?? "1,10,100").split(",").map(Number)
const runsFor = (mb: number) => Number(flag("runs") ?? (mb >= 100 ? 5 : mb >= 10 ? 9 : 21))
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const MB = 1_000_000

const levels = ["INFO ", "DEBUG", "WARN ", "INFO ", "ERROR"]
// One line in a hundred carries non-ASCII text, as real command output does: V8 then keeps the
// whole output as a two-byte string, which is slower to measure and to encode than Latin-1.
const note = (i: number) => i % 100 === 37 ? ` user="José Müller" msg="→ déjà vu ✓ 完了"` : ""
const logLine = (i: number) =>
  `2026-11-22T03:${String((i / 60 | 0) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.${String(i % 1000).padStart(3, "0")}Z ` +
  `${levels[i % 5]} [worker-${i % 8}] GET /api/v1/projects/${i % 97}/items/${i * 7} status=${i % 13 === 0 ? 500 : 200}${note(i)} ` +
  `took=${i % 997}ms bytes=${(i * 31) % 65536} trace=${(i * 2654435761 >>> 0).toString(16)}\n`

const logText = (bytes: number) => {
  const parts: Array<string> = []
  let n = 0
  for (let i = 0; n < bytes; i++) {
    const line = logLine(i)
    parts.push(line)
    n += line.length
  }
  return parts.join("")
}

/**
 * Peak extra live memory (heapUsed + arrayBuffers) while `run` runs, above the level after a GC.
 * The sampler forces a GC before each reading, so garbage not yet collected does not count.
 */
const peakExtra = async (run: () => Promise<unknown>): Promise<number> => {
  // Backing stores of freed ArrayBuffers are released asynchronously: let the last run's go.
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const usage = () => {
    const m = process.memoryUsage()
    return m.heapUsed + m.arrayBuffers
  }
  // The floor is the lowest live level seen before, during or after the call: garbage that
  // survived the first GC must not be counted as a saving.
  let floor = usage()
  let peak = floor
  const sample = () => {
    gc()
    const u = usage()
    peak = Math.max(peak, u)
    floor = Math.min(floor, u)
  }
  const timer = setInterval(sample, 2)
  try {
    await run()
  } finally {
    clearInterval(timer)
  }
  sample()
  return peak - floor
}

const Node = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

const program = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-truncate-bench-" })
  const spillDir = join(dir, "ours")
  const baseDir = join(dir, "opencode")
  const ctx = yield* Layer.build(
    Truncate.layer().pipe(Layer.provideMerge(SpillStorage.layer({ dir: spillDir })), Layer.provide(Events.layerNoop))
  )
  const truncate = Context.get(ctx, Truncate.Truncate)
  const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(effect)
  const drop = (path: string | undefined) => path !== undefined && rmSync(path, { force: true })

  const cases = {
    opencode: async (text: string) => {
      const r = await run(Baseline.output(baseDir, text).pipe(Effect.provide(Node)))
      drop(r.truncated ? r.outputPath : undefined)
    },
    ours: async (text: string) => drop((await run(truncate.output(text))).outputPath),
    oursHeadTail: async (text: string) => drop((await run(truncate.output(text, { direction: "head+tail" }))).outputPath),
    oursStream: async (_text: string, bytes: Uint8Array) => {
      const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536))
      drop((await run(truncate.stream(Stream.fromIterable(chunks)))).outputPath)
    },
    cpuOpencode: async (text: string) => void Baseline.plan(text),
    cpuOurs: async (text: string) => {
      const m = LineWindow.measure(text)
      const limits = Truncate.defaults
      const notice = Strategy.makeNotice({ totalLines: m.lines, totalBytes: m.bytes, outputPath: "/x", spillError: undefined })
      void Strategy.lines.preview(text, limits, notice)
    }
  }
  type Case = keyof typeof cases

  // ------------------------------------------------------------------------------------------
  // Latency at 100 MB: each measurement right after its anchor, in the same run: the preview
  // against opencode's algorithm (split + walk) on the same text, the spill complete against
  // `cat input > file` of the same bytes.
  const spill = Context.get(ctx, SpillStorage.SpillStorage)
  const latencyText = logText(100 * MB)
  const latencyBytes = new TextEncoder().encode(latencyText)
  const input = join(dir, "input.log")
  writeFileSync(input, latencyBytes)
  const complete = (path: string | undefined) => run(spill.ready!(path!))
  const latency: Array<string> = []
  const cols: Record<string, Array<number>> = {
    opencode: [], strPreview: [], strPreviewRatio: [], cat: [], strSpill: [], strSpillRatio: [],
    cat2: [], bytesPreview: [], bytesSpill: [], bytesSpillRatio: [], bare: []
  }
  const cpu = () => process.cpuUsage()
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const d = process.cpuUsage(since)
    return (d.user + d.system) / 1000
  }
  // A new string each run: V8 caches split() results per string, a real output is never split twice.
  const freshText = (tag: string) => {
    const fresh = `${tag}\n${latencyText}`
    fresh.indexOf("\u0000") // flattens it before the clock starts
    return fresh
  }
  // Every measured write starts with no dirty pages left by the one before (the anchor's or ours):
  // otherwise the kernel's writeback of 100 MB, or the journal commit that waits for it, lands in
  // the middle of whichever write comes next.
  const settle = () => spawnSync("sync")
  /** Times one write of the input to a fresh file (after a `sync`), then removes the file. */
  const timedWrite = (name: string, write: (out: string) => void) => {
    settle()
    const out = join(dir, name)
    const t = performance.now()
    write(out)
    const ms = performance.now() - t
    rmSync(out, { force: true })
    return ms
  }
  const catOnce = () => timedWrite("cat.out", (out) => spawnSync("/bin/sh", ["-c", `cat '${input}' > '${out}'`]))
  // The control: the same bytes written from this process by a bare loop of 1 MiB `writeSync`s,
  // no agent-tools code at all. When it too takes several times `cat`'s time, so does a spill:
  // the machine's writes, not the code, moved the row.
  const bareOnce = () =>
    timedWrite("bare.out", (out) => {
      const fd = openSync(out, "w")
      for (let o = 0; o < latencyBytes.length; o += 1 << 20) writeSync(fd, latencyBytes, o, Math.min(1 << 20, latencyBytes.length - o))
      closeSync(fd)
    })
  const oursCpu: Array<number> = []
  const opencodeCpu: Array<number> = []
  yield* Effect.promise(async () => {
    // warm-up
    drop((await run(truncate.output(freshText("warm-up")))).outputPath)
    drop((await run(truncate.outputBytes!(latencyBytes))).outputPath)
    void Baseline.plan(freshText("warm-up"))
    for (let i = 0; i < Number(flag("latency-runs") ?? 5); i++) {
      const probe = loadProbe()
      let fresh = freshText(`opencode ${i}`)
      gc()
      let c0 = cpu()
      let t = performance.now()
      void Baseline.plan(fresh)
      const opencode = performance.now() - t
      opencodeCpu.push(cpuMs(c0))
      fresh = freshText(`ours ${i}`)
      gc()
      const cat = catOnce()
      settle()
      c0 = cpu()
      t = performance.now()
      const r1 = await run(truncate.output(fresh))
      const strPreview = performance.now() - t
      oursCpu.push(cpuMs(c0))
      await complete(r1.outputPath)
      const strSpill = performance.now() - t
      drop(r1.outputPath)
      gc()
      const cat2 = catOnce()
      settle()
      t = performance.now()
      const r2 = await run(truncate.outputBytes!(latencyBytes))
      const bytesPreview = performance.now() - t
      await complete(r2.outputPath)
      const bytesSpill = performance.now() - t
      drop(r2.outputPath)
      const bare = bareOnce()
      const share = probe.othersShare()
      const row = {
        opencode, strPreview, strPreviewRatio: strPreview / opencode, cat, strSpill, strSpillRatio: strSpill / cat,
        cat2, bytesPreview, bytesSpill, bytesSpillRatio: bytesSpill / cat2, bare
      }
      for (const [k, v] of Object.entries(row)) cols[k]!.push(v)
      latency.push(
        `| ${i + 1} | ${loadText(probe, share)} | ${fmt(opencode, 1)} | ${fmt(strPreview, 1)} (${fmt(row.strPreviewRatio, 3)}×) | ` +
          `${fmt(cat, 1)} | ${fmt(strSpill, 1)} (${fmt(row.strSpillRatio)}×) | ` +
          `${fmt(cat2, 1)} | ${fmt(bytesPreview, 1)} | ${fmt(bytesSpill, 1)} (${fmt(row.bytesSpillRatio)}×) | ${fmt(bare, 1)} |`
      )
    }
  })
  const m = (k: string) => median(cols[k]!)
  const latencyTable = [
    `### 100 MB (${LineWindow.measure(latencyText).lines} lines, 1 % of them non-ASCII: a two-byte string): ` +
    "preview back and spill complete (ms), each right after its anchor in the same run",
    "",
    "| run | load | opencode split + walk | `output(string)` preview (× opencode) | `cat input > file` | string: spill complete (× cat) | `cat input > file` | `outputBytes` preview | bytes: spill complete (× cat) | control: bare `writeSync` loop |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...latency,
    `| **median** | | **${fmt(m("opencode"), 1)}** | **${fmt(m("strPreview"), 1)} (${fmt(m("strPreviewRatio"), 3)}×)** | ` +
      `**${fmt(m("cat"), 1)}** | **${fmt(m("strSpill"), 1)} (${fmt(m("strSpillRatio"))}×)** | ` +
      `**${fmt(m("cat2"), 1)}** | **${fmt(m("bytesPreview"), 1)}** | **${fmt(m("bytesSpill"), 1)} (${fmt(m("bytesSpillRatio"))}×)** | **${fmt(m("bare"), 1)}** (${
        fmt(Math.min(...cols.bare!), 1)
      }–${fmt(Math.max(...cols.bare!), 1)}) |`,
    "",
    `ratios are medians of the per-run ratios. CPU time of this process (median): opencode ${fmt(median(opencodeCpu), 1)} ms, ` +
    `the string preview ${fmt(median(oursCpu), 1)} ms (${fmt(median(oursCpu.map((c, i) => c / opencodeCpu[i]!)), 3)}×; it includes the file system threads starting the spill). ` +
    "goals: preview ≤ 0.12× opencode; spill complete ≤ 1.3× `cat > file` from text and from bytes",
    ""
  ].join("\n")
  console.log(latencyTable)
  if (argv.includes("--latency-only")) return latencyTable

  const rows: Array<Record<string, string>> = []
  for (const mb of sizes) {
    const text = logText(mb * MB)
    const bytes = new TextEncoder().encode(text)
    const times: Record<Case, Array<number>> = {
      opencode: [],
      ours: [],
      oursHeadTail: [],
      oursStream: [],
      cpuOpencode: [],
      cpuOurs: []
    }
    const names = Object.keys(cases) as Array<Case>
    for (const name of names) yield* Effect.promise(() => cases[name](text, bytes)) // warm-up
    const runs = runsFor(mb)
    for (let i = 0; i < runs; i++) {
      for (const name of names) {
        // A new string each run: V8 caches split() results per string, a real output is never split twice.
        const fresh = `run ${i} ${name}\n${text}`
        fresh.indexOf("\u0000") // flattens it before the clock starts
        gc()
        const t0 = performance.now()
        yield* Effect.promise(() => cases[name](fresh, bytes))
        times[name].push(performance.now() - t0)
      }
    }
    const heap: Partial<Record<Case, number>> = {}
    for (const name of ["opencode", "ours", "oursHeadTail", "oursStream"] as const) {
      heap[name] = yield* Effect.promise(() => peakExtra(() => cases[name](text, bytes)))
    }
    const med = (name: Case) => median(times[name])
    const rel = (n: number | undefined) => fmt((n ?? 0) / bytes.length, 2)
    rows.push({
      input: `${mb} MB (${(bytes.length / MB).toFixed(1)} MB, ${LineWindow.measure(text).lines} lines)`,
      runs: String(runs),
      opencode: fmt(med("opencode"), 1),
      ours: fmt(med("ours"), 1),
      speedup: `${fmt(med("opencode") / med("ours"), 1)}×`,
      headTail: fmt(med("oursHeadTail"), 1),
      stream: fmt(med("oursStream"), 1),
      cpuOpencode: fmt(med("cpuOpencode"), 2),
      cpuOurs: fmt(med("cpuOurs"), 2),
      cpuSpeedup: `${fmt(med("cpuOpencode") / med("cpuOurs"), 1)}×`,
      heapOpencode: rel(heap.opencode),
      heapOurs: rel(heap.ours),
      heapHeadTail: rel(heap.oursHeadTail),
      heapStream: `${rel(heap.oursStream)} (${fmt((heap.oursStream ?? 0) / 2 ** 20, 1)} MiB)`
    })
    console.error(`done ${mb} MB`)
  }

  const table = [
    "### Time (median ms; spill written to disk)",
    "",
    "| input | runs | opencode `output` | ours `output` head | speed-up | ours head+tail | ours `stream` (64 KiB chunks) |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.input} | ${r.runs} | ${r.opencode} | ${r.ours} | **${r.speedup}** | ${r.headTail} | ${r.stream} |`),
    "",
    "### CPU only (median ms; everything but the spill write)",
    "",
    "| input | opencode split + walk | ours measure + window + render | speed-up |",
    "|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.input} | ${r.cpuOpencode} | ${r.cpuOurs} | **${r.cpuSpeedup}** |`),
    "",
    "### Extra live heap at peak (× input size; heapUsed + arrayBuffers, GC before each 2 ms sample)",
    "",
    "| input | opencode `output` | ours `output` head | ours head+tail | ours `stream` |",
    "|---|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.input} | ${r.heapOpencode} | ${r.heapOurs} | ${r.heapHeadTail} | ${r.heapStream} |`)
  ].join("\n")
  return `${latencyTable}\n${table}`
})

const load = loadavg()[0]!.toFixed(1)
const table = await Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(Node)))
const header = `## Truncate\n\n${machine()}, ${cpus()[0]?.model ?? "unknown CPU"} × ${cpus().length}, load average ${load} at start\n\n` +
  "Command: `./node_modules/.bin/node --expose-gc bench/truncate.bench.ts`. Baseline: " +
  "`bench/baseline/opencode-truncate.ts` (opencode snapshot 4bd5a158a), default limits " +
  "(2000 lines, 50 KiB), spills in a temp dir through the real NodeFileSystem, deleted after each run.\n\n"
const notes = `

### Reading

- Both sides write the same bytes to the same disk. Up to 10 MB the call is a few file round trips
  (ours: one writeFile to a temp name + rename up to 8 MiB, 1 MiB slices above; opencode: one
  writeFile) and the two are close, within the noise of a shared machine (see the load average).
- At 100 MB ours skips \`split("\\n")\` (780k strings) and the full-size encode of the spill: the
  spill is encoded in 1 MiB slices (by a WebAssembly SIMD encoder, 16 ASCII units a step: \`TextEncoder\`
  on a two-byte string is slower than the disk), so the extra heap is the slice buffers, not a copy of
  the input.
- Every measured write (\`cat\` and ours) starts after a \`sync\`: the dirty pages of the write before
  would otherwise be written back, or waited for by a journal commit, in the middle of the next one.
  The end-to-end time is then bounded by writing 100 MB to disk, which is why the speed-up is far
  from 10×; the CPU part alone (measure + window + render) is the second table.
- \`stream()\` keeps a prefix, a rolling suffix and counts: its extra heap stays under 1 MiB at any
  input size, at the price of per-chunk decoding and Effect steps (slower than \`output()\` on a
  string already in memory).
`
console.log(header + table + notes)
writeFileSync(join(dirname(fileURLToPath(import.meta.url)), "RESULTS-truncate.md"), header + table + notes)
