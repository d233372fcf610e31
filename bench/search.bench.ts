/**
 * Search benchmarks on a generated source-like tree (200k files, reused between runs):
 *
 * - grep tool vs raw `rg --json` with the same flags, for a rare, a moderate and a broad pattern;
 * - glob newest-100 (`**\/*.ts`) vs raw `rg --files` with the same flags, at 50k / 100k / 200k files:
 *   a session's first call (a new session each run) with the peak memory of the Node process, and its
 *   later calls (answered from the session's mtime index) with the heap the index keeps;
 * - grep again after a glob in the same session (mtimes from the index);
 * - the portable (TypeScript) layer's times against the rg layer's.
 *
 * Run: `./node_modules/.bin/node --expose-gc bench/search.bench.ts [--quick]`. Prints markdown and
 * writes it to bench/RESULTS-search.md (git-ignored: a fresh run, to merge into RESULTS.md). The tree lives in `$TMPDIR/agent-tools-search-bench/v1`
 * (about 0.9 GB; ~20 s to generate on 2 cores; delete it to regenerate).
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { NodeServices } from "@effect/platform-node"
import { Ripgrep, RipgrepPortable, SpillStorage, Tool, Workspace } from "@agent-tools/core"
import * as NodeStat from "../packages/node/src/NodeStat.ts"
import { GlobTool, GrepTool } from "@agent-tools/tools"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { fmt, loadProbe, loadText, machine, median } from "./lib/stats.ts"

const LEVELS = 8
const PER_LEVEL = 25_000
const TREE = join(tmpdir(), "agent-tools-search-bench", "v1")
const quick = process.argv.includes("--quick")
const RUNS = quick ? 1 : 5
/** grep's rows: runs of the anchor, `rg --count` and the tool, interleaved (each ratio is a run's). */
const GREP_RUNS = quick ? 1 : 5

// ---------------------------------------------------------------------------------------------
// The tree: L0 ⊃ L1 ⊃ … ⊃ L7, each level adding 25k files, so L6 holds 50k, L4 100k, L0 200k.

let seed = 42
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rand() * xs.length)]!
const WORDS = ["user", "config", "value", "result", "handler", "request", "response", "state", "item", "index", "buffer",
  "stream", "token", "parser", "cache", "event", "error", "option", "layer", "service", "session", "router", "schema"]

const source = (n: number): string => {
  const lines = [`import { ${pick(WORDS)}, ${pick(WORDS)} } from "./${pick(WORDS)}.ts"`, `import type { ${pick(WORDS)}Options } from "../types.ts"`, ""]
  const count = 15 + Math.floor(rand() * 60)
  for (let l = 0; l < count; l++) {
    const r = rand()
    if (r < 0.04) lines.push(`  // TODO: handle ${pick(WORDS)} ${pick(WORDS)} when the ${pick(WORDS)} is empty`)
    else if (r < 0.25) lines.push(`export function ${pick(WORDS)}${n}_${l}(${pick(WORDS)}: string, ${pick(WORDS)}: number): number {`)
    else if (r < 0.45) lines.push(`  return ${pick(WORDS)}.length + ${Math.floor(rand() * 1000)}`)
    else if (r < 0.55) lines.push("}")
    else lines.push(`  const ${pick(WORDS)}${l} = ${pick(WORDS)}(${pick(WORDS)}, "${pick(WORDS)}-${n}")`)
  }
  if (n % 100 === 3) lines.push(`// FIXME(${pick(WORDS)}): revisit the ${pick(WORDS)} path`)
  if (n % 2000 === 7) lines.push(`// NEEDLE_RARE ${n}`)
  return `${lines.join("\n")}\n`
}

const YEAR = 365 * 24 * 3600
const NOW = Math.floor(Date.UTC(2026, 0, 1) / 1000)

