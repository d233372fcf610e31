/**
 * A fake `ChildProcessSpawner` whose processes play a script: output chunks (optionally delayed with
 * `Effect.sleep`, so `TestClock` drives them), an exit code, or a hang until killed. Every spawn is
 * recorded (command, args, cwd, env, stdin, signals) so tests can assert on what a tool ran.
 *
 * Behaviour mirrors `NodeChildProcessSpawner` where tools can observe it: a process killed by a
 * signal makes `exitCode` fail with "Process interrupted due to receipt of signal: 'SIGTERM'";
 * closing the spawn's scope kills a process that is still running (with the command's
 * `killSignal`/`forceKillAfter`); an unknown command fails `spawn` with NotFound (ENOENT).
 *
 * @example
 * ```ts
 * const layer = FakeSpawner.layer({
 *   "git status": { stdout: "nothing to commit\n" },
 *   "rg": (cmd) => ({ stdout: `a.ts:1:${cmd.args.at(-2)}\n`, exitCode: 0 }),
 *   "sleep 100": { hang: true, ignore: ["SIGTERM"] }
 * })
 * // later: const calls = yield* FakeSpawner.spawned  → [{ line: "git status", cwd: "/ws", … }]
 * ```
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import type * as Cause from "effect/Cause"
import * as PlatformError from "effect/PlatformError"
import { ChildProcess, ChildProcessSpawner, CommandLine } from "effect/process"

/** One piece of output. `delay` is waited (TestClock-driven) before it is written. */
export interface Chunk {
  readonly stream?: "stdout" | "stderr" | undefined
  readonly data: string | Uint8Array
  readonly delay?: Duration.Input | undefined
}

/** What a process does. */
export interface Reply {
  /** Written first, all at once. */
  readonly stdout?: string | Uint8Array | undefined
  readonly stderr?: string | Uint8Array | undefined
  /** Then these, in order, each after its delay (interleave stdout/stderr, stream slowly). */
  readonly chunks?: ReadonlyArray<Chunk> | undefined
  /** Waited after the output, before exiting. */
  readonly delay?: Duration.Input | undefined
  readonly exitCode?: number | undefined
  /** Never exits by itself: only a kill (or the end of its scope) stops it. */
  readonly hang?: boolean | undefined
  /**
   * Signals the process ignores (SIGKILL cannot be ignored): tests escalation via `forceKillAfter`.
   * As with the real spawner, a kill without `forceKillAfter` then waits for ever.
   */
  readonly ignore?: ReadonlyArray<ChildProcess.Signal> | undefined
}

/** A recorded spawn. Piped commands are one spawn whose `pipeline` lists every stage. */
export interface Spawned {
  readonly pid: number
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The command line as `CommandLine.display` renders it; stages joined with " | ". */
  readonly line: string
  readonly cwd: string | undefined
  readonly env: Readonly<Record<string, string>> | undefined
  readonly shell: boolean | string | undefined
  readonly pipeline: ReadonlyArray<{ readonly command: string; readonly args: ReadonlyArray<string> }>
  /** Everything written to the process's stdin so far, decoded as UTF-8. */
  readonly stdin: string
  /** Signals sent, in order. */
  readonly signals: ReadonlyArray<ChildProcess.Signal>
  /** undefined while running; null when it died of a signal. */
  readonly exitCode: number | null | undefined
}

/** Either a function of the spawn, or replies keyed by the full command line or by the bare command. */
export type Script =
  | ((spawned: Spawned) => Reply | undefined)
  | Readonly<Record<string, Reply | ((spawned: Spawned) => Reply)>>

/** What the fake recorded; provided next to ChildProcessSpawner by `layer`. */
export class FakeSpawner extends Context.Service<FakeSpawner, {
  readonly spawned: Effect.Effect<ReadonlyArray<Spawned>>
}>()("@agent-tools/testing/FakeSpawner") {}

/** The recorded spawns so far, oldest first. */
export const spawned: Effect.Effect<ReadonlyArray<Spawned>, never, FakeSpawner> = FakeSpawner.use((f) => f.spawned)

