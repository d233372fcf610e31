/**
 * Real pseudo-terminals for `Terminal` on Node: `@lydell/node-pty` (node-pty with prebuilt
 * binaries, so installing needs no compiler) opens them, and a headless xterm.js emulator is fed
 * every byte the program prints so `screen` can show what a user would see.
 *
 * Both packages are imported on the first `available` or `spawn`, not when this module loads: a
 * process that never opens a terminal pays nothing for them. Where the PTY package cannot load (no
 * prebuilt binary for the platform, an install without optional dependencies, a broken copy),
 * `available` says why and every `spawn` fails with `unavailable` and that reason.
 *
 * Output is buffered in a queue bounded by bytes: past `HIGH_WATER_BYTES` not yet taken by the
 * consumer, the pty is paused (the program blocks on its next write, as on a real terminal nobody
 * reads) and resumed once the consumer has taken it below `LOW_WATER_BYTES`. The emulator is fed
 * as the bytes arrive, so the screen is current with everything the pty delivered. A consumer
 * still that far behind when the program exits loses what the terminal held then (at most the
 * kernel's terminal buffer): node-pty stops reading 200 ms after the exit.
 */
import { closeSync, constants as fsConstants, openSync, readdirSync, readFileSync } from "node:fs"
import { constants } from "node:os"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type * as Pty from "@lydell/node-pty"
import type * as Xterm from "@xterm/headless"
import { Terminal } from "@agent-tools/core"

/** Output not yet taken by the consumer past which the pty is paused. */
export const HIGH_WATER_BYTES = 1024 * 1024
/** Buffered output under which a paused pty is resumed. */
export const LOW_WATER_BYTES = 256 * 1024
/** How long a closing scope waits for the program to end after SIGHUP/SIGTERM before SIGKILL. */
export const KILL_GRACE = Duration.seconds(2)
/** The terminal type programs see unless the environment names another. */
export const DEFAULT_TERM = "xterm-256color"

/** The two packages, as loaded. */
export interface Modules {
  readonly spawn: typeof Pty.spawn
  readonly Emulator: typeof Xterm.Terminal
}

export interface Options {
  /** How the packages are imported (default: `import()` of both); tests simulate a failed load. */
  readonly load?: (() => Promise<Modules>) | undefined
}

/** Imports both packages; a CommonJS module's exports may sit on `default` under `import()`. */
export const loadModules = async (): Promise<Modules> => {
  const [pty, xterm] = await Promise.all([import("@lydell/node-pty"), import("@xterm/headless")])
  const spawn = (pty as { spawn?: typeof Pty.spawn }).spawn ??
    (pty as unknown as { default: typeof Pty }).default.spawn
  const Emulator = (xterm as { Terminal?: typeof Xterm.Terminal }).Terminal ??
    (xterm as unknown as { default: typeof Xterm }).default.Terminal
  if (typeof spawn !== "function") throw new Error("@lydell/node-pty has no spawn function")
  if (typeof Emulator !== "function") throw new Error("@xterm/headless has no Terminal class")
  return { spawn, Emulator }
}

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** The first paragraph of a load failure, on one line: node-pty's own adds pages of advice. */
const firstParagraph = (message: string): string => message.trim().split(/\n\s*\n/)[0]!.replace(/\s+/g, " ")

/** A signal number as its name (`SIGINT`), for `Exit.signal`. */
const signalName = (signal: number): string =>
  Object.entries(constants.signals).find(([, n]) => n === signal)?.[0] ?? `signal ${signal}`

/** Sends `signal` to a process or group; one that is already gone is not an error. */
const send = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH" && (error as NodeJS.ErrnoException).code !== "EPERM") throw error
  }
}

/**
 * The processes of the session `sid` (Linux, from /proc): a job-control shell puts each of its
 * jobs in a process group of its own, all in the terminal's session, so killing the leader's group
 * alone would leave a `sleep 100 &` behind. Empty elsewhere.
 */
const sessionMembers = (sid: number): Array<number> => {
  if (process.platform !== "linux") return []
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return []
  }
  const members: Array<number> = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
      // Fields after it: state, ppid, pgrp, session.
      const session = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3])
      if (session === sid) members.push(Number(entry))
    } catch {
      // Gone meanwhile.
    }
  }
  return members
}

/**
 * Opens the terminal's other end (Linux) and keeps it open until the program's exit is reported.
 * Linux hangs the terminal up the moment the program's last descriptor of it closes, and a read
 * then fails even while the program's last output is still on its way: node-pty lost the last
 * kilobytes of most programs that print more than 4 KB and exit at once. Held open here, the
 * terminal is never hung up under the reader; node-pty reports the exit 200 ms after the process
 * ended instead of at the hang-up, having read what was left by then.
 */
const holdOtherEnd = (pty: Pty.IPty): number | undefined => {
  if (process.platform !== "linux") return undefined
  const name = (pty as unknown as { readonly ptsName?: unknown }).ptsName
  if (typeof name !== "string") return undefined
  try {
    return openSync(name, fsConstants.O_RDWR | fsConstants.O_NOCTTY)
  } catch {
    return undefined
  }
}

