/**
 * Runs one shell command with hard limits:
 *
 * - its own process group (`detached`), stdin closed (`read x` sees EOF), non-interactive env;
 * - on POSIX, stdout and stderr sent into a spill file (`Truncate.capture`) through a FIFO that
 *   `cat` drains, read back by position as it grows: the bytes never pass through this process; elsewhere (or with a
 *   spill store on no disk) they are interleaved in arrival order into `Truncate.stream`. Either
 *   way only the head/tail window is kept in memory;
 * - a live preview (the last N characters) at most every `previewInterval` ms, not per chunk;
 * - timeout or abort: SIGTERM to the group, SIGKILL after the grace, then stop reading even if
 *   a detached grandchild still holds the pipe; the output read so far is kept;
 * - after the shell exits, background jobs get `exitDrain` ms to finish writing, then are killed;
 * - with a `sandbox`, the shell runs inside it (`Sandbox.wrap`): the bubblewrap sandbox gives it a
 *   PID namespace, so every process of the call (`setsid` and daemons included) ends when the
 *   shell exits or the tree is killed. Without one, a process that left the process group can
 *   survive: `escaped` reports when one still held the output after the kill, and the result never
 *   claims more than was verified.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { Bytes, Sandbox, Truncate } from "@agent-tools/core"
import { holdsFile } from "./holders.ts"
import { killTree, type Shell, signalOf } from "./shell.ts"

export class SpawnError extends Schema.TaggedError<SpawnError>()("SpawnError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export interface Preview {
  readonly chars: number
  readonly interval: number
  readonly emit: (text: string) => Effect.Effect<void>
}

export interface RunOptions {
  readonly command: string
  readonly cwd: string
  readonly shell: Shell
  readonly platform: string
  readonly env: Readonly<Record<string, string>>
  /** Hard deadline in ms. */
  readonly timeout: number
  /** SIGTERM → SIGKILL grace in ms. */
  readonly grace: number
  /** How long to read after the shell exits, in ms. */
  readonly drain: number
  readonly abort?: AbortSignal | undefined
  readonly truncation?: Truncate.Options | undefined
  readonly preview?: Preview | undefined
  /**
   * Runs the shell inside this sandbox (`shell -c command` wrapped by `Sandbox.wrap`); its per-call
   * resources are released before `run` returns. Without it the shell runs unconfined.
   */
  readonly sandbox?: { readonly service: Sandbox.Service; readonly policy: Sandbox.Policy } | undefined
}

export type Reason = "exit" | "timeout" | "aborted"

export interface RunResult {
  readonly output: Truncate.Result
  /** null when the shell died of a signal. */
  readonly exitCode: number | null
  readonly signal: string | null
  readonly reason: Reason
  /** Background processes were still writing after the shell exited; the process tree was killed. */
  readonly background: boolean
  /**
   * After the kill (timeout, abort, or background writers), something still held the output: a
   * process that left the process group (`setsid`, a daemon) and may still be running. Never
   * true in a sandbox, whose processes all end with its PID namespace.
   */
  readonly escaped: boolean
  /** Ran inside the sandbox. */
  readonly sandboxed: boolean
  readonly durationMs: number
  /** Reading the output failed part way (what was read is kept). */
  readonly readError?: string | undefined
}

/** Keeps the last `bytes` of raw output (whole chunks); decoded only when a preview is sent. */
const tailBuffer = (bytes: number) => {
  let chunks: Array<Uint8Array> = []
  let size = 0
  let dirty = false
  let cut = false
  return {
    push(chunk: Uint8Array) {
      chunks.push(chunk)
      size += chunk.length
      dirty = true
      while (chunks.length > 1 && size - chunks[0]!.length >= bytes) {
        size -= chunks.shift()!.length
        cut = true
      }
    },
    /** The preview text when something arrived since the last call. */
    take(chars: number): string | undefined {
      if (!dirty) return undefined
      dirty = false
      const all = Bytes.concat(chunks, size)
      chunks = [all]
      let start = Math.max(0, all.length - chars * 4)
      while (start > 0 && start < all.length && (all[start]! & 0xc0) === 0x80) start++ // UTF-8 boundary
      const text = new TextDecoder().decode(all.subarray(start))
      return cut || start > 0 || text.length > chars ? `…\n${text.slice(-chars)}` : text
    }
  }
}

