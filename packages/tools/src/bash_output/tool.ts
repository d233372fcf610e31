/**
 * bash_output: `{id, wait_ms?, filter?, input?, cols?, rows?, screen?}`. Writes `input` to the
 * job (asked first when it is code), resizes its terminal, waits up to `wait_ms` for new output or
 * the exit, and returns what the job printed since the last read (filtered, cut to the
 * truncation limits from the end), its status and, for a terminal job, the rendered screen.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as z from "zod"
// Named here so the tool's type (its requirements) can be written in declarations.
import { Jobs, type Permission, Tool, Truncate, type Workspace } from "@agent-tools/core"
import type { BashParser } from "../bash/parser.ts"
import { makeAskInput } from "../internal/jobs/input.ts"
import { report } from "../internal/jobs/report.ts"
import { toToolError } from "../internal/jobs/start.ts"
import { describe } from "./description.ts"

/** The longest one read waits, in ms. */
export const MAX_WAIT = 60_000
/** A read's wait when the call gives none, in ms. */
export const DEFAULT_WAIT = 200

export const parameters = z.lazy(() =>
  z.object({
    id: z.string().min(1).describe("The job id returned by bash with run_in_background"),
    wait_ms: z.number().int().min(0).max(MAX_WAIT).optional().describe(`Wait up to this many ms for new output or the exit (default ${DEFAULT_WAIT})`),
    filter: z.string().optional().describe("A regular expression: only new lines matching it are returned"),
    input: z.string().optional().describe("Text written to the job's stdin before reading (keys on a terminal job)"),
    cols: z.number().int().min(2).max(1000).optional().describe("Resize a terminal job's terminal to this many columns (with rows)"),
    rows: z.number().int().min(2).max(1000).optional().describe("Resize a terminal job's terminal to this many rows (with cols)"),
    screen: z.boolean().optional().describe("A terminal job: also return the rendered screen")
  })
)

export type Parameters = z.output<typeof parameters>

const TOOL = "bash_output" as const
const invalid = (message: string) => new Tool.ToolError({ tool: TOOL, reason: "invalid", message })

const compile = (filter: string | undefined) =>
  filter === undefined ? Effect.succeed(undefined) : Effect.try({
    try: () => new RegExp(filter),
    catch: (e) => invalid(`filter: not a valid regular expression: ${e instanceof Error ? e.message : String(e)}`)
  })

export const BashOutputTool: Tool.Definition<
  typeof TOOL,
  typeof parameters,
  Truncate.Truncate | Permission.Permission | Workspace.Workspace | FileSystem.FileSystem | BashParser
> = Tool.define(
  TOOL,
  Effect.gen(function*() {
    const truncate = yield* Truncate.Truncate
    const jobs = yield* Jobs.Jobs
    const askInput = yield* makeAskInput(TOOL)
    const execute = Effect.fn("BashOutputTool.execute")(function*(args: Parameters, ctx: Tool.Context) {
      const job = yield* jobs.get(ctx.sessionID, args.id).pipe(Effect.mapError(toToolError(TOOL)))
      const filter = yield* compile(args.filter)
      if ((args.cols === undefined) !== (args.rows === undefined)) return yield* invalid("cols and rows: give both to resize the terminal")
      if (args.cols !== undefined && args.rows !== undefined) yield* job.resize(args.cols, args.rows).pipe(Effect.mapError(toToolError(TOOL)))
      if (args.input !== undefined && args.input !== "") {
        yield* askInput(job, args.input, ctx)
        yield* job.write(args.input).pipe(Effect.mapError(toToolError(TOOL)))
      }
      const read = yield* job.read({ waitMs: args.wait_ms ?? DEFAULT_WAIT })
      const options = { ...ctx.truncation, tool: TOOL }
      const r = report(job, read, { limits: truncate.limits(options), filter })
      if (args.screen !== true) return { title: job.id, output: r.output, metadata: r.metadata }
      const screen = yield* job.screen.pipe(Effect.mapError(toToolError(TOOL)))
      return { title: job.id, output: `${r.output}\n\n<screen>\n${screen}\n</screen>`, metadata: { ...r.metadata, screen } }
    })
    return {
      description: describe({ maxWait: MAX_WAIT, defaultWait: DEFAULT_WAIT }),
      parameters,
      // Nothing of its own to ask: the job's start was asked, and input that is code is asked when written.
      requests: () => Effect.succeed([]),
      execute,
      annotations: { destructive: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