const generate = () => {
  const started = performance.now()
  let dir = TREE
  for (let level = 0; level < LEVELS; level++) {
    dir = join(dir, `L${level}`)
    for (let i = 0; i < PER_LEVEL; i++) {
      const n = level * PER_LEVEL + i
      const sub = join(dir, "packages", `pkg${i % 10}`, "src", pick(WORDS), `m${Math.floor(i / 10) % 40}`)
      mkdirSync(sub, { recursive: true })
      const file = join(sub, `${pick(WORDS)}_${n}.${i % 20 === 0 ? "md" : "ts"}`)
      writeFileSync(file, source(n))
      const mtime = NOW - Math.floor(rand() * YEAR)
      utimesSync(file, mtime, mtime)
    }
  }
  // Ignored and hidden content at the top: never listed by glob, never searched by grep.
  writeFileSync(join(TREE, "L0", ".gitignore"), "node_modules/\ndist/\n*.log\n")
  for (let i = 0; i < 3000; i++) {
    const d = join(TREE, "L0", i % 2 ? "node_modules" : "dist", `p${i % 30}`)
    mkdirSync(d, { recursive: true })
    writeFileSync(join(d, `i${i}.ts`), source(i))
  }
  writeFileSync(join(TREE, "complete.json"), JSON.stringify({ files: LEVELS * PER_LEVEL, generatedMs: performance.now() - started }))
}

// ---------------------------------------------------------------------------------------------
// Measuring

const gc = () => (globalThis as { gc?: () => void }).gc?.()

/**
 * CPU time of this process (every thread) and of its children that have exited, ms; undefined where
 * /proc is missing. Judges a change better than wall time on a machine others load.
 */
const cpuNow = (): number | undefined => {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10 // clock ticks of 10 ms
  } catch {
    return undefined
  }
}

interface Sample {
  readonly ms: number
  /** CPU ms of this process and of the processes it ran (`cpuNow`). */
  readonly cpuMs: number | undefined
  /** Peak RSS and heap of this Node process above the level before the call, MB. */
  readonly rssMB: number
  readonly heapMB: number
}

const measure = async (run: () => Promise<unknown>): Promise<Sample> => {
  gc()
  const before = process.memoryUsage()
  let rss = before.rss
  let heap = before.heapUsed
  const timer = setInterval(() => {
    const m = process.memoryUsage()
    rss = Math.max(rss, m.rss)
    heap = Math.max(heap, m.heapUsed)
  }, 10)
  const cpu0 = cpuNow()
  const t0 = performance.now()
  await run()
  const ms = performance.now() - t0
  const cpu1 = cpuNow()
  clearInterval(timer)
  const m = process.memoryUsage()
  return { ms, cpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0, rssMB: (Math.max(rss, m.rss) - before.rss) / 2 ** 20, heapMB: (Math.max(heap, m.heapUsed) - before.heapUsed) / 2 ** 20 }
}

/** The median time of `xs`. */
const medianMs = (xs: ReadonlyArray<Sample>) => median(xs.map((x) => x.ms))
/** Each run's ratio of `xs` to `ys`, runs taken in turn (undefined when a run lacks the figure). */
const perRun = (xs: ReadonlyArray<Sample>, ys: ReadonlyArray<Sample>, of: (s: Sample) => number | undefined = (s) => s.ms) => {
  const rs = xs.flatMap((x, i) => {
    const a = of(x)
    const b = of(ys[i]!)
    return a === undefined || b === undefined || b === 0 ? [] : [a / b]
  })
  return rs.length === xs.length ? rs : undefined
}
/** The median of the per-run ratios. */
const ratio = (xs: ReadonlyArray<Sample>, ys: ReadonlyArray<Sample>, of?: (s: Sample) => number | undefined) => {
  const rs = perRun(xs, ys, of)
  return rs === undefined ? undefined : median(rs)
}

const repeat = async (runs: number, run: () => Promise<unknown>) => {
  await run() // warm-up (page cache, JIT)
  const samples: Array<Sample> = []
  for (let i = 0; i < runs; i++) samples.push(await measure(run))
  const cpu = samples.flatMap((s) => (s.cpuMs === undefined ? [] : [s.cpuMs]))
  return {
    ms: median(samples.map((s) => s.ms)),
    cpuMs: cpu.length === samples.length ? median(cpu) : undefined,
    rssMB: Math.max(...samples.map((s) => s.rssMB)),
    heapMB: Math.max(...samples.map((s) => s.heapMB))
  }
}

/** Raw rg (or a shell pipeline), its stdout drained by Node (what any Node caller pays at least). */
const rawRg = (cwd: string, args: ReadonlyArray<string>, command = "rg") =>
  new Promise<number>((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "ignore"] })
    let bytes = 0
    child.stdout.on("data", (d: Buffer) => void (bytes += d.length))
    child.on("error", reject)
    child.on("close", () => resolve(bytes))
  })