/** The chunks as one buffer; a single chunk is used as it is. */
const joined = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => chunks.length === 1 ? chunks[0]! : Bytes.concat(chunks)

const untilAborted = (signal: AbortSignal | undefined): Effect.Effect<void> =>
  signal === undefined ? Effect.never : Effect.callback<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

interface Exited {
  readonly reason: Reason
  readonly code: number | null
  readonly signal: string | null
}

/** How long the output may take to end once KILL was sent before a holder counts as escaped. */
const ESCAPE_WAIT = 200

/** The FIFO the command writes into is named by the spill file's path and this. */
const FIFO_SUFFIX = ".pipe"
/**
 * Run by `/bin/sh` with the spill file as `$0` and the command's argv after it; the shell then
 * replaces itself with the command (same pid and group). The command's stdout and stderr become a
 * FIFO that `cat` drains into the file (appending) in large writes: a command that writes in
 * small pieces pays the file system for every write, a pipe costs it far less. `cat` ignores
 * INT/TERM/HUP so that what the command says while it is being stopped still reaches the file
 * (KILL ends it with the rest of the group), and removes the FIFO's name once both ends are open
 * (a FIFO's open returns only when the other end is open too). Without `mkfifo` the command
 * writes into the file itself.
 */
const REDIRECT = `f="$0${FIFO_SUFFIX}"; if mkfifo -m 600 "$f" 2>/dev/null; then ` +
  `(trap "" INT TERM HUP; exec <"$f"; rm -f "$f"; exec cat >>"$0") & exec "$@" >"$f" 2>&1; ` +
  `else exec "$@" >>"$0" 2>&1; fi`
/** An extra pipe every process of the call inherits: its end means nothing holds the output any more. */
const SENTINEL_FD = 3
/** How long the output may take to end after the shell exits before anyone holding it is looked for. */
const SETTLE = 50
/** How often a spill file being written is read while nothing new has arrived, in ms. */
const POLL_INTERVAL = 10

