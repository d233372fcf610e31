/**
 * The bash tool's costs:
 *
 * 1. A command printing BYTES (default 2 GiB) through the whole tool (analysis, permissions,
 *    spawn, Truncate.stream, file spill): RSS growth, throughput against `cmd > file` run by bash
 *    on the same machine, and the spill compared byte for byte (SHA-256) with that file.
 * 2. Parse + analysis of typical commands, warm (goal ≤ 1 ms).
 * 3. Cold wasm load (runtime + grammar) in fresh processes (goal ≤ 50 ms).
 *
 *   ./node_modules/.bin/node --expose-gc bench/bash.bench.ts [--bytes=2G] [--skip-big]
 */
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { createReadStream, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { NodeServices } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer, Path } from "effect"
import { Events, ModuleLoader, Permission, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { Bash } from "@agent-tools/tools"
import { fmt, machine, median, percentile } from "./lib/stats.ts"

const argv = process.argv.slice(2)
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}`))?.split("=")[1]
const sizeOf = (text: string) => {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)$/i.exec(text)
  if (m === null) throw new Error(`bad size ${text}`)
  return Math.round(Number(m[1]) * ({ "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2]!.toUpperCase()] ?? 1))
}
const gc = () => (globalThis as { gc?: () => void }).gc?.()

// ---------------------------------------------------------------------------------------------
// 3. Cold load, in a child process: `--cold=layer` times the real code path (first use of
// Bash.parserLayer's parser, after the tools package is imported); `phases` (below) times the
// same steps one by one in a bare Node process.
const coldMode = flag("cold")
if (coldMode === "layer") {
  const t0 = performance.now()
  await Effect.runPromise(Effect.scoped(Bash.BashParser.use((p) => p.parser)).pipe(Effect.provide(Bash.parserLayer)))
  console.log(JSON.stringify({ total: performance.now() - t0 }))
  process.exit(0)
}
const sha256 = (file: string) =>
  new Promise<string>((resolve, reject) => {
    const hash = createHash("sha256")
    createReadStream(file).on("data", (d) => hash.update(d)).on("end", () => resolve(hash.digest("hex"))).on("error", reject)
  })

const LINE = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore 0123"
const producer = (bytes: number) => `yes '${LINE}' | head -c ${bytes}`

// ---------------------------------------------------------------------------------------------
// 1. Big output through the tool.
const big = async (bytes: number) => {
  const base = mkdtempSync(join(tmpdir(), "bash-bench-"))
  const root = join(base, "ws")
  const spillDir = join(base, "spill")
  mkdirSync(root)
  try {
    const baselineFile = join(base, "baseline.out")
    const t0 = performance.now()
    const r = spawnSync("/bin/bash", ["-c", `${producer(bytes)} > ${baselineFile}`])
    const baselineMs = performance.now() - t0
    if (r.status !== 0) throw new Error(`baseline failed: ${r.stderr}`)

    const live = Layer.mergeAll(
      Workspace.layer({ root }),
      Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
      Truncate.layer(),
      Bash.parserLayer,
      Bash.configLayer({ home: base, maxTimeout: 3_600_000 }),
      ConfigProvider.layer(ConfigProvider.fromEnvRecord({ PATH: "/usr/bin:/bin", SHELL: "/bin/bash" }))
    ).pipe(
      Layer.provideMerge(SpillStorage.layer({ dir: spillDir, maxBytes: bytes * 2 })),
      Layer.provideMerge(Layer.mergeAll(NodeServices.layer, Path.layer, Events.layerNoop, ModuleLoader.layerMemory({})))
    )
    // Memory is measured around the big call only: the wasm parser, the layers and the first
    // spawn are one-time costs, paid by a small warm-up call first.
    let rssBefore = 0
    let rssPeak = 0
    let heapPeak = 0
    const sample = () => {
      const m = process.memoryUsage()
      rssPeak = Math.max(rssPeak, m.rss)
      heapPeak = Math.max(heapPeak, m.heapUsed)
    }
    let sampler: ReturnType<typeof setInterval> | undefined
    let t1 = 0
    const result = await Effect.runPromise(Effect.gen(function*() {
      const registry = yield* ToolRegistry.make([Bash.BashTool])
      const ctx = yield* Tool.makeContext({ sessionID: "bench" })
      yield* registry.execute("bash", { command: "echo warm-up", description: "warm up" }, ctx)
      yield* Effect.sync(() => {
        gc()
        rssBefore = rssPeak = process.memoryUsage().rss
        sampler = setInterval(sample, 50)
        t1 = performance.now()
      })
      return yield* registry.execute("bash", { command: producer(bytes), description: "print a lot", timeout: 3_600_000 }, ctx)
    }).pipe(Effect.scoped, Effect.provide(live)))
    const toolMs = performance.now() - t1
    clearInterval(sampler)
    sample()

    const spill = result.metadata.outputPath as string
    const [a, b] = await Promise.all([sha256(baselineFile), sha256(spill)])
    return {
      bytes,
      baselineMs,
      toolMs,
      rssGrowth: rssPeak - rssBefore,
      heapPeak,
      identical: a === b && statSync(spill).size === statSync(baselineFile).size,
      outputChars: result.output.length,
      exit: result.metadata.exit
    }
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Parse + analysis, warm.
const COMMANDS = [
  "git status",
  "npm run build 2>&1 | tee build.log && git add -A && git commit -m \"build: update\"",
  "cd packages/core && CI=true pnpm vitest run --reporter=dot > /tmp/test.log; echo $?",
  "find . -name '*.ts' -not -path './node_modules/*' -exec grep -l 'Effect.fn' {} \\; | xargs wc -l | sort -n | tail -5",
  "for f in $(git ls-files '*.md'); do sed -i 's/colour/color/g' \"$f\"; done"
]

const analysis = Effect.gen(function*() {
  const parser = yield* (yield* Bash.BashParser).parser
  const rows: Array<string> = []
  for (const command of COMMANDS) {
    const options = { cwd: "/ws", home: "/home/u" }
    for (let i = 0; i < 500; i++) Bash.analyze(parser, command, options)
    const times: Array<number> = []
    for (let i = 0; i < 3000; i++) {
      const t = performance.now()
      Bash.analyze(parser, command, options)
      times.push((performance.now() - t) * 1000)
    }
    rows.push(`| \`${command.replace(/\|/g, "\\|")}\` | ${command.length} | ${fmt(median(times))} | ${fmt(percentile(times, 99))} |`)
  }
  return rows
}).pipe(Effect.scoped, Effect.provide(Bash.parserLayer))