const COMMON = ["--no-config", "--no-require-git", "--no-ignore-global", "--color=never", "--glob=!.git"]

const ctx: Tool.Context = {
  sessionID: "bench",
  messageID: "m",
  callID: "c",
  agent: "build",
  abort: new AbortController().signal,
  extra: {},
  metadata: () => Effect.void,
  ask: () => Effect.void,
  askAll: () => Effect.void
}

type Backend = "rg" | "portable"
// The rg backend as the Node layer builds it: mtimes stat'ed in this process and kept for the
// session in the index its directory watches keep true.
const ripgrepLayer = (backend: Backend) =>
  backend === "rg"
    ? Ripgrep.layer({ backend: "rg", statBatch: NodeStat.statBatch, watch: NodeStat.directoryWatch })
    : RipgrepPortable.layer()

/** Builds the services and the tool once per (backend, root) — a session; returns a runner for calls. */
const toolRunner = async (backend: Backend, root: string, tool: Tool.Definition<string, any, any>) => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Workspace.layer({ root }), ripgrepLayer(backend), SpillStorage.layerMemory()).pipe(Layer.provideMerge(NodeServices.layer))
  )
  const def = await runtime.runPromise(tool.init)
  // Resolve rg now, so that a session's first call is timed as a call, not as the layer's start.
  await runtime.runPromise(Effect.flatMap(Ripgrep.Ripgrep, (rg) => rg.info))
  const run = (args: unknown) => runtime.runPromise(def.execute(args as never, ctx))
  return Object.assign(run, { dispose: () => runtime.dispose() })
}

/** A session with both tools, whose index a glob of the whole tree has filled (its watches set). */
const indexedSession = async (root: string) => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Workspace.layer({ root }), ripgrepLayer("rg"), SpillStorage.layerMemory()).pipe(Layer.provideMerge(NodeServices.layer))
  )
  const glob = await runtime.runPromise(GlobTool.init)
  const grep = await runtime.runPromise(GrepTool.init)
  await runtime.runPromise(glob.execute({ pattern: "**/*" } as never, ctx))
  await new Promise((r) => setTimeout(r, 3000))
  await runtime.runPromise(glob.execute({ pattern: "**/*" } as never, ctx))
  return {
    grep: (args: unknown) => runtime.runPromise(grep.execute(args as never, ctx)),
    dispose: () => runtime.dispose()
  }
}

/** A session's first glob call, each run in a new session (a fresh index); the anchor just before each. */
const firstCalls = async (root: string, pattern: string, anchor: () => Promise<unknown>) => {
  const tool: Array<number> = []
  const raw: Array<number> = []
  const cpuRatios: Array<number> = []
  let rssMB = 0
  for (let i = 0; i <= RUNS; i++) {
    const a = await measure(anchor)
    const glob = await toolRunner("rg", root, GlobTool)
    const sample = await measure(() => glob({ pattern }))
    await glob.dispose()
    if (i === 0) continue // warm-up
    raw.push(a.ms)
    tool.push(sample.ms)
    if (a.cpuMs !== undefined && sample.cpuMs !== undefined && a.cpuMs > 0) cpuRatios.push(sample.cpuMs / a.cpuMs)
    rssMB = Math.max(rssMB, sample.rssMB)
  }
  const cpuRatio = cpuRatios.length === 0 ? undefined : median(cpuRatios)
  return { raw: median(raw), tool: median(tool), ratio: median(tool.map((t, i) => t / raw[i]!)), cpuRatio, rssMB }
}

/**
 * Later glob calls of one session, nothing changed in between: the index answers once its
 * background watches are set (a few calls and a pause first). The anchor is run just before each
 * call; the heap the index retains is measured after a collection.
 */