const SIGNAL_NUMBERS: Partial<Record<ChildProcess.Signal, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 }
const encoder = new TextEncoder()
const bytes = (data: string | Uint8Array) => (typeof data === "string" ? encoder.encode(data) : data)
const word = (w: string | Redacted.Redacted<string>) => (Redacted.isRedacted(w) ? Redacted.value(w) : w)

const flatten = (cmd: ChildProcess.Command): Array<ChildProcess.StandardCommand> =>
  cmd._tag === "StandardCommand" ? [cmd] : [...flatten(cmd.left), ...flatten(cmd.right)]

const lookup = (script: Script, s: Spawned): Reply | undefined => {
  if (typeof script === "function") return script(s)
  const entry = script[s.line] ?? script[s.command]
  return typeof entry === "function" ? entry(s) : entry
}

/** Recorded state of one process; `snapshot` freezes it for tests. */
interface Record_ {
  readonly base: Omit<Spawned, "stdin" | "signals" | "exitCode">
  stdin: Uint8Array
  readonly signals: Array<ChildProcess.Signal>
  exitCode: number | null | undefined
}
const snapshot = (r: Record_): Spawned => ({
  ...r.base,
  stdin: new TextDecoder().decode(r.stdin),
  signals: [...r.signals],
  exitCode: r.exitCode
})