/** The steps of Bash.parserLayer's first load, timed in a bare `node -e` process. */
const phasesScript = () => {
  const require = createRequire(import.meta.resolve("@agent-tools/tools"))
  const runtime = require.resolve("web-tree-sitter/web-tree-sitter.wasm")
  const grammar = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")
  const esm = pathToFileURL(join(dirname(runtime), "web-tree-sitter.js")).href
  return `
    const t0 = performance.now()
    const ts = await import(${JSON.stringify(esm)})
    const t1 = performance.now()
    await ts.Parser.init({ locateFile: () => ${JSON.stringify(runtime)} })
    const t2 = performance.now()
    const language = await ts.Language.load(${JSON.stringify(grammar)})
    const t3 = performance.now()
    const parser = new ts.Parser()
    parser.setLanguage(language)
    parser.parse("git status && npm test")?.delete()
    const t4 = performance.now()
    console.log(JSON.stringify({ import: t1 - t0, runtime: t2 - t1, grammar: t3 - t2, firstParse: t4 - t3 }))`
}

const cold = (args: ReadonlyArray<string>, runs: number): Array<Record<string, number>> => {
  const results: Array<Record<string, number>> = []
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ["--conditions=agent-tools-source", ...args], { encoding: "utf8" })
    if (r.status !== 0) throw new Error(r.stderr)
    results.push(JSON.parse(r.stdout.trim().split("\n").at(-1)!))
  }
  return results
}

// ---------------------------------------------------------------------------------------------
const MB = 1024 * 1024
console.log(`${machine()}, ${(await import("node:os")).cpus().length} CPUs\n`)

if (!argv.includes("--skip-big")) {
  const bytes = sizeOf(flag("bytes") ?? "2G")
  const b = await big(bytes)
  const baseRate = b.bytes / MB / (b.baselineMs / 1000)
  const toolRate = b.bytes / MB / (b.toolMs / 1000)
  console.log(`### ${fmt(b.bytes / 1024 ** 3, 2)} GiB of output (\`${producer(b.bytes).slice(0, 40)}…\`)\n`)
  console.log("| measure | value | goal |")
  console.log("|---|---|---|")
  console.log(`| \`cmd > file\` (bash, baseline) | ${fmt(b.baselineMs / 1000)} s, ${fmt(baseRate, 0)} MiB/s | |`)
  console.log(`| bash tool (spill to file) | ${fmt(b.toolMs / 1000)} s, ${fmt(toolRate, 0)} MiB/s | |`)
  console.log(`| throughput ratio tool / baseline | **${fmt(toolRate / baseRate)}×** | ≥ 0.5× |`)
  console.log(`| RSS growth (peak − start) | **${fmt(b.rssGrowth / MB, 1)} MiB** | ≤ 64 MiB |`)
  console.log(`| peak JS heap used | ${fmt(b.heapPeak / MB, 1)} MiB | |`)
  console.log(`| spill byte-identical to \`cmd > file\` (SHA-256 and size) | **${b.identical ? "yes" : "NO"}** | yes |`)
  console.log(`| text returned to the model | ${b.outputChars} chars (exit ${b.exit}) | |\n`)
}

const rows = await Effect.runPromise(analysis)
console.log("### Parse + analysis, warm (3000 runs after 500 warm-up)\n")
console.log("| command | chars | median µs | p99 µs |")
console.log("|---|---|---|---|")
for (const row of rows) console.log(row)
console.log("\ngoal ≤ 1 ms (1000 µs) warm\n")

const layerRuns = cold([fileURLToPath(import.meta.url), "--cold=layer"], 7).map((r) => r.total!)
const phaseRuns = cold(["--input-type=module", "-e", phasesScript()], 7)
const phase = (k: string) => fmt(median(phaseRuns.map((r) => r[k]!)))
console.log("### Cold load (fresh process each, 7 processes)\n")
console.log("| measure | median ms | min ms | max ms |")
console.log("|---|---|---|---|")
console.log(`| first use of \`BashParser.parser\` in the bench process (JS import + wasm runtime + grammar) | **${fmt(median(layerRuns))}** | ${fmt(Math.min(...layerRuns))} | ${fmt(Math.max(...layerRuns))} |`)
for (const [k, label] of [["import", "import of web-tree-sitter (JS)"], ["runtime", "`Parser.init` (runtime wasm)"], ["grammar", "`Language.load` (tree-sitter-bash wasm)"], ["firstParse", "first parse"]] as const) {
  console.log(`| ${label} | ${phase(k)} | | |`)
}
const wasm = phaseRuns.map((r) => r.runtime! + r.grammar!)
console.log(`\nwasm load (runtime + grammar): median **${fmt(median(wasm))} ms** (goal ≤ 50 ms)`)
