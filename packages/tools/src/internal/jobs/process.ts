/**
 * Starting a job's process, in the job's own scope (which also holds its sandbox resources): on a
 * pipe, its stdout and stderr redirected straight into a spill file (read back as it grows) or,
 * where no spill file can be opened, through a pipe; on a pseudo-terminal through `Terminal`.
 * Either way the result is one shape: where the output comes from, how to write to it, how it
 * exits and how its whole tree is ended.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { Jobs, type Sandbox, Terminal, Truncate } from "@agent-tools/core"
import { killTree, signalOf } from "../../bash/shell.ts"
import { killHolders } from "./holders.ts"

export interface Exited {
  /** null when the process died of a signal. */
  readonly code: number | null
  readonly signal: string | null
}

/** Where a job's output comes from. */
export type Source =
  | { readonly _tag: "file"; readonly capture: Truncate.Capture }
  | { readonly _tag: "stream"; readonly stream: Stream.Stream<Uint8Array> }

export interface Proc {
  readonly source: Source
  readonly sandboxed: boolean
  readonly write: (data: string) => Effect.Effect<void, Jobs.JobError>
  readonly resize: (cols: number, rows: number) => Effect.Effect<void, Jobs.JobError>
  readonly screen: Effect.Effect<string, Jobs.JobError>
  readonly exited: Effect.Effect<Exited>
  /** Ends the whole tree: TERM, then KILL after the grace (the sandbox's namespace ends with the scope). */
  readonly terminate: Effect.Effect<void>
}

export interface SpawnSettings {
  readonly platform: string
  /** SIGTERM → SIGKILL grace in ms. */
  readonly grace: number
}

const fail = (reason: Jobs.JobError["reason"], message: string, cause?: unknown) =>
  new Jobs.JobError({ reason, message, ...(cause === undefined ? {} : { cause }) })

/**
 * The tail of the scripts below, with `$f` a FIFO path to create and fd 3 the job's stdin pipe:
 * the program's stdin becomes that FIFO, which `cat` fills from the pipe (the FIFO is removed once
 * opened; an asynchronous command's stdin is /dev/null unless redirected, hence fd 3); then the
 * program replaces the shell (same pid and group). The program's stdin must not be the socket
 * Node's pipe is: bash reads ~/.bashrc when its stdin is a socket (it takes itself for a shell
 * started by rshd or sshd).
 */
const STDIN_FIFO = 'mkfifo -m 600 "$f" || exit 125; cat <&3 >"$f" 3<&- & exec 0<"$f" 3<&-; rm -f "$f"; exec "$@"'
/** `$0` is the spill file: stdout and stderr are appended to it, the FIFO is beside it. */
const TO_FILE = `exec >>"$0" 2>&1 3<&0; f="$0.in"; ${STDIN_FIFO}`
/** `$0` is the FIFO's path (in a private directory); stdout and stderr stay the pipes. */
const TO_PIPE = `exec 3<&0; f="$0"; ${STDIN_FIFO}`

/** The program the sandbox made of `options.program` (or the program itself), valid while `scope` is open. */
const wrapIn = (options: Jobs.StartOptions, scope: Scope.Scope) =>
  options.sandbox === undefined
    ? Effect.succeed<Sandbox.Wrapped>({ ...options.program, sandboxed: false })
    : options.sandbox.service.wrap(options.program, options.sandbox.policy).pipe(
      Scope.provide(scope),
      Effect.mapError((e) => fail(e.reason === "unavailable" ? "unavailable" : "io", `could not set up the sandbox: ${e.message}`, e))
    )

/** Starts the job's process in `scope`. */
export const spawn = Effect.fn("Jobs.spawn")(function*(options: Jobs.StartOptions, scope: Scope.Scope, settings: SpawnSettings) {
  const wrapped = yield* wrapIn(options, scope)
  return options.tty === undefined
    ? yield* spawnPiped(options, wrapped, scope, settings)
    : yield* spawnTerminal(options, wrapped, options.tty, scope, settings)
})

