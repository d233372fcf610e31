/**
 * bash with `run_in_background`: after the same analysis, asks and sandbox policy as a foreground
 * call (made by the bash tool), the command starts as a job of the call's session; the call
 * returns after the job's first output, its exit or the start yield, whichever comes first, with
 * the job's id, status and what it printed so far. The job belongs to the session, not to the
 * call: the call's abort signal no longer reaches it once the call returned.
 */
import * as Effect from "effect/Effect"
import { Jobs, type Sandbox, type Terminal, Tool, Truncate } from "@agent-tools/core"
import type { Analysis } from "../../bash/analysis.ts"
import { kindOf } from "./kind.ts"
import { report } from "./report.ts"

export interface BackgroundOptions {
  readonly command: string
  readonly description: string
  readonly analysis: Analysis
  readonly cwd: string
  /** The shell and its environment (the foreground call's). */
  readonly program: Sandbox.Command
  readonly sandbox: { readonly service: Sandbox.Service; readonly policy: Sandbox.Policy }
  readonly tty?: { readonly cols: number; readonly rows: number } | undefined
  readonly truncation: Truncate.Options
  readonly previewChars: number
}

const toolError = (e: Jobs.JobError) =>
  e.reason === "limit"
    ? "too-large" as const
    : e.reason === "not-found"
    ? "not-found" as const
    : e.reason === "unavailable"
    ? "unavailable" as const
    : e.reason === "invalid"
    ? "invalid" as const
    : "io" as const

/** A job error as the tool error of `tool`. */
export const toToolError = (tool: string) => (e: Jobs.JobError) =>
  new Tool.ToolError({ tool, reason: toolError(e), message: e.message, cause: e })

/**
 * Refuses a background call before anything is asked when it cannot run here: no jobs in this
 * composition, or no terminal for a `tty` job (each with its reason).
 */
export const checkAvailable = Effect.fn("Jobs.checkAvailable")(function*(
  jobs: Jobs.Service,
  terminal: Terminal.Service,
  request: { readonly tty: boolean }
) {
  const fail = (message: string) => new Tool.ToolError({ tool: "bash", reason: "unavailable", message })
  if (!jobs.available.ok) return yield* fail(jobs.available.reason)
  if (!request.tty) return
  const available = yield* terminal.available
  if (!available.ok) return yield* fail(`tty is not available here: ${available.reason}`)
})

export const startInBackground = Effect.fn("Jobs.startInBackground")(function*(ctx: Tool.Context, o: BackgroundOptions) {
  const jobs = yield* Jobs.Jobs
  const truncate = yield* Truncate.Truncate
  const { kind, interpreter } = kindOf(o.analysis)
  const job = yield* jobs.start({
    sessionID: ctx.sessionID,
    command: o.command,
    program: o.program,
    cwd: o.cwd,
    kind,
    interpreter,
    sandbox: o.sandbox,
    tty: o.tty,
    truncation: o.truncation
  })
  const read = yield* job.read({ waitMs: jobs.limits.startYield })
  const kindNote = kind === "program" ? "" : ` Input written to it with bash_output is code: it is checked like a command.`
  const note = `Started in the background as ${job.id}${o.tty === undefined ? "" : ` on a ${o.tty.cols}x${o.tty.rows} terminal`}. ` +
    `Read its new output with bash_output {"id": "${job.id}"}, end it with bash_kill.${kindNote}`
  const r = report(job, read, { limits: truncate.limits(o.truncation), previewChars: o.previewChars, note })
  return {
    title: o.description,
    output: r.output,
    metadata: { ...r.metadata, description: o.description, cwd: o.cwd, kind }
  } satisfies Tool.Result
})