/** Whether `pid` runs on (Linux): a zombie or a process already dying of SIGKILL does not count. */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2)[0]
    return state !== "Z" && state !== "X" && state !== "x"
  } catch {
    return false
  }
}

/** Waits (at most `KILL_GRACE`) until none of `pids` runs: SIGKILL is delivered, not yet acted upon, when `kill` returns. */
const awaitGone = (pids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    let left = pids.filter(alive)
    while (left.length > 0) {
      yield* Effect.sleep(Duration.millis(10))
      left = left.filter(alive)
    }
  }).pipe(Effect.timeoutOption(KILL_GRACE))

/** The visible rows of the emulator, trailing blanks of each row and trailing empty rows dropped. */
const render = (emulator: Xterm.Terminal): string => {
  const buffer = emulator.buffer.active
  const rows: Array<string> = []
  for (let y = 0; y < emulator.rows; y++) {
    rows.push(buffer.getLine(buffer.baseY + y)?.translateToString(true).trimEnd() ?? "")
  }
  while (rows.length > 0 && rows[rows.length - 1] === "") rows.pop()
  return rows.join("\n")
}

const invalidSize = (cols: number, rows: number): string | undefined =>
  !Number.isInteger(cols) || cols < 1
    ? `cols must be a positive integer, got ${cols}`
    : !Number.isInteger(rows) || rows < 1
    ? `rows must be a positive integer, got ${rows}`
    : undefined