/** Builds the fake spawner and its recorder. */
export const make = (script: Script) =>
  Effect.sync(() => {
    const records: Array<Record_> = []
    let nextPid = 1000

    const spawn = (command: ChildProcess.Command) =>
      Effect.gen(function*() {
        const stages = flatten(command)
        const first = stages[0]!
        const options = stages.at(-1)!.options
        const env = first.options.env === undefined ? undefined : Object.fromEntries(
          Object.entries(first.options.env).flatMap(([k, v]) => (v === undefined ? [] : [[k, word(v)] as const]))
        )
        const pipeline = stages.map((c) => ({ command: c.command, args: c.args.map(word) }))
        const line = stages.map((c) => CommandLine.display([c.command, ...c.args])).join(" | ")
        const record: Record_ = {
          base: {
            pid: nextPid++, command: first.command, args: pipeline[0]!.args, line, cwd: first.options.cwd, env,
            shell: first.options.shell, pipeline
          },
          stdin: new Uint8Array(0),
          signals: [],
          exitCode: undefined
        }
        const reply = lookup(script, snapshot(record))
        if (reply === undefined) {
          return yield* Effect.fail(PlatformError.systemError({
            _tag: "NotFound", module: "ChildProcess", method: "spawn", pathOrDescriptor: line,
            cause: Object.assign(new Error(`spawn ${first.command} ENOENT`), { code: "ENOENT" })
          }))
        }
        records.push(record)

        const appendStdin = (chunk: Uint8Array) =>
          Effect.sync(() => {
            const next = new Uint8Array(record.stdin.length + chunk.length)
            next.set(record.stdin)
            next.set(chunk, record.stdin.length)
            record.stdin = next
          })
        const out = yield* Queue.unbounded<Uint8Array, Cause.Done>()
        const err = yield* Queue.unbounded<Uint8Array, Cause.Done>()
        const all = yield* Queue.unbounded<Uint8Array, Cause.Done>()
        const exited = yield* Deferred.make<number | null>()
        const ignored = (stream: "stdout" | "stderr") => {
          const o = stream === "stdout" ? options.stdout : options.stderr
          return o === "ignore" || (typeof o === "object" && o !== null && "stream" in o && o.stream === "ignore")
        }
        const emit = (stream: "stdout" | "stderr", data: string | Uint8Array) =>
          Effect.gen(function*() {
            if (ignored(stream)) return
            const chunk = bytes(data)
            if (chunk.length === 0) return
            yield* Queue.offer(stream === "stdout" ? out : err, chunk)
            yield* Queue.offer(all, chunk)
          })
        const finish = (code: number | null) =>
          Effect.gen(function*() {
            if (record.exitCode !== undefined) return
            record.exitCode = code
            for (const q of [out, err, all]) yield* Queue.end(q)
            yield* Deferred.succeed(exited, code)
          })

        // A stdin given as a Stream in the command options is consumed like a real pipe would be.
        const stdinOption = first.options.stdin
        const stdinStream = Stream.isStream(stdinOption)
          ? stdinOption
          : typeof stdinOption === "object" && Stream.isStream(stdinOption.stream)
          ? stdinOption.stream
          : undefined

        const life = Effect.gen(function*() {
          if (stdinStream !== undefined) yield* Stream.runForEach(stdinStream, appendStdin).pipe(Effect.ignore)
          if (reply.stdout !== undefined) yield* emit("stdout", reply.stdout)
          if (reply.stderr !== undefined) yield* emit("stderr", reply.stderr)
          for (const chunk of reply.chunks ?? []) {
            if (chunk.delay !== undefined) yield* Effect.sleep(chunk.delay)
            yield* emit(chunk.stream ?? "stdout", chunk.data)
          }
          if (reply.delay !== undefined) yield* Effect.sleep(reply.delay)
          if (reply.hang === true) return yield* Effect.never
          yield* finish(reply.exitCode ?? 0)
        })
        const scope = yield* Scope.Scope
        const fiber = yield* Effect.forkIn(life, scope)

        const die = (signal: ChildProcess.Signal) =>
          Fiber.interrupt(fiber).pipe(Effect.andThen(finish(null)), Effect.as(SIGNAL_NUMBERS[signal] ?? 15))
        const signal = (sig: ChildProcess.Signal) =>
          Effect.suspend(() => {
            record.signals.push(sig)
            return sig !== "SIGKILL" && reply.ignore?.includes(sig) === true ? Effect.void : Effect.asVoid(die(sig))
          })
        const kill = (opts?: ChildProcess.KillOptions) =>
          Effect.gen(function*() {
            if (record.exitCode !== undefined) return
            yield* signal(opts?.killSignal ?? "SIGTERM")
            if (opts?.forceKillAfter === undefined) return yield* Deferred.await(exited).pipe(Effect.asVoid)
            const done = yield* Deferred.await(exited).pipe(Effect.timeoutOption(opts.forceKillAfter))
            if (done._tag === "None") yield* signal("SIGKILL")
          })
        // Like the real spawner: the end of the scope stops a process that is still running.
        yield* Effect.addFinalizer(() => kill(options))

        const exitCode = Effect.flatMap(Deferred.await(exited), (code) =>
          code === null
            ? Effect.fail(PlatformError.systemError({
              _tag: "Unknown", module: "ChildProcess", method: "exitCode", pathOrDescriptor: line,
              cause: new Error(`Process interrupted due to receipt of signal: '${record.signals.at(-1) ?? "SIGTERM"}'`)
            }))
            : Effect.succeed(ChildProcessSpawner.ExitCode(code)))

        return ChildProcessSpawner.makeHandle({
          pid: ChildProcessSpawner.ProcessId(record.base.pid),
          exitCode,
          isRunning: Effect.map(Deferred.isDone(exited), (done) => !done),
          kill,
          stdin: Sink.forEach(appendStdin),
          stdout: Stream.fromQueue(out),
          stderr: Stream.fromQueue(err),
          all: Stream.fromQueue(all),
          getInputFd: () => Sink.drain,
          getOutputFd: () => Stream.empty,
          unref: Effect.succeed(Effect.void)
        })
      })

    return {
      spawner: ChildProcessSpawner.make(spawn),
      recorder: FakeSpawner.of({ spawned: Effect.sync(() => records.map(snapshot)) })
    }
  })

/** ChildProcessSpawner that plays `script`, plus the FakeSpawner recorder. */
export const layer = (script: Script): Layer.Layer<ChildProcessSpawner.ChildProcessSpawner | FakeSpawner> =>
  Layer.effectContext(
    Effect.map(make(script), ({ recorder, spawner }) =>
      Context.make(ChildProcessSpawner.ChildProcessSpawner, spawner).pipe(Context.add(FakeSpawner, recorder)))
  )

/** Convenience: a process that prints `stdout` and exits with `exitCode` (default 0). */
export const reply = (stdout: string, exitCode = 0): Reply => ({ stdout, exitCode })
