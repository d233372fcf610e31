/**
 * One job: its process (see process.ts), the follower that fills its ring, a watchdog for the
 * idle and total time limits, and a supervisor that waits for the exit (or a kill), ends the whole
 * tree, reads the rest of the output, commits the spill, closes the job's scope (its sandbox) and
 * says how it ended.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Events, Jobs } from "@agent-tools/core"
import type { Following, Sink } from "./follow.ts"
import type { Exited, Proc } from "./process.ts"
import { Ring } from "./ring.ts"

/** The most a job's output may take to end once its tree was killed, in ms. */
const DRAIN_BOUND = 2_000
/** Chunks a slow live-output subscriber may fall behind before it loses the oldest. */
const LIVE_CAPACITY = 1024

export interface JobSetup {
  readonly id: string
  readonly options: Jobs.StartOptions
  readonly limits: Jobs.Limits
  readonly scope: Scope.Closeable
  readonly proc: Proc
  readonly events: Events.Events["Service"]
  /** Builds the follower once the ring exists. */
  readonly follow: (sink: Sink, ended: () => boolean) => Effect.Effect<Following>
}

export interface Running {
  readonly job: Jobs.Job
  /** Asks the job to end for `reason` (no-op once it is ending). */
  readonly stop: (reason: Jobs.KillReason) => Effect.Effect<void>
  /** Resolves when the job has ended and its scope is closed. */
  readonly done: Effect.Effect<void>
}

const statusOf = (exit: Exited, reason: Jobs.KillReason | undefined): Jobs.Status =>
  reason !== undefined
    ? { _tag: "killed", reason, signal: exit.signal ?? (exit.code === null ? "SIGKILL" : null) }
    : exit.signal !== null || exit.code === null
    ? { _tag: "killed", reason: "signal", signal: exit.signal }
    : { _tag: "exited", code: exit.code }

export const start = Effect.fn("Jobs.startJob")(function*(setup: JobSetup) {
  const { id, options, limits, scope, proc, events } = setup
  const ring = new Ring(limits.ringBytes)
  const live = yield* PubSub.sliding<Uint8Array>(LIVE_CAPACITY)
  const clock = yield* Clock.Clock
  let lastOutput = clock.currentTimeMillisUnsafe()
  const startedAt = lastOutput
  let ended = false
  let status: Jobs.Status = { _tag: "running" }
  let outputPath: string | undefined = proc.source._tag === "file" ? proc.source.capture.path : undefined
  // Resolved (and replaced) whenever output arrives or the job ends: a waiting read wakes at once.
  let changed = Deferred.makeUnsafe<void>()
  const notify = () => {
    Deferred.doneUnsafe(changed, Effect.void)
    changed = Deferred.makeUnsafe<void>()
  }
  // The live stream copies a chunk only while someone follows it.
  let listeners = 0
  const push = (bytes: Uint8Array) => {
    ring.push(bytes)
    lastOutput = clock.currentTimeMillisUnsafe()
    if (listeners > 0) PubSub.publishUnsafe(live, bytes.slice())
    notify()
  }
  const skip = (n: number) => {
    ring.skip(n)
    notify()
  }
  const following = yield* setup.follow({ push, skip, keep: limits.ringBytes, followed: () => listeners > 0 }, () => ended)
  const follower = yield* Effect.forkIn(following.run, scope)
  const stopping = yield* Deferred.make<Jobs.KillReason>()
  const done = yield* Deferred.make<void>()
  const stop = (reason: Jobs.KillReason) => Effect.asVoid(Deferred.succeed(stopping, reason))

  const supervise = Effect.gen(function*() {
    const first = yield* Effect.raceFirst(
      Effect.map(proc.exited, (exit) => ({ exit, reason: undefined })),
      Effect.map(Deferred.await(stopping), (reason) => ({ exit: undefined, reason }))
    )
    // Whatever it left running ends with it: a job's tree never outlives the job.
    yield* proc.terminate
    const exit = first.exit ?? (yield* proc.exited.pipe(
      Effect.timeoutOption(Duration.millis(DRAIN_BOUND)),
      Effect.map((o): Exited => o._tag === "Some" ? o.value : { code: null, signal: "SIGKILL" })
    ))
    ended = true
    yield* Fiber.await(follower).pipe(Effect.timeoutOption(Duration.millis(DRAIN_BOUND)))
    yield* Fiber.interrupt(follower)
    const result = yield* following.finish
    outputPath = result?.outputPath
    status = statusOf(exit, first.reason)
    notify()
    yield* Scope.close(scope, Exit.void)
    yield* PubSub.shutdown(live)
    yield* events.publish({ _tag: "JobExited", jobID: id, sessionID: options.sessionID, status })
  }).pipe(Effect.ensuring(Deferred.succeed(done, undefined)))
  yield* Effect.forkDetach(supervise)
  yield* watchdog(limits, startedAt, () => lastOutput, stop).pipe(Effect.forkIn(scope))

  const read = Effect.fn("Jobs.read")(function*(o: Jobs.ReadOptions) {
    const until = (yield* Clock.currentTimeMillis) + o.waitMs
    while (!ring.unread && status._tag === "running") {
      const wake = changed
      const left = until - (yield* Clock.currentTimeMillis)
      if (left <= 0) break
      yield* Deferred.await(wake).pipe(Effect.timeoutOption(Duration.millis(left)))
    }
    const taken = ring.take()
    return { bytes: taken.bytes, omittedBytes: taken.omitted, status, totalBytes: ring.total, outputPath } satisfies Jobs.Read
  })
  const job: Jobs.Job = {
    id,
    sessionID: options.sessionID,
    command: options.command,
    cwd: options.cwd,
    kind: options.kind,
    interpreter: options.interpreter,
    tty: options.tty !== undefined,
    sandboxed: proc.sandboxed,
    status: Effect.sync(() => status),
    read,
    write: (data) =>
      ended
        ? Effect.fail(new Jobs.JobError({ reason: "invalid", message: `job ${id} has ended (${Jobs.describeStatus(status)}); nothing was written` }))
        : proc.write(data),
    resize: proc.resize,
    screen: proc.screen,
    kill: Effect.andThen(Effect.andThen(stop("killed"), Deferred.await(done)), read({ waitMs: 0 })),
    output: Stream.unwrap(
      Effect.acquireRelease(Effect.sync(() => listeners++), () => Effect.sync(() => listeners--)).pipe(Effect.as(Stream.fromPubSub(live)))
    )
  }
  return { job, stop, done: Deferred.await(done) } satisfies Running
})

/** Stops the job when it printed nothing for `idleTimeout` ms or ran for `timeLimit` ms. */
const watchdog = (
  limits: Jobs.Limits,
  startedAt: number,
  lastOutput: () => number,
  stop: (reason: Jobs.KillReason) => Effect.Effect<void>
): Effect.Effect<void> => {
  const { idleTimeout, timeLimit } = limits
  if (idleTimeout === undefined && timeLimit === undefined) return Effect.void
  const tick = Math.max(10, Math.min(1_000, Math.floor(Math.min(idleTimeout ?? Infinity, timeLimit ?? Infinity) / 4)))
  return Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep(Duration.millis(tick))
      const now = yield* Clock.currentTimeMillis
      if (timeLimit !== undefined && now - startedAt >= timeLimit) return yield* stop("time-limit")
      if (idleTimeout !== undefined && now - lastOutput() >= idleTimeout) return yield* stop("idle-timeout")
    }
  })
}
