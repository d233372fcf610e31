/**
 * Input-to-echo round trip on a terminal: a line written to `cat` running on a pseudo-terminal
 * (through `NodeTerminal`, as a terminal job's input and output go), timed until `cat` has printed
 * it back; against the same round trip through a plain pipe to `cat` (Node's child_process), the
 * two interleaved in the same process so both see the same load. A third column, node-pty alone
 * (no emulator, no queue, no Effect), shows what of the difference is the terminal itself. The terminal's own echo is off
 * (`stty -echo`), so what comes back is `cat`'s copy, not the line discipline's.
 *
 *   ./node_modules/.bin/node --conditions=agent-tools-source bench/terminal.bench.ts [--runs=3] [--trips=200]
 */
import { spawn } from "node:child_process"
import { Effect, Exit, Scope, Stream } from "effect"
import { NodeTerminal } from "@agent-tools/node"
import { loadProbe, loadText } from "./lib/load.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback)
const runs = Math.max(3, arg("runs", 3))
const trips = arg("trips", 200)
const WARMUP = 20

/** Something that echoes what it is sent: `send` a line, resolves when it came back. */
interface Echo {
  readonly roundTrip: (line: string) => Promise<number>
  readonly close: () => Promise<void>
}

/** Resolves waiters once the text received so far contains their marker. */
const receiver = () => {
  let text = ""
  let waiting: { readonly marker: string; readonly resolve: () => void } | undefined
  return {
    push: (chunk: string) => {
      text += chunk
      if (waiting !== undefined && text.includes(waiting.marker)) {
        const w = waiting
        waiting = undefined
        text = ""
        w.resolve()
      }
    },
    wait: (marker: string) =>
      new Promise<void>((resolve) => {
        if (text.includes(marker)) {
          text = ""
          resolve()
        } else waiting = { marker, resolve }
      })
  }
}

const pipeEcho = (): Echo => {
  const child = spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] })
  const r = receiver()
  child.stdout.setEncoding("utf8").on("data", r.push)
  return {
    roundTrip: async (line) => {
      const t0 = performance.now()
      const back = r.wait(line)
      child.stdin.write(`${line}\n`)
      await back
      return performance.now() - t0
    },
    close: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve())
        child.stdin.end()
      })
  }
}

/** `cat` on node-pty directly: the floor of the terminal path. */
const rawPtyEcho = async (): Promise<Echo> => {
  const { spawn: spawnPty } = await NodeTerminal.loadModules()
  const pty = spawnPty("sh", ["-c", "stty -echo; echo ready; exec cat"], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    cols: 80,
    rows: 24
  })
  const r = receiver()
  const ready = r.wait("ready")
  pty.onData(r.push)
  await ready
  return {
    roundTrip: async (line) => {
      const t0 = performance.now()
      const back = r.wait(line)
      pty.write(`${line}\r`)
      await back
      return performance.now() - t0
    },
    close: () =>
      new Promise((resolve) => {
        pty.onExit(() => resolve())
        pty.kill("SIGKILL")
      })
  }
}

const terminalEcho = async (): Promise<Echo> => {
  const terminals = NodeTerminal.make()
  const status = await Effect.runPromise(terminals.available)
  if (!status.ok) throw new Error(status.reason)
  const r = receiver()
  const ready = r.wait("ready")
  // The terminal lives in a scope of its own across the round trips; closing it kills `cat`.
  const scope = await Effect.runPromise(Scope.make())
  const proc = await Effect.runPromise(Effect.gen(function*() {
    const proc = yield* terminals.spawn({
      command: "sh",
      args: ["-c", "stty -echo; echo ready; exec cat"],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      cols: 80,
      rows: 24
    })
    const decoder = new TextDecoder()
    yield* Stream.runForEach(proc.output, (chunk) => Effect.sync(() => r.push(decoder.decode(chunk, { stream: true })))).pipe(
      Effect.forkScoped
    )
    return proc
  }).pipe(Scope.provide(scope)))
  await ready
  return {
    roundTrip: async (line) => {
      const t0 = performance.now()
      const back = r.wait(line)
      await Effect.runPromise(proc.write(`${line}\r`))
      await back
      return performance.now() - t0
    },
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const main = async () => {
  console.log(`${machine()}; ${runs} runs of ${trips} round trips each (after ${WARMUP} warm-up), terminal and pipe interleaved\n`)
  console.log("| run | load | terminal median µs | pipe median µs | ratio | node-pty alone µs |")
  console.log("|---|---|---|---|---|---|")
  const ratios: Array<number> = []
  const terminalMedians: Array<number> = []
  const pipeMedians: Array<number> = []
  for (let run = 1; run <= runs; run++) {
    const terminal = await terminalEcho()
    const pipe = pipeEcho()
    const raw = await rawPtyEcho()
    for (let i = 0; i < WARMUP; i++) {
      await terminal.roundTrip(`warm-${run}-${i}`)
      await pipe.roundTrip(`warm-${run}-${i}`)
      await raw.roundTrip(`warm-${run}-${i}`)
    }
    const probe = loadProbe()
    const onTerminal: Array<number> = []
    const onPipe: Array<number> = []
    const onRaw: Array<number> = []
    for (let i = 0; i < trips; i++) {
      onTerminal.push(await terminal.roundTrip(`line-${run}-${i}-end`))
      onPipe.push(await pipe.roundTrip(`line-${run}-${i}-end`))
      onRaw.push(await raw.roundTrip(`line-${run}-${i}-end`))
    }
    const share = probe.othersShare()
    await terminal.close()
    await pipe.close()
    await raw.close()
    const t = median(onTerminal)
    const p = median(onPipe)
    terminalMedians.push(t)
    pipeMedians.push(p)
    ratios.push(t / p)
    console.log(`| ${run} | ${loadText(probe, share)} | ${fmt(t * 1000, 0)} | ${fmt(p * 1000, 0)} | ${fmt(t / p)}× | ${fmt(median(onRaw) * 1000, 0)} |`)
  }
  console.log(
    `\ninput-to-echo round trip: terminal **${fmt(median(terminalMedians) * 1000, 0)} µs**, pipe ${
      fmt(median(pipeMedians) * 1000, 0)
    } µs: **${fmt(median(ratios))}×** (median of ${runs} runs)`
  )
}

main().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