export const run = Effect.fn("Bash.run")(function*(options: RunOptions) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const truncate = yield* Truncate.Truncate
  // The spawner's cleanup waits for the whole process group to vanish; where orphans are never
  // reaped (a container whose PID 1 is no init) zombies make it wait its full bounds. Our own
  // kill has sent TERM and KILL by then, so that cleanup runs in the background and the call
  // keeps its deadline.
  const scope = yield* Scope.make()
  const release = Scope.close(scope, Exit.void).pipe(Effect.forkDetach, Effect.asVoid)
  return yield* Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    if (options.abort?.aborted === true) {
      // Aborted before it started: nothing is spawned.
      const output = yield* truncate.output("", options.truncation)
      return {
        output,
        exitCode: null,
        signal: null,
        reason: "aborted",
        background: false,
        escaped: false,
        sandboxed: false,
        durationMs: 0
      } satisfies RunResult
    }
    // Wrapped whenever a sandbox is given (it prepares the call's resources and decides the
    // environment, sandboxed or not); `sandboxed` is what the wrap returned, i.e. whether the
    // program spawned below is the sandbox.
    const wrapping = options.sandbox === undefined
      ? undefined
      : yield* options.sandbox.service.wrap(
        { command: options.shell.path, args: ["-c", options.command], env: options.env },
        options.sandbox.policy
      )
    const wrapped = wrapping?.sandboxed === true ? wrapping : undefined
    const sandboxed = wrapped !== undefined
    // The sandbox's environment is whole: nothing of this process's own (its secrets) is inherited.
    const environment = wrapping?.env === undefined
      ? { env: options.env, extendEnv: true }
      : { env: wrapping.env, extendEnv: false }
    const spawnOptions = {
      cwd: options.cwd,
      ...environment,
      stdin: "ignore",
      detached: options.platform !== "win32",
      killSignal: "SIGTERM",
      forceKillAfter: Duration.millis(options.grace)
    } as const
    // Where the platform allows it, the output goes straight into a spill file (the kernel moves
    // the bytes); otherwise through pipes into `Truncate.stream`.
    const capture = options.platform === "win32" || options.shell.kind !== "posix" || truncate.capture === undefined
      ? undefined
      : yield* truncate.capture(options.truncation, options.preview?.chars ?? 0).pipe(Scope.provide(scope))
    if (capture !== undefined) {
      // `cat` removes the FIFO once open; a call killed before that would leave it behind.
      const fs = yield* FileSystem.FileSystem
      yield* Scope.addFinalizer(scope, Effect.ignore(fs.remove(capture.path + FIFO_SUFFIX, { force: true })))
    }
    const command = capture !== undefined
      ? ChildProcess.make(
        "/bin/sh",
        ["-c", REDIRECT, capture.path, ...(wrapped === undefined ? [options.shell.path, "-c", options.command] : [wrapped.command, ...wrapped.args])],
        { ...spawnOptions, additionalFds: { [`fd${SENTINEL_FD}`]: { type: "output" } } }
      )
      : wrapped !== undefined
      ? ChildProcess.make(wrapped.command, wrapped.args, spawnOptions)
      : ChildProcess.make(options.command, { ...spawnOptions, shell: options.shell.path })
    const handle = yield* spawner.spawn(command).pipe(
      Scope.provide(scope),
      Effect.mapError((cause) => new SpawnError({ message: cause.message, cause }))
    )
    const kill = killTree(handle, options.platform, options.grace)
    /**
     * With a spill file, what still holds the watched pipe holds the output only if it has the file
     * or its FIFO open (after the kill, `cat` is gone and a process that escaped holds the FIFO).
     */
    const outputReleased = capture !== undefined && options.platform === "linux"
      ? Effect.map(holdsFile(capture.path, [FIFO_SUFFIX, `${FIFO_SUFFIX} (deleted)`]), (held) => !held)
      : Effect.succeed(false)
    /**
     * Kills the tree; waits until KILL has been sent, then briefly for the output to end. True
     * when it did not end: a process outside the group still holds it.
     */
    const terminate = (collector: Fiber.Fiber<unknown>) =>
      Effect.gen(function*() {
        const killing = yield* Effect.forkDetach(kill)
        yield* Fiber.await(killing).pipe(Effect.timeoutOption(Duration.millis(options.grace + 100)))
        const ended = yield* Fiber.await(collector).pipe(Effect.timeoutOption(Duration.millis(ESCAPE_WAIT)))
        return Option.isNone(ended) && !(yield* outputReleased)
      })

    const stop = yield* Deferred.make<void>()
    let readError: string | undefined
    const onReadError = (e: PlatformError) =>
      Effect.sync(() => {
        readError = e.message
      })
    let collector: Fiber.Fiber<unknown>
    let result: Effect.Effect<Truncate.Result>
    if (capture !== undefined) {
      // The output ends when every holder of the sentinel pipe (inherited by the whole tree, like
      // the output) has closed it. The stdout/stderr pipes carry only what the redirecting shell
      // itself says (it could not open the file) or what a stand-in spawner prints.
      const piped = handle.all.pipe(Stream.runForEach((bytes) => capture.append(bytes)), Effect.catch(onReadError))
      const held = handle.getOutputFd(SENTINEL_FD).pipe(Stream.runDrain, Effect.catch(onReadError))
      collector = yield* Effect.all([piped, held], { concurrency: 2, discard: true }).pipe(
        Effect.raceFirst(Deferred.await(stop)),
        Effect.forkIn(scope)
      )
      // Reads (and counts) as the file grows; a poll in progress finishes before the interrupt.
      const follower = yield* Effect.uninterruptible(capture.poll).pipe(
        Effect.repeat(Schedule.spaced(Duration.millis(POLL_INTERVAL))),
        Effect.forkIn(scope)
      )
      result = Effect.gen(function*() {
        yield* Fiber.interrupt(follower)
        const r = yield* capture.finish
        readError ??= capture.readError()
        return r
      })
      if (options.preview !== undefined) {
        const { chars, emit, interval } = options.preview
        yield* Effect.suspend(() => {
          const text = capture.preview(chars)
          return text === undefined ? Effect.void : emit(text)
        }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(interval))), Effect.forkIn(scope))
      }
    } else {
      const preview = tailBuffer((options.preview?.chars ?? 1) * 4)
      const output = handle.all.pipe(
        // One buffer per pull: what piled up while the last chunk was spilled is written at once,
        // so the spill keeps pace with the pipe (fewer, larger writes).
        Stream.mapArray((batch) => {
          const merged = joined(batch)
          preview.push(merged)
          return [merged] as const
        }),
        Stream.catch((e) => {
          readError = e.message
          return Stream.empty
        }),
        Stream.interruptWhen(Deferred.await(stop))
      )
      const streamed = yield* truncate.stream(output, options.truncation).pipe(Effect.forkIn(scope))
      collector = streamed
      result = Fiber.join(streamed)
      if (options.preview !== undefined) {
        const { chars, emit, interval } = options.preview
        yield* Effect.suspend(() => {
          const text = preview.take(chars)
          return text === undefined ? Effect.void : emit(text)
        }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(interval))), Effect.forkIn(scope))
      }
    }

    const exited: Effect.Effect<Exited> = handle.exitCode.pipe(
      Effect.map((code): Exited => ({ reason: "exit", code: Number(code), signal: null })),
      Effect.catch((e) => Effect.succeed<Exited>({ reason: "exit", code: null, signal: signalOf(e) }))
    )
    const outcome = yield* Effect.raceAll([
      exited,
      Effect.sleep(Duration.millis(options.timeout)).pipe(Effect.as<Exited>({ reason: "timeout", code: null, signal: null })),
      untilAborted(options.abort).pipe(Effect.as<Exited>({ reason: "aborted", code: null, signal: null }))
    ]).pipe(Effect.onInterrupt(() => kill))

    let background = false
    let escaped = false
    let final = outcome
    if (outcome.reason === "exit") {
      // Normally EOF follows the exit at once; a background job holding the output gets `drain` ms.
      const settled = Fiber.await(collector).pipe(Effect.timeoutOption(Duration.millis(Math.min(options.drain, SETTLE))))
      let drained: Option.Option<unknown> = yield* settled
      if (Option.isNone(drained) && (yield* outputReleased)) drained = Option.some(undefined)
      if (Option.isNone(drained)) {
        drained = yield* Fiber.await(collector).pipe(Effect.timeoutOption(Duration.millis(Math.max(0, options.drain - SETTLE))))
      }
      if (Option.isNone(drained)) {
        background = true
        escaped = yield* terminate(collector)
      }
    } else {
      // Output keeps being read while the tree dies: a TERM handler's last words count too.
      escaped = yield* terminate(collector)
      const after = yield* exited.pipe(Effect.timeoutOption(Duration.millis(50)))
      final = { ...outcome, signal: Option.match(after, { onNone: () => null, onSome: (e) => e.signal }) }
    }
    yield* Deferred.succeed(stop, undefined)
    const output = yield* result
    const ended = yield* Clock.currentTimeMillis
    return {
      output,
      exitCode: final.code,
      signal: final.signal,
      reason: final.reason,
      background,
      escaped,
      sandboxed,
      durationMs: ended - started,
      readError
    } satisfies RunResult
  }).pipe(Effect.scoped, Effect.ensuring(release))
})