const laterCalls = async (root: string, pattern: string, anchor: () => Promise<unknown>) => {
  gc()
  const heapBefore = process.memoryUsage().heapUsed
  const glob = await toolRunner("rg", root, GlobTool)
  await glob({ pattern })
  await new Promise((r) => setTimeout(r, 3000))
  await glob({ pattern })
  await glob({ pattern })
  gc()
  const retainedMB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20
  const tool: Array<number> = []
  const raw: Array<number> = []
  for (let i = 0; i < Math.max(RUNS, 3); i++) {
    raw.push((await measure(anchor)).ms)
    tool.push((await measure(() => glob({ pattern }))).ms)
  }
  await glob.dispose()
  return { raw: median(raw), tool: median(tool), ratio: median(tool.map((t, i) => t / raw[i]!)), retainedMB }
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  if (spawnSync("rg", ["--version"]).status !== 0) throw new Error("rg is not installed: the benchmark compares against it")
  const reused = existsSync(join(TREE, "complete.json"))
  if (!reused) generate()
  const meta = JSON.parse(readFileSync(join(TREE, "complete.json"), "utf8")) as { files: number; generatedMs: number }
  const levelDir = (level: number) => join(TREE, ...Array.from({ length: level + 1 }, (_, i) => `L${i}`))
  const sizes = [{ files: 50_000, dir: levelDir(6) }, { files: 100_000, dir: levelDir(4) }, { files: 200_000, dir: levelDir(0) }]
  const big = levelDir(0)
  const out: Array<string> = []
  const log = (line = "") => {
    out.push(line)
    console.log(line)
  }

  log(`${machine()}; rg ${/ripgrep (\S+)/.exec(spawnSync("rg", ["--version"]).stdout.toString())?.[1]}; ${process.env.UV_THREADPOOL_SIZE ?? 4} libuv threads`)
  log(`Tree: ${meta.files.toLocaleString("en")} source-like files (+3,000 gitignored) in ${TREE} (${reused ? "reused" : `generated in ${fmt(meta.generatedMs / 1000, 1)} s`}); glob: median of ${RUNS} runs after a warm-up; grep: ${GREP_RUNS} interleaved runs after a warm-up; page cache warm.`)
  log()

  // glob
  const globOnly = process.argv.includes("--glob-only")
  const grepOnly = process.argv.includes("--grep-only")
  if (!grepOnly) {
    log("### glob: newest 100 vs raw `rg --files`, a session's first call and its later calls (median of the runs, each run's ratio to the anchor run just before it)")
    log()
    log("| files | pattern | load | raw `rg --files` ms | raw `rg --files \\| xargs stat` ms | glob first call ms | first / rg --files | first's CPU / rg's | peak ΔRSS MB | glob later call ms | later / rg --files | heap kept by the index MB |")
    log("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (const size of sizes) {
      for (const pattern of size.files === 200_000 ? ["**/*.ts", "**/*"] : ["**/*.ts"]) {
        if (quick && size.files !== 200_000) continue
        const probe = loadProbe()
        const filter = pattern === "**/*" ? [] : [`--glob=${pattern}`]
        const anchor = () => rawRg(size.dir, ["--files", "--null", ...COMMON, "--hidden", ...filter, "."])
        const pipeline = `rg --files --null --hidden ${[...COMMON, ...filter].map((a) => `'${a}'`).join(" ")} . | xargs -0 -n 4096 stat --printf '%.9Y\\t%n\\0' --`
        const rawStat = await repeat(RUNS, () => rawRg(size.dir, ["-c", pipeline], "sh"))
        const first = await firstCalls(size.dir, pattern, anchor)
        const later = await laterCalls(size.dir, pattern, anchor)
        const share = probe.othersShare()
        log(`| ${size.files.toLocaleString("en")} | \`${pattern}\` | ${loadText(probe, share)} | ${fmt(first.raw, 0)} | ${fmt(rawStat.ms, 0)} | ${fmt(first.tool, 0)} | **${fmt(first.ratio)}×** | ${first.cpuRatio === undefined ? "–" : `${fmt(first.cpuRatio)}×`} | ${fmt(first.rssMB, 1)} | ${fmt(later.tool, 0)} | **${fmt(later.ratio)}×** | ${fmt(later.retainedMB, 1)} |`)
      }
    }
    log()
  }
  if (globOnly) return

  // grep
  log("### grep tool vs raw `rg --json` (same flags), 200k files")
  log()
  log("| pattern | load | matches / files | raw `rg --json` ms | raw `rg --count` ms | grep (rg layer) ms | vs rg --json | CPU vs rg --json | vs rg --count | peak Δheap MB | peak ΔRSS MB | grep after a glob in the session ms | vs rg --json | grep (portable) ms | portable / rg |")
  log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
  const grepRg = await toolRunner("rg", big, GrepTool)
  const session = await indexedSession(big)
  const grepPortable = grepOnly ? undefined : await toolRunner("portable", big, GrepTool)
  for (const pattern of ["NEEDLE_RARE", "FIXME\\(\\w+\\)", "TODO"]) {
    const probe = loadProbe()
    // The tool's flags: hidden files searched.
    // Interleaved: each run times the anchor, `rg --count`, the tool and the indexed session's
    // tool one right after the other, and each ratio is that run's. In blocks (every anchor run,
    // then every tool run), the machine's drift between blocks moved the rare row 0.92-1.29x.
    const jsonArgs = ["--json", "--hidden", ...COMMON, "--", pattern, "."]
    const countArgs = ["--count", "--null", "--with-filename", "--hidden", ...COMMON, "--", pattern, "."]
    let metadata: Record<string, unknown> = {}
    const runTool = async () => (metadata = ((await grepRg({ pattern })) as Tool.Result).metadata)
    const runIndexed = () => session.grep({ pattern })
    for (const warm of [() => rawRg(big, jsonArgs), () => rawRg(big, countArgs), runTool, runIndexed]) await warm()
    const samples = { raw: [] as Array<Sample>, rawCount: [] as Array<Sample>, tool: [] as Array<Sample>, indexed: [] as Array<Sample> }
    for (let i = 0; i < GREP_RUNS; i++) {
      samples.raw.push(await measure(() => rawRg(big, jsonArgs)))
      samples.rawCount.push(await measure(() => rawRg(big, countArgs)))
      samples.tool.push(await measure(runTool))
      samples.indexed.push(await measure(runIndexed))
    }
    const toolRuns = perRun(samples.tool, samples.raw)!
    const toolVsJson = median(toolRuns)
    const spread = `${fmt(Math.min(...toolRuns))}–${fmt(Math.max(...toolRuns))}`
    const cpuVsJson = ratio(samples.tool, samples.raw, (s) => s.cpuMs)
    const tool = { heapMB: Math.max(...samples.tool.map((s) => s.heapMB)), rssMB: Math.max(...samples.tool.map((s) => s.rssMB)) }
    const portable = grepPortable === undefined ? undefined : await measure(() => grepPortable({ pattern }))
    const share = probe.othersShare()
    log(`| \`${pattern}\` | ${loadText(probe, share)} | ${metadata.matches} / ${metadata.files} | ${fmt(medianMs(samples.raw), 0)} | ${fmt(medianMs(samples.rawCount), 0)} | ${fmt(medianMs(samples.tool), 0)} | **${fmt(toolVsJson)}×** (runs ${spread}) | ${cpuVsJson === undefined ? "–" : `${fmt(cpuVsJson)}×`} | ${fmt(ratio(samples.tool, samples.rawCount)!)}× | ${fmt(tool.heapMB, 1)} | ${fmt(tool.rssMB, 1)} | ${fmt(medianMs(samples.indexed), 0)} | ${fmt(ratio(samples.indexed, samples.raw)!)}× | ${portable ? fmt(portable.ms, 0) : "–"} | ${portable ? `${fmt(portable.ms / medianMs(samples.tool), 1)}×` : "–"} |`)
  }
  await session.dispose()
  log()

  log("Notes: the glob tool must read the mtime of every matching file to return the newest 100 of the whole tree,")
  log("which `rg --files` does not do; `rg --files | xargs stat` shows what one stat per file costs outside Node. A")
  log("session's first glob of a directory stats rg's listing on the stat threads (one per CPU, up to 4) while rg still")
  log("lists, and answers; the session's index is then filled in the background (every directory watched, then a walk).")
  log("CPU columns: this process (all its threads) and the processes it ran, against the anchor's rg, in the same run.")
  log("The grep tool runs `rg --count` over the tree, reads the matching files' mtimes in batches, then `rg --json` on")
  log("the <= 100 files it shows; after a glob of the tree in the same session it reads the mtimes from the session's")
  log("index. Peak Δheap includes garbage not yet collected. A glob's later call is answered from the index when")
  log("nothing changed.")
  log()

  const here = dirname(fileURLToPath(import.meta.url))
  writeFileSync(join(here, "RESULTS-search.md"), `## search.bench.ts\n\n${out.join("\n")}\n`)
}

main().then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
