/** bash_kill: `{id}`. Ends the job's whole process tree; the result has its unread output and final status. */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { Jobs, Tool, Truncate } from "@agent-tools/core"
import { report } from "../internal/jobs/report.ts"
import { toToolError } from "../internal/jobs/start.ts"
import { DESCRIPTION } from "./description.ts"

export const parameters = z.lazy(() =>
  z.object({
    id: z.string().min(1).describe("The job id returned by bash with run_in_background")
  })
)

export type Parameters = z.output<typeof parameters>

const TOOL = "bash_kill"

export const BashKillTool = Tool.define(
  TOOL,
  Effect.gen(function*() {
    const truncate = yield* Truncate.Truncate
    const jobs = yield* Jobs.Jobs
    const execute = Effect.fn("BashKillTool.execute")(function*(args: Parameters, ctx: Tool.Context) {
      const job = yield* jobs.get(ctx.sessionID, args.id).pipe(Effect.mapError(toToolError(TOOL)))
      const before = yield* job.status
      const read = yield* job.kill
      const note = before._tag === "running" ? `Killed ${job.id} and every process it started.` : `${job.id} had already ended.`
      const r = report(job, read, { limits: truncate.limits({ ...ctx.truncation, tool: TOOL }), note })
      return { title: job.id, output: r.output, metadata: r.metadata }
    })
    // Nothing to ask: it ends a job this session started (and asked for).
    return { description: DESCRIPTION, parameters, requests: () => Effect.succeed([]), execute, annotations: { destructive: true } } satisfies Tool.Def<
      typeof parameters
    >
  })
)