const spawnTerminal = Effect.fnUntraced(function*(
  options: Jobs.StartOptions,
  wrapped: Sandbox.Wrapped,
  size: { readonly cols: number; readonly rows: number },
  scope: Scope.Scope,
  settings: SpawnSettings
) {
  const terminal = yield* Terminal.Terminal
  const proc = yield* terminal.spawn({
    command: wrapped.command,
    args: wrapped.args,
    cwd: options.cwd,
    env: wrapped.env ?? options.program.env ?? {},
    cols: size.cols,
    rows: size.rows
  }).pipe(
    Scope.provide(scope),
    Effect.mapError((e) => fail(e.reason, e.reason === "unavailable" ? `tty is not available here: ${e.message}` : e.message, e))
  )
  const io = (e: Terminal.TerminalError) => fail("io", e.message, e)
  return {
    source: { _tag: "stream", stream: proc.output },
    sandboxed: wrapped.sandboxed,
    write: (data) => Effect.mapError(proc.write(data), io),
    resize: (cols, rows) => Effect.mapError(proc.resize(cols, rows), io),
    screen: proc.screen,
    exited: proc.exited,
    terminate: Effect.gen(function*() {
      yield* proc.kill("SIGTERM")
      const done = yield* proc.exited.pipe(Effect.timeoutOption(Duration.millis(settings.grace)))
      if (done._tag === "None") yield* proc.kill("SIGKILL")
    })
  } satisfies Proc
})

/** A path for the job's stdin FIFO, in a private directory removed with the job's scope. */
const fifoPath = (fs: FileSystem.FileSystem, scope: Scope.Scope) =>
  fs.makeTempDirectoryScoped({ prefix: "agent-job-" }).pipe(
    Scope.provide(scope),
    Effect.map((dir) => `${dir}/stdin`),
    Effect.mapError((e) => fail("io", `could not make the job's stdin: ${e.message}`, e))
  )

const spawnPiped = Effect.fnUntraced(function*(
  options: Jobs.StartOptions,
  wrapped: Sandbox.Wrapped,
  scope: Scope.Scope,
  settings: SpawnSettings
) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const truncate = yield* Truncate.Truncate
  const fs = yield* FileSystem.FileSystem
  const input = yield* Queue.unbounded<Uint8Array>()
  const environment = wrapped.env === undefined ? { env: options.program.env, extendEnv: true } : { env: wrapped.env, extendEnv: false }
  const spawnOptions = {
    cwd: options.cwd,
    ...environment,
    stdin: { stream: Stream.fromQueue(input), endOnDone: true },
    detached: settings.platform !== "win32",
    killSignal: "SIGTERM",
    forceKillAfter: Duration.millis(settings.grace)
  } as const
  const capture = settings.platform === "win32" || truncate.capture === undefined
    ? undefined
    : yield* truncate.capture(options.truncation, 0).pipe(Scope.provide(scope))
  const argv = [wrapped.command, ...wrapped.args]
  const command = capture !== undefined
    ? ChildProcess.make("/bin/sh", ["-c", TO_FILE, capture.path, ...argv], spawnOptions)
    : settings.platform === "win32"
    ? ChildProcess.make(wrapped.command, wrapped.args, spawnOptions)
    : ChildProcess.make("/bin/sh", ["-c", TO_PIPE, yield* fifoPath(fs, scope), ...argv], spawnOptions)
  const handle = yield* spawner.spawn(command).pipe(
    Scope.provide(scope),
    Effect.mapError((cause) => fail("io", `could not start ${wrapped.command}: ${cause.message}`, cause))
  )
  const encoder = new TextEncoder()
  const killEscaped = capture === undefined || wrapped.sandboxed || settings.platform !== "linux"
    ? Effect.void
    : Effect.provideService(killHolders(capture.path), FileSystem.FileSystem, fs)
  return {
    source: capture === undefined
      ? { _tag: "stream", stream: handle.all.pipe(Stream.catch(() => Stream.empty)) }
      : { _tag: "file", capture },
    sandboxed: wrapped.sandboxed,
    write: (data) => Effect.asVoid(Queue.offer(input, encoder.encode(data))),
    resize: () => Effect.fail(fail("invalid", "cols/rows resize the terminal of a tty job; this job runs without one")),
    screen: Effect.fail(fail("invalid", "screen is the rendered terminal of a tty job; this job runs without one")),
    exited: handle.exitCode.pipe(
      Effect.map((code): Exited => ({ code: Number(code), signal: null })),
      Effect.catch((e) => Effect.succeed<Exited>({ code: null, signal: signalOf(e, "SIGKILL") }))
    ),
    // Processes that left the group (setsid, a double fork) but still write into the output are
    // found by the file they hold; inside a sandbox its PID namespace ends them all.
    terminate: Effect.andThen(
      killTree(handle, settings.platform, settings.grace).pipe(Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner)),
      killEscaped
    )
  } satisfies Proc
})
