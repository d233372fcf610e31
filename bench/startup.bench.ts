/**
 * Start-up of a new process, against `node -e 0` measured in the same run (the anchor): each
 * scenario is a fresh Node process, run in turn with the others (interleaved, so all see the same
 * load), and the table gives medians and the ratio to the anchor's median.
 *
 * - `agent-tools --version`;
 * - `agent-tools call read '{"filePath":"x"}'` in a workspace holding `x` (the whole process);
 * - `agent-tools mcp`: from the spawn until the answer to `initialize` arrives;
 * - registry ready: a plain .mjs importing @agent-tools/runtime, building its layer and listing the
 *   tools, timed from its first line (the process's own start-up is the anchor's); beside it, in
 *   the built modes, the floor under it: a script importing only the modules of effect and
 *   @effect/platform-node that the packages' bundles import, and nothing of ours.
 *
 * `built` runs what users install (the bundled bin and the packages' dist: run `pnpm run build`
 * first) with a cold compile cache (the first start after an install), `built, warm cache` the same
 * with the cache the earlier runs left (every later start); `source` runs the workspace's
 * TypeScript sources (`--conditions=agent-tools-source`), the dev loop.
 * CPU is the process's user + system time, children included: less sensitive to load than wall time.
 *
 *   node bench/startup.bench.ts [--runs=7] [--mode=built|source|both]
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { cpuCount, loadAverage, otherCpuShare } from "./lib/load.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, "..")
const BIN = join(repo, "packages", "cli", "bin", "agent-tools.js")
const READY = join(here, "lib", "registry-ready.mjs")
const FLOOR = join(here, "lib", "effect-floor.mjs")
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1]
const RUNS = Number(arg("runs") ?? 7)
type Mode = "built" | "built, warm cache" | "source"
const MODES: ReadonlyArray<Mode> = arg("mode") === "built"
  ? ["built", "built, warm cache"]
  : arg("mode") === "source"
  ? ["source"]
  : ["built", "built, warm cache", "source"]

const BUILT = [join(repo, "packages", "cli", "dist", "bundle", "bin.cjs"), join(repo, "packages", "node", "dist", "index.bundle.js")]
if (MODES.includes("built") && !BUILT.every(existsSync)) {
  console.error(`the built packages are missing (${BUILT.filter((f) => !existsSync(f)).join(", ")}): run \`pnpm run build\` first`)
  process.exit(2)
}

/**
 * The modules of effect and @effect/platform-node that the built packages import (bare specifiers,
 * as a user's process resolves them): importing only these is the floor under "registry ready".
 */
const effectSpecifiers = (): Array<string> => {
  const specifiers = new Set<string>()
  for (const pkg of ["core", "tools", "node", "runtime"]) {
    const dist = join(repo, "packages", pkg, "dist")
    const files = [join(dist, "index.bundle.js"), ...(existsSync(join(dist, "chunks")) ? readdirSync(join(dist, "chunks")).map((f) => join(dist, "chunks", f)) : [])]
    for (const file of files.filter((f) => f.endsWith(".js") && existsSync(f))) {
      for (const m of readFileSync(file, "utf8").matchAll(/(?:from |import\()"((?:effect|@effect\/platform-node)(?:\/[^"]*)?)"/g)) specifiers.add(m[1]!)
    }
  }
  return [...specifiers].sort()
}
const FLOOR_SPECIFIERS = MODES.includes("built") ? effectSpecifiers() : []

const ws = mkdtempSync(join(tmpdir(), "agent-tools-startup-bench-"))
writeFileSync(join(ws, "x"), "hello\n")
// The bin keeps V8's compiled code in a compile cache (NODE_COMPILE_CACHE points it into the temp
// workspace here): "built" and "source" clear it before each run (a first start, as after an
// install), "built, warm cache" keeps its own between runs (every later start).
const CACHES: Record<Mode | "anchor", string> = {
  anchor: join(ws, ".cache-anchor"),
  built: join(ws, ".cache-cold"),
  "built, warm cache": join(ws, ".cache-warm"),
  source: join(ws, ".cache-source")
}
let current: Mode | "anchor" = "anchor"
const envOf = () => ({ ...process.env, NODE_COMPILE_CACHE: CACHES[current] })

interface Sample {
  readonly wall: number
  readonly cpu: number
}

