/**
 * The Jobs service for a session: its scope is the session's (the MCP connection, the library's
 * scope, an AI SDK tool set). Jobs are keyed by session and id; when the scope closes, every job
 * still running is killed with its whole tree and its sandbox.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { ChildProcessSpawner } from "effect/process"
import { Events, Jobs, Terminal, Truncate } from "@agent-tools/core"
import { follow } from "./follow.ts"
import { start as startJob, type Running } from "./job.ts"
import { spawn } from "./process.ts"

/** The limits (each defaults to `Jobs.defaults`), and how jobs are killed. */
export type Options = { readonly [K in keyof Jobs.Limits]?: Jobs.Limits[K] | undefined } & {
  /** The platform killing follows (default: the running one). */
  readonly platform?: string | undefined
  /** SIGTERM → SIGKILL grace in ms (default 500). */
  readonly killGrace?: number | undefined
}

/** The most a session's end waits for one job to be gone, in ms. */
const END_BOUND = 10_000

const limitsOf = (options: Options): Jobs.Limits => ({
  maxJobs: options.maxJobs ?? Jobs.defaults.maxJobs,
  ringBytes: options.ringBytes ?? Jobs.defaults.ringBytes,
  idleTimeout: options.idleTimeout ?? Jobs.defaults.idleTimeout,
  timeLimit: options.timeLimit ?? Jobs.defaults.timeLimit,
  startYield: options.startYield ?? Jobs.defaults.startYield
})

const make = Effect.fn("Jobs.make")(function*(options: Options) {
  const limits = limitsOf(options)
  const settings = { platform: options.platform ?? globalThis.process.platform, grace: options.killGrace ?? 500 }
  const services = yield* Effect.context<
    ChildProcessSpawner.ChildProcessSpawner | Truncate.Truncate | FileSystem.FileSystem | Events.Events
  >()
  const events = yield* Events.Events
  const terminal = yield* Terminal.Terminal
  const jobs = new Map<string, Running>()
  let counter = 0
  // One start at a time: the count of running jobs and the new job's entry change together, so
  // two starts at once cannot both pass the limit.
  const starting = Semaphore.makeUnsafe(1)
  const key = (sessionID: string, id: string) => `${sessionID}\u0000${id}`
  const ofSession = (sessionID: string) => [...jobs.values()].filter((r) => r.job.sessionID === sessionID)

  yield* Effect.addFinalizer(() =>
    Effect.forEach([...jobs.values()], (r) => Effect.andThen(r.stop("session-end"), r.done.pipe(Effect.timeoutOption(Duration.millis(END_BOUND)))), {
      concurrency: "unbounded",
      discard: true
    })
  )

  const running = (sessionID: string) =>
    Effect.map(Effect.forEach(ofSession(sessionID), (r) => r.job.status), (all) => all.filter((s) => s._tag === "running").length)

  /**
   * Ended jobs stay readable (their last output, their status) until the session has more than
   * `maxJobs` of them: then the oldest are forgotten, so a long session's memory stays bounded.
   */
  const forgetEnded = (sessionID: string) =>
    Effect.gen(function*() {
      const ended: Array<Running> = []
      for (const r of ofSession(sessionID)) if ((yield* r.job.status)._tag !== "running") ended.push(r)
      for (const r of ended.slice(0, Math.max(0, ended.length - limits.maxJobs))) jobs.delete(key(sessionID, r.job.id))
    })

  const launch = (o: Jobs.StartOptions, id: string) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      return yield* Effect.gen(function*() {
        const proc = yield* spawn(o, scope, settings)
        return yield* startJob({
          id,
          options: o,
          limits,
          scope,
          proc,
          events,
          follow: (sink, ended) => follow(proc.source, sink, ended, o.truncation).pipe(Effect.provideContext(services))
        })
      }).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
    }).pipe(Effect.provideContext(services), Effect.provideService(Terminal.Terminal, terminal))

  const start = (o: Jobs.StartOptions) => starting.withPermit(startOne(o))
  const startOne = Effect.fn("Jobs.start")(function*(o: Jobs.StartOptions) {
    if ((yield* running(o.sessionID)) >= limits.maxJobs) {
      return yield* new Jobs.JobError({
        reason: "limit",
        message: `this session already has ${limits.maxJobs} jobs running (jobs.maxJobs): end one with bash_kill first`
      })
    }
    const id = `job-${++counter}`
    // The start is not interrupted half way (a call aborted then would leave an unowned process).
    const r = yield* Effect.uninterruptible(launch(o, id))
    jobs.set(key(o.sessionID, id), r)
    yield* forgetEnded(o.sessionID)
    yield* events.publish({ _tag: "JobStarted", jobID: id, sessionID: o.sessionID, command: o.command, tty: o.tty !== undefined })
    return r.job
  })

  const get = Effect.fn("Jobs.get")(function*(sessionID: string, id: string) {
    const r = jobs.get(key(sessionID, id))
    if (r !== undefined) return r.job
    const known = ofSession(sessionID).map((x) => x.job.id)
    return yield* new Jobs.JobError({
      reason: "not-found",
      message: `no job ${id} in this session (${known.length === 0 ? "it has none" : `its jobs: ${known.join(", ")}`})`
    })
  })

  return {
    limits,
    available: { ok: true },
    start,
    get,
    list: Effect.fn("Jobs.list")(function*(sessionID: string) {
      return ofSession(sessionID).map((r) => r.job)
    })
  } satisfies Jobs.Service
})

/**
 * Background jobs for the scope of the layer (the session). Needs a process spawner, Truncate
 * (the job's spill), FileSystem and Events; terminal jobs use the `Terminal` in context.
 */
export const layer = (
  options: Options = {}
): Layer.Layer<never, never, ChildProcessSpawner.ChildProcessSpawner | Truncate.Truncate | FileSystem.FileSystem | Events.Events> =>
  Layer.effect(Jobs.Jobs, make(options))
