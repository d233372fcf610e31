/**
 * The sandbox's cost per bash call: `echo hi` through the whole bash tool (analysis, permission,
 * wrap, spawn, output) in the bubblewrap sandbox, against the very program the sandbox's `wrap`
 * returns for that call (the launcher, bwrap and its arguments) spawned raw with `spawnSync`, and
 * against the same tool without a sandbox. The three are interleaved call by call in one process,
 * so they see the same load; the ratio tool / raw argv is the figure to compare (goal ≤ 1.2×).
 * Each round prints the load average and the share of the CPUs other processes took meanwhile.
 * Every measured call comes after a pause (`PAUSE_MS`), as an agent's calls do.
 * The platform is the runtime's (`NativeRealPath`: a real path in one system call).
 *
 *   ./node_modules/.bin/node --conditions=agent-tools-source bench/sandbox.bench.ts [--runs=40] [--rounds=3]
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { Events, ModuleLoader, Permission, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { Bubblewrap, NativeRealPath, NodeGrammar } from "@agent-tools/node"
import { Bash } from "@agent-tools/tools"
import { fmt, loadProbe, loadText, machine, median } from "./lib/stats.ts"

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback)
const runs = arg("runs", 40)
const rounds = Math.max(3, arg("rounds", 3))
const WARMUP = 5
/**
 * The pause before each measured call. An agent's calls come seconds apart, so each one finds the
 * kernel's state as idle as a cold call does: a move into a cgroup right after another one skips
 * the grace period the first waited for, so back to back the second of two calls would be measured
 * faster than any call an agent makes.
 */
const PAUSE_MS = 100
const SESSION = "bench"

const base = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-bench-")))
const root = join(base, "ws")
mkdirSync(root)

// The platform as the runtime composes it: real paths resolved by one realpath(3) call each.
const platform = Layer.mergeAll(NativeRealPath.layer.pipe(Layer.provideMerge(NodeServices.layer)), Events.layerNoop, ModuleLoader.layerMemory({}))
const services = Layer.mergeAll(
  Workspace.layer({ root }),
  Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
  Truncate.layer(),
  Bash.parserLayer.pipe(Layer.provide(NodeGrammar.layer))
).pipe(
  Layer.provideMerge(SpillStorage.layerMemory()),
  Layer.provideMerge(platform)
)

const build = ToolRegistry.make([Bash.BashTool])

interface Round {
  readonly load: string
  readonly plain: number
  readonly tool: number
  readonly raw: number
}

const program = Effect.gen(function*() {
  const plain = yield* build.pipe(Effect.provide(Sandbox.layerNone("the baseline runs without a sandbox")))
  // Built in the program's scope: the layer holds the session's network until it closes.
  const sandbox = Context.get(yield* Layer.build(Bubblewrap.layer()), Sandbox.Sandbox)
  const status = yield* sandbox.status
  if (!status.sandboxed) throw new Error(`no sandbox here: ${status.reason}`)
  const boxed = yield* build.pipe(Effect.provideService(Sandbox.Sandbox, sandbox))
  const ctx = yield* Tool.makeContext({ sessionID: SESSION })
  const args = { command: "echo hi", description: "bench" }
  const time = (registry: ToolRegistry.ToolRegistry["Service"]) =>
    Effect.gen(function*() {
      const t0 = performance.now()
      const result = yield* registry.execute("bash", args, ctx)
      if (result.output !== "hi\n") throw new Error(`unexpected output ${JSON.stringify(result.output)}`)
      return performance.now() - t0
    })
  // What the tool's wrap returns for this call: a call of local programs only (`echo`) gets the
  // network `deny`, in its session's namespace; the shell the tool runs is bash. Kept valid (its
  // cgroup and files) while the scope is open.
  const scope = yield* Scope.make()
  const wrapped = yield* sandbox.wrap(
    { command: "/bin/bash", args: ["-c", "echo hi"], env: { ...Bash.NON_INTERACTIVE_ENV } },
    { root, cwd: root, writable: [], readable: [], outside: "hidden", network: "deny", session: SESSION }
  ).pipe(Scope.provide(scope))
  const raw = () => {
    const t0 = performance.now()
    const r = spawnSync(wrapped.command, wrapped.args, { env: wrapped.env })
    if (r.status !== 0 || r.stdout.toString() !== "hi\n") throw new Error(`raw wrap exited with ${r.status}: ${r.stderr}`)
    return performance.now() - t0
  }
  for (let i = 0; i < WARMUP; i++) {
    yield* time(plain)
    yield* time(boxed)
    raw()
  }
  const out: Array<Round> = []
  for (let r = 0; r < rounds; r++) {
    const probe = loadProbe()
    const times = { plain: [] as Array<number>, tool: [] as Array<number>, raw: [] as Array<number> }
    const pause = Effect.sleep(PAUSE_MS)
    for (let i = 0; i < runs; i++) {
      yield* pause
      times.plain.push(yield* time(plain))
      yield* pause
      times.tool.push(yield* time(boxed))
      yield* pause
      times.raw.push(raw())
    }
    out.push({ load: loadText(probe, probe.othersShare()), plain: median(times.plain), tool: median(times.tool), raw: median(times.raw) })
  }
  yield* Scope.close(scope, Exit.void)
  return { rounds: out, backend: status.backend }
})

const main = async () => {
  const result = await Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(services)))
  console.log(`${machine()}; ${result.backend}; ${rounds} rounds of ${runs} interleaved calls each (after ${WARMUP} warm-up)\n`)
  console.log("| round | load | tool, no sandbox ms | tool, sandbox ms | raw wrapped argv ms | tool / raw argv | sandbox / no sandbox |")
  console.log("|---|---|---|---|---|---|---|")
  const line = (name: string, r: Round) =>
    console.log(`| ${name} | ${r.load} | ${fmt(r.plain)} | ${fmt(r.tool)} | ${fmt(r.raw)} | ${fmt(r.tool / r.raw)}× | ${fmt(r.tool / r.plain)}× |`)
  result.rounds.forEach((r, i) => line(String(i + 1), r))
  const med = (f: (r: Round) => number) => median(result.rounds.map(f))
  console.log(`| **median** |  | ${fmt(med((r) => r.plain))} | ${fmt(med((r) => r.tool))} | ${fmt(med((r) => r.raw))} | **${
    fmt(med((r) => r.tool / r.raw))
  }×** | ${fmt(med((r) => r.tool / r.plain))}× |`)
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
}).finally(() => rmSync(base, { recursive: true, force: true }))
