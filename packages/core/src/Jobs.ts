/**
 * Background jobs: commands that outlive the call that started them (a dev server, a watcher, a
 * REPL on a terminal), owned by a session. A later call reads what a job printed since the last
 * read, writes to its stdin, resizes its terminal or kills it; when the session ends, every job it
 * started is killed with its whole process tree.
 *
 * The default (`unavailable`, also the reference's default value) has no jobs: every operation
 * fails with the reason, so a composition that cannot keep a process alive between calls (a
 * one-shot command line call) says so plainly. The implementation that spawns processes is
 * `Jobs.layer` of `@agent-tools/tools`; its scope is the session.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type * as Sandbox from "./Sandbox.ts"
import type * as Truncate from "./Truncate.ts"

/**
 * Why a job operation failed: `not-found` (no job of that id in this session), `limit` (the
 * session has its most jobs running), `unavailable` (no jobs here, or no terminal for a `tty`
 * job), `invalid` (an operation the job does not support), `io` (spawning or writing failed).
 */
export class JobError extends Schema.TaggedError<JobError>()("JobError", {
  reason: Schema.Literals(["not-found", "limit", "unavailable", "invalid", "io"]),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/**
 * Why a job was killed: asked to (`killed`), idle or running for longer than the limits allow,
 * its session ended, or a signal from elsewhere.
 */
export type KillReason = "killed" | "idle-timeout" | "time-limit" | "session-end" | "signal"

export type Status =
  | { readonly _tag: "running" }
  | { readonly _tag: "exited"; readonly code: number }
  | { readonly _tag: "killed"; readonly reason: KillReason; readonly signal: string | null }

/**
 * What the job runs, decided once at its start: a shell reading commands (`bash`), an
 * interpreter's REPL (`python3`, `node`), or another program. Input to the first two is code and
 * is asked like a command.
 */
export type Kind = "shell" | "interpreter" | "program"

export interface Limits {
  /** The most jobs one session may have running at once. */
  readonly maxJobs: number
  /** The recent output kept in memory per job, in bytes (the rest is in its spill). */
  readonly ringBytes: number
  /** A job that printed nothing for this many ms is killed (undefined: never). */
  readonly idleTimeout: number | undefined
  /** A job running for this many ms is killed (undefined: never). */
  readonly timeLimit: number | undefined
  /** How long a starting call waits for the job's first output or exit, in ms. */
  readonly startYield: number
}

export const defaults: Limits = {
  maxJobs: 8,
  ringBytes: 1024 * 1024,
  idleTimeout: undefined,
  timeLimit: undefined,
  startYield: 1000
}

export interface StartOptions {
  readonly sessionID: string
  /** The command as the model wrote it (shown in listings). */
  readonly command: string
  /** The program to run (the shell with the command), before the sandbox wraps it. */
  readonly program: Sandbox.Command
  readonly cwd: string
  readonly kind: Kind
  /** The interpreter's or shell's name, for a `shell` or `interpreter` job. */
  readonly interpreter?: string | undefined
  /** Wraps the program in this sandbox; its resources live as long as the job. */
  readonly sandbox?: { readonly service: Sandbox.Service; readonly policy: Sandbox.Policy } | undefined
  /** Runs the job on a pseudo-terminal of this size. */
  readonly tty?: { readonly cols: number; readonly rows: number } | undefined
  /** How the job's output is truncated and spilled. */
  readonly truncation?: Truncate.Options | undefined
}

/** What a read returns: the output since the last read and the job's status after it. */
export interface Read {
  /** The new output, raw (a terminal's escape sequences included). */
  readonly bytes: Uint8Array
  /** New bytes that no longer fitted the job's memory before this read (they are in the spill). */
  readonly omittedBytes: number
  readonly status: Status
  /** Everything the job printed so far, in bytes. */
  readonly totalBytes: number
  /** The job's whole output (running: the file it is written to; once ended: the spill). */
  readonly outputPath: string | undefined
}

export interface ReadOptions {
  /** Waits up to this many ms for new output or the exit when there is none yet. */
  readonly waitMs: number
}

/** One running (or ended) job of a session. */
export interface Job {
  readonly id: string
  readonly sessionID: string
  readonly command: string
  /** The directory it started in. */
  readonly cwd: string
  readonly kind: Kind
  readonly interpreter: string | undefined
  readonly tty: boolean
  /** The job's process is the sandbox. */
  readonly sandboxed: boolean
  readonly status: Effect.Effect<Status>
  /** The output since the last read (marked read), after waiting as `options` says. */
  readonly read: (options: ReadOptions) => Effect.Effect<Read>
  /** Writes to the job's stdin (a terminal job: as typed keys). */
  readonly write: (data: string) => Effect.Effect<void, JobError>
  /** Resizes a terminal job's terminal. */
  readonly resize: (cols: number, rows: number) => Effect.Effect<void, JobError>
  /** A terminal job's rendered screen. */
  readonly screen: Effect.Effect<string, JobError>
  /** Kills the job's whole process tree; the unread output and the final status. */
  readonly kill: Effect.Effect<Read>
  /** The job's output from now on, live, for a UI; ends when the job ends. */
  readonly output: Stream.Stream<Uint8Array>
}

export interface Service {
  readonly limits: Limits
  /** Whether jobs can run here; the reason when not. */
  readonly available: { readonly ok: true } | { readonly ok: false; readonly reason: string }
  readonly start: (options: StartOptions) => Effect.Effect<Job, JobError>
  /** The session's job of that id (another session's id does not find it). */
  readonly get: (sessionID: string, id: string) => Effect.Effect<Job, JobError>
  readonly list: (sessionID: string) => Effect.Effect<ReadonlyArray<Job>>
}

/** No jobs: every operation fails with `reason`. */
export const unavailable = (reason: string): Service => {
  const refuse = Effect.fail(new JobError({ reason: "unavailable", message: reason }))
  return {
    limits: defaults,
    available: { ok: false, reason },
    start: () => refuse,
    get: () => refuse,
    list: () => Effect.succeed([])
  }
}

export const DEFAULT_REASON =
  "background jobs need a long-lived session: the MCP server (agent-tools mcp) or the library; a one-shot call ends with everything it started"

export const Jobs = Context.Reference<Service>("@agent-tools/core/Jobs", {
  defaultValue: () => unavailable(DEFAULT_REASON)
})

export const layerUnavailable = (reason: string = DEFAULT_REASON): Layer.Layer<never> => Layer.succeed(Jobs, unavailable(reason))

/** The status in words, for a model: `running`, `exited with code 0`, `killed (idle-timeout, SIGTERM)`. */
export const describeStatus = (status: Status): string =>
  status._tag === "running"
    ? "running"
    : status._tag === "exited"
    ? `exited with code ${status.code}`
    : `killed (${status.reason}${status.signal === null ? "" : `, ${status.signal}`})`