/** Children's CPU time (ms) of this process so far, waited-for children only (Linux). */
const childCpu = (): number => {
  const stat = readFileSync("/proc/self/stat", "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number)
  return (fields[13]! + fields[14]!) * 10 // cutime + cstime, in 10 ms jiffies
}

const clearCache = () => {
  if (current !== "built, warm cache") rmSync(CACHES[current], { recursive: true, force: true })
}

const run = (args: ReadonlyArray<string>, expect: (stdout: string) => boolean): Sample => {
  clearCache()
  const cpu0 = childCpu()
  const t0 = performance.now()
  const r = spawnSync(process.execPath, args, { cwd: ws, env: envOf(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  const wall = performance.now() - t0
  if (r.status !== 0 || !expect(r.stdout)) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 500)}`)
  return { wall, cpu: childCpu() - cpu0 }
}

/** Spawns `agent-tools mcp`, sends `initialize` at once, and times the answer from the spawn. */
const mcpInitialize = (conditions: ReadonlyArray<string>): Promise<Sample> =>
  new Promise((resolve, reject) => {
    clearCache()
    const cpu0 = childCpu()
    const t0 = performance.now()
    const child = spawn(process.execPath, [...conditions, BIN, "mcp", "--cwd", ws], { env: envOf(), stdio: ["pipe", "pipe", "pipe"] })
    let answered: number | undefined
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (answered === undefined && out.includes("\"id\":1")) {
        answered = performance.now() - t0
        child.stdin.end()
      }
    })
    child.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString("utf8")))
    child.on("error", reject)
    // The CPU of a child is counted once it has been waited for: after its exit.
    child.on("exit", (code) =>
      answered === undefined
        ? reject(new Error(`mcp exited ${code} without answering: ${out.slice(0, 300)} ${err.slice(0, 500)}`))
        : resolve({ wall: answered, cpu: childCpu() - cpu0 })
    )
    child.stdin.write(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "startup-bench", version: "0" } }
    }) + "\n")
  })

/** The registry script's own timing (from its first line); CPU is the whole process's. */
const registryReady = (conditions: ReadonlyArray<string>): Sample & { readonly sinceStart: number; readonly imported: number } => {
  let printed = ""
  const sample = run([...conditions, READY, ws], (stdout) => (printed = stdout).includes("\"ready\""))
  const timing = JSON.parse(printed) as { ready: number; sinceStart: number; imported: number }
  return { wall: timing.ready, cpu: sample.cpu, sinceStart: timing.sinceStart, imported: timing.imported }
}

type Scenario = "node -e 0 (anchor)" | "--version" | "call read" | "mcp initialize" | "registry ready"
const samples = new Map<string, Array<Sample>>()
const sinceStart = new Map<string, Array<number>>()
const importing = new Map<string, Array<number>>()
const floor = new Map<string, Array<number>>()

/** The floor script's import time (from its first line). */
const effectFloor = (): number => {
  let printed = ""
  run([FLOOR, ...FLOOR_SPECIFIERS], (stdout) => (printed = stdout).includes("\"imported\""))
  return (JSON.parse(printed) as { imported: number }).imported
}
const push = (mode: string, scenario: Scenario, sample: Sample) => {
  const key = `${mode}\t${scenario}`
  samples.set(key, [...(samples.get(key) ?? []), sample])
}

if (MODES.includes("built, warm cache")) {
  // Fills the warm cache: what the first starts leave behind (the executable's first run marks its
  // bundle seen, the second writes the code cache).
  current = "built, warm cache"
  for (let i = 0; i < 2; i++) {
    run([BIN, "call", "read", `{"filePath":"x"}`], (out) => out.includes("hello"))
    await mcpInitialize([])
  }
  registryReady([])
  effectFloor()
}

const share = otherCpuShare()
const loadBefore = loadAverage()
for (let i = 0; i < RUNS; i++) {
  current = "anchor"
  push("-", "node -e 0 (anchor)", run(["-e", "0"], () => true))
  for (const mode of MODES) {
    const conditions = mode === "source" ? ["--conditions=agent-tools-source"] : []
    current = mode
    push(mode, "--version", run([...conditions, BIN, "--version"], (out) => out.startsWith("agent-tools v")))
    push(mode, "call read", run([...conditions, BIN, "call", "read", `{"filePath":"x"}`], (out) => out.includes("hello")))
    push(mode, "mcp initialize", await mcpInitialize(conditions))
    const ready = registryReady(conditions)
    push(mode, "registry ready", ready)
    sinceStart.set(mode, [...(sinceStart.get(mode) ?? []), ready.sinceStart])
    importing.set(mode, [...(importing.get(mode) ?? []), ready.imported])
    if (mode !== "source") floor.set(mode, [...(floor.get(mode) ?? []), effectFloor()])
  }
}
const others = share.stop()
const loadAfter = loadAverage()
rmSync(ws, { recursive: true, force: true })

const GOALS: Partial<Record<Scenario, (ms: number, ratio: number) => [string, boolean]>> = {
  "--version": (_, ratio) => ["≤ 2× anchor", ratio <= 2],
  "call read": (_, ratio) => ["≤ 4× anchor", ratio <= 4],
  "mcp initialize": (_, ratio) => ["≤ 4× anchor", ratio <= 4],
  "registry ready": (ms) => ["≤ 150 ms", ms <= 150]
}

const anchor = median(samples.get("-\tnode -e 0 (anchor)")!.map((s) => s.wall))
console.log(`${machine()}; ${cpuCount()} CPUs; median of ${RUNS} runs each, a fresh process per run, cold compile cache`)
console.log(
  `load average before ${loadBefore}, after ${loadAfter}; other processes used ${
    others === undefined ? "an unknown share" : `${fmt(others * 100, 0)} %`
  } of all CPUs' time during the run\n`
)
console.log("| mode | scenario | median ms | × anchor | CPU ms | min–max ms | goal | met? |")
console.log("|---|---|---|---|---|---|---|---|")
for (const [key, list] of samples) {
  const [mode, scenario] = key.split("\t") as [string, Scenario]
  const wall = list.map((s) => s.wall)
  const m = median(wall)
  const goal = GOALS[scenario]?.(m, m / anchor)
  console.log(
    `| ${mode} | ${scenario} | ${fmt(m, 1)} | ${fmt(m / anchor, 2)}× | ${fmt(median(list.map((s) => s.cpu)), 0)} | ${
      fmt(Math.min(...wall), 0)
    }–${fmt(Math.max(...wall), 0)} | ${goal?.[0] ?? ""} | ${goal === undefined ? "" : goal[1] ? "yes" : "**no**"} |`
  )
}
console.log(
  `\n| mode | registry ready: importing the packages, ms | importing only the ${FLOOR_SPECIFIERS.length} modules of effect and @effect/platform-node they import, ms | from the process's start, ms |`
)
console.log("|---|---|---|---|")
for (const [mode, list] of sinceStart) {
  const floorOf = floor.get(mode)
  console.log(`| ${mode} | ${fmt(median(importing.get(mode)!), 1)} | ${floorOf === undefined ? "" : fmt(median(floorOf), 1)} | ${fmt(median(list), 1)} |`)
}