/** A `Terminal` service opening pseudo-terminals, the packages loaded on first use. */
export const make = (options: Options = {}): Terminal.Service => {
  const load = options.load ?? loadModules
  let loading: Promise<{ ok: true; modules: Modules } | { ok: false; reason: string }> | undefined
  const loaded = Effect.promise(() =>
    loading ??= load().then(
      (modules) => ({ ok: true as const, modules }),
      (error) => ({
        ok: false as const,
        reason: `pseudo-terminals are unavailable: the terminal packages could not be loaded (${firstParagraph(messageOf(error))})`
      })
    )
  ).pipe(Effect.withSpan("NodeTerminal.load"))

  const available = loaded.pipe(
    Effect.map((l) => l.ok ? { ok: true as const } : { ok: false as const, reason: l.reason }),
    Effect.withSpan("NodeTerminal.available")
  )

  const spawn = Effect.fn("NodeTerminal.spawn")(function*(spawnOptions: Terminal.SpawnOptions) {
    const l = yield* loaded
    if (!l.ok) return yield* new Terminal.TerminalError({ reason: "unavailable", message: l.reason })
    const invalid = invalidSize(spawnOptions.cols, spawnOptions.rows)
    if (invalid !== undefined) return yield* new Terminal.TerminalError({ reason: "io", message: invalid })
    const env = { TERM: DEFAULT_TERM, ...spawnOptions.env }
    const output = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const exit = Deferred.makeUnsafe<Terminal.Exit>()
    const emulator = new l.modules.Emulator({
      cols: spawnOptions.cols,
      rows: spawnOptions.rows,
      scrollback: 0,
      // The buffer `screen` reads is behind this flag in @xterm/headless 6.
      allowProposedApi: true
    })
    const pty = yield* Effect.try({
      try: () =>
        l.modules.spawn(spawnOptions.command, [...spawnOptions.args], {
          name: env.TERM,
          cols: spawnOptions.cols,
          rows: spawnOptions.rows,
          cwd: spawnOptions.cwd,
          env,
          // Bytes, not text: a multi-byte character split between two reads stays whole.
          encoding: null
        }),
      catch: (error) =>
        new Terminal.TerminalError({
          reason: "io",
          message: `cannot start ${spawnOptions.command} on a terminal: ${messageOf(error)}`,
          cause: error
        })
    }).pipe(Effect.tapError(() => Effect.sync(() => emulator.dispose())))

    let held = holdOtherEnd(pty)
    const release = () => {
      if (held === undefined) return
      try {
        closeSync(held)
      } catch {
        // Closed already.
      }
      held = undefined
    }
    let buffered = 0
    let paused = false
    let disposed = false
    let lastScreen = ""
    const onData = pty.onData((data: string | Uint8Array) => {
      const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data
      emulator.write(bytes)
      buffered += bytes.length
      Queue.offerUnsafe(output, bytes)
      if (!paused && buffered > HIGH_WATER_BYTES) {
        paused = true
        pty.pause()
      }
    })
    const taken = (bytes: Uint8Array) => {
      buffered -= bytes.length
      if (paused && buffered < LOW_WATER_BYTES && !disposed) {
        paused = false
        pty.resume()
      }
      return bytes
    }
    const pid = pty.pid
    /**
     * SIGKILL to the leader's process group and to every process of its session; the pids signalled.
     * Signalled at the exit report at the latest: a process of the session keeps the leader's pid
     * from being reused, so these signals cannot reach a stranger that got the number later.
     */
    const killSession = (): Array<number> => {
      if (process.platform === "win32") return []
      send(-pid, "SIGKILL")
      const members = sessionMembers(pid)
      for (const member of members) send(member, "SIGKILL")
      return members
    }
    // What the program left running on its terminal (a background job, a daemon that kept the
    // session) ends with it, as with a foreground command: no process outlives its job.
    let leftAtExit: ReadonlyArray<number> = []
    // node-pty reports the exit after the last of the output it read: everything printed is queued first.
    const onExit = pty.onExit(({ exitCode, signal }) => {
      release()
      leftAtExit = killSession()
      Deferred.doneUnsafe(
        exit,
        Effect.succeed(
          signal !== undefined && signal !== 0
            ? { code: null, signal: signalName(signal) }
            : { code: exitCode, signal: null }
        )
      )
      Queue.endUnsafe(output)
    })

    const signalGroup = (signal: NodeJS.Signals) => {
      if (process.platform === "win32") pty.kill(signal)
      else send(-pid, signal)
    }

    const write = Effect.fn("NodeTerminal.write")(function*(data: string) {
      if (Deferred.isDoneUnsafe(exit) || disposed) {
        return yield* new Terminal.TerminalError({ reason: "io", message: `the process ${pid} has exited: input not written` })
      }
      yield* Effect.try({
        try: () => pty.write(data),
        catch: (error) => new Terminal.TerminalError({ reason: "io", message: `cannot write to the terminal: ${messageOf(error)}`, cause: error })
      })
    })

    const resize = Effect.fn("NodeTerminal.resize")(function*(cols: number, rows: number) {
      const invalid = invalidSize(cols, rows)
      if (invalid !== undefined) return yield* new Terminal.TerminalError({ reason: "io", message: invalid })
      if (Deferred.isDoneUnsafe(exit) || disposed) {
        return yield* new Terminal.TerminalError({ reason: "io", message: `the process ${pid} has exited: not resized` })
      }
      yield* Effect.try({
        try: () => {
          pty.resize(cols, rows)
          emulator.resize(cols, rows)
        },
        catch: (error) => new Terminal.TerminalError({ reason: "io", message: `cannot resize the terminal: ${messageOf(error)}`, cause: error })
      })
    })

    // The emulator parses what it was fed in batches; an empty write's callback runs after all of it.
    const screen = Effect.suspend(() =>
      disposed
        ? Effect.succeed(lastScreen)
        : Effect.callback<string>((resume) => {
          emulator.write("", () => resume(Effect.sync(() => disposed ? lastScreen : render(emulator))))
        })
    ).pipe(Effect.withSpan("NodeTerminal.screen"))

    const kill = Effect.fn("NodeTerminal.kill")(function*(signal: string = "SIGTERM") {
      if (!(signal in constants.signals)) return yield* Effect.die(new Error(`unknown signal ${JSON.stringify(signal)}`))
      if (Deferred.isDoneUnsafe(exit)) return
      yield* Effect.sync(() => signalGroup(signal as NodeJS.Signals))
    })

    const exited = Deferred.await(exit).pipe(
      Effect.tap(() => awaitGone(leftAtExit)),
      Effect.withSpan("NodeTerminal.exited")
    )

    // As closing a terminal window does: hang up and terminate the program, then kill what is left.
    const close = Effect.gen(function*() {
      if (!Deferred.isDoneUnsafe(exit)) {
        yield* Effect.sync(() => {
          signalGroup("SIGHUP")
          signalGroup("SIGTERM")
        })
        yield* Effect.timeoutOption(Deferred.await(exit), KILL_GRACE)
      }
      // Once the exit was reported, what was left is killed already (and the pid may be reused since).
      if (!Deferred.isDoneUnsafe(exit)) {
        yield* awaitGone(yield* Effect.sync(killSession))
        yield* Effect.timeoutOption(Deferred.await(exit), KILL_GRACE)
      }
      yield* awaitGone(leftAtExit)
      yield* Effect.sync(() => {
        // What the screen showed stays readable after the emulator is gone.
        lastScreen = render(emulator)
        disposed = true
        onData.dispose()
        onExit.dispose()
        // Still running after SIGKILL (another user's process, a platform without groups): drop the pty.
        if (!Deferred.isDoneUnsafe(exit)) (pty as unknown as { destroy?: () => void }).destroy?.()
        release()
        emulator.dispose()
        Queue.endUnsafe(output)
      })
    }).pipe(Effect.withSpan("NodeTerminal.close"))
    yield* Effect.addFinalizer(() => close)

    return {
      pid,
      output: Stream.fromQueue(output).pipe(Stream.map(taken)),
      write,
      resize,
      screen,
      kill,
      exited
    } satisfies Terminal.Process
  })

  return { available, spawn }
}

/** Real pseudo-terminals (`Terminal.Terminal`), the packages loaded on first use. */
export const layer = (options: Options = {}): Layer.Layer<never> => Layer.succeed(Terminal.Terminal, make(options))
