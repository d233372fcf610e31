/**
 * Cost of the bash permission analysis by script size: parse + analysis of generated scripts of
 * 10 KB, 100 KB and 1 MB (goal ≤ 50 ms at 100 KB, and linear: the cost per KB stays flat). The
 * tool refuses commands over `MAX_COMMAND_BYTES`, so the analysis of a command at the limit is
 * the longest it can hold the thread; the 1 MB row shows the cost keeps growing linearly past it.
 * Times are CPU time, so a machine shared with other work still gives comparable figures.
 *
 *   ./node_modules/.bin/node --expose-gc bench/bash-analysis.bench.ts [--runs=5]
 */
import { loadavg } from "node:os"
import { Effect, Layer } from "effect"
import { NodeGrammar } from "@agent-tools/node"
import { Bash } from "@agent-tools/tools"
import { describeShare, otherCpuShare } from "./lib/load.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const argv = process.argv.slice(2)
const runs = Number(argv.find((a) => a.startsWith("--runs="))?.split("=")[1] ?? 5)
const gc = () => (globalThis as { gc?: () => void }).gc?.()

/** A few lines of the kind an agent writes, numbered so no two blocks are the same. */
const block = (i: number) =>
  [
    `cd src && cat a${i}.ts | grep -n "foo bar" > ../out/${i}.txt 2>&1`,
    `if [ -f x${i} ]; then rm -f build/x${i}; else echo "$(date) missing" >> log.txt; fi`,
    `git add file${i}.ts && git commit -m 'message ${i}' || true`,
    `for f in src/*.ts; do sed -i s/a${i}/b/ "$f"; done`,
    `X=${i} npm test -- --grep thing${i} | tee out${i}.log`,
    `cp {a,b}${i}.txt dist/ && timeout 5 node scripts/check${i}.js --flag=$(cat v.txt)`,
    `cd ..`
  ].join("\n")

const script = (bytes: number) => {
  const parts: Array<string> = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const b = block(i)
    parts.push(b)
    size += b.length + 1
  }
  // Cut at a line end so the script stays valid.
  const text = parts.join("\n")
  return text.slice(0, text.lastIndexOf("\n", bytes))
}

/**
 * CPU milliseconds of the process (user + system, GC threads included) spent in `f`: on a shared,
 * loaded machine the wall clock also counts the time the process waited for a core.
 */
const time = (f: () => void): number => {
  const start = process.cpuUsage()
  f()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000
}

const main = Effect.gen(function*() {
  const parser = yield* (yield* Bash.BashParser).parser
  const options = { cwd: "/ws", home: "/home/u" }
  // Warm-up: JIT and the wasm heap, at every size measured.
  for (const bytes of [10_000, 100_000, 1_000_000]) {
    const warm = script(bytes)
    for (let i = 0; i < 2; i++) Bash.analyze(parser, warm, options)
  }

  const load = () => loadavg().map((l) => fmt(l)).join(" ")
  console.log(`${machine()}; load average before: ${load()}\n`)
  const share = otherCpuShare()
  console.log(`| script | commands | parse (median CPU ms) | parse + analysis (median CPU ms) | µs per KB | per-KB ratio vs 10 KB | goal |`)
  console.log(`|---|---|---|---|---|---|---|`)
  let basePerKb = 0
  const sizes: ReadonlyArray<readonly [string, number]> = [
    ["10 KB", 10_000],
    ["100 KB", 100_000],
    [`${Bash.MAX_COMMAND_BYTES} B (the limit)`, Bash.MAX_COMMAND_BYTES],
    ["1 MB", 1_000_000]
  ]
  for (const [label, bytes] of sizes) {
    const source = script(bytes)
    // A full collection between sizes, not before each run: its concurrent sweeping would be
    // counted in the next measurement's CPU time.
    gc()
    Bash.analyze(parser, source, options)
    const parse: Array<number> = []
    const total: Array<number> = []
    let commands = 0
    for (let i = 0; i < runs; i++) {
      parse.push(time(() => parser.withTree(source, () => undefined)))
      total.push(time(() => {
        commands = Bash.analyze(parser, source, options).commands.length
      }))
    }
    const perKb = (median(total) * 1000) / (source.length / 1000)
    if (basePerKb === 0) basePerKb = perKb
    const goal = bytes === 100_000 ? "≤ 50 ms" : ""
    console.log(
      `| ${label} | ${commands} | ${fmt(median(parse))} | **${fmt(median(total))}** | ${fmt(perKb, 0)} | ${fmt(perKb / basePerKb)}× | ${goal} |`
    )
  }

  // The bounds: refusing an oversized command, and deep nesting.
  const huge = script(1_000_000)
  const refuse: Array<number> = []
  for (let i = 0; i < runs; i++) {
    refuse.push(time(() => Effect.runSync(Effect.flip(Bash.analyzeBounded(parser, huge, options)))))
  }
  let deep = "ls"
  for (let i = 0; i < 1000; i++) deep = `echo $(${deep})`
  const nesting: Array<number> = []
  for (let i = 0; i < runs; i++) nesting.push(time(() => Effect.runSync(Effect.flip(Bash.analyzeBounded(parser, deep, options)))))
  console.log(`\n| bound | median CPU ms |`)
  console.log(`|---|---|`)
  console.log(`| 1 MB command refused (over ${Bash.MAX_COMMAND_BYTES} bytes) | ${fmt(median(refuse), 3)} |`)
  console.log(`| 1000 nested \`$(…)\`: BashAnalysisError | ${fmt(median(nesting))} |`)
  console.log(`\nload average after: ${load()}; ${describeShare(share.stop())} during the runs; median of ${runs} runs each`)
}).pipe(Effect.scoped, Effect.provide(Bash.parserLayer.pipe(Layer.provide(NodeGrammar.layer))))

await Effect.runPromise(main)
