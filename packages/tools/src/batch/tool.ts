/**
 * batch: several independent calls at once. Each call goes through the registry's whole pipeline
 * (validation, permissions, hooks, truncation, events) as if the model had made it, at most
 * `BATCH_CONCURRENCY` at a time; a failure is reported in its place without stopping the others,
 * and the results come back in the order of the calls. Each call's output gets an equal share of
 * the batch's output limits, so that the combined output still fits them (what a call loses is
 * in its spill file). Experimental: offered only when `BatchConfig.enabled`.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as z from "zod"
import { Tool, ToolRegistry, Truncate } from "@agent-tools/core"
import { BATCH_CONCURRENCY, BATCH_DISALLOWED, BATCH_LIMIT } from "../internal/limits.ts"
import { BATCH } from "./description.ts"

export interface BatchConfig {
  readonly enabled: boolean
}

/** Whether the batch tool is offered (off unless the runtime turns it on). */
export const BatchConfig = Context.Reference<BatchConfig>("@agent-tools/tools/BatchConfig", {
  defaultValue: () => ({ enabled: false })
})

export const DISABLED = "it is experimental and off: set experimental.batch_tool to true in agent-tools.json to enable it"

const parameters = z.lazy(() =>
  z.object({
    tool_calls: z.array(
      z.object({
        tool: z.string().describe("The name of the tool to execute"),
        parameters: z.record(z.string(), z.unknown()).describe("Parameters for the tool")
      })
    ).min(1, "Provide at least one tool call").describe("Array of tool calls to execute in parallel")
  })
)

const formatValidationError = (error: z.ZodError) =>
  `Invalid parameters for tool 'batch':\n${
    error.issues.map((i) => `  - ${i.path.length === 0 ? "root" : i.path.join(".")}: ${i.message}`).join("\n")
  }\n\nExpected payload format:\n  [{"tool": "tool_name", "parameters": {...}}, {...}]`

/** Room kept per call for its frame (header, footer, separator) and a truncation notice. */
const FRAME_BYTES = 700
const FRAME_LINES = 10

interface Outcome {
  readonly tool: string
  readonly result?: Tool.Result | undefined
  readonly error?: string | undefined
}

const escape = (s: string) => s.replace(/[&"<>]/g, (c) => c === "&" ? "&amp;" : c === '"' ? "&quot;" : c === "<" ? "&lt;" : "&gt;")

const frame = (o: Outcome, i: number) =>
  o.result === undefined
    ? `<tool_result index="${i + 1}" tool="${escape(o.tool)}" status="error">\nError: ${o.error}\n</tool_result>`
    : `<tool_result index="${i + 1}" tool="${escape(o.tool)}" status="success" title="${escape(o.result.title)}">\n${o.result.output}\n</tool_result>`

export const BatchTool = Tool.define(
  "batch",
  Effect.gen(function*() {
    const config = yield* BatchConfig
    const dispatcher = yield* ToolRegistry.Dispatcher
    const truncate = yield* Truncate.Truncate

    const execute = Effect.fn("BatchTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context) {
      const calls = args.tool_calls.slice(0, BATCH_LIMIT)
      const limits = truncate.limits({ ...ctx.truncation, tool: "batch" })
      const share: Truncate.Options = {
        maxBytes: Math.max(1, Math.floor(limits.maxBytes / args.tool_calls.length) - FRAME_BYTES),
        maxLines: Math.max(1, Math.floor(limits.maxLines / args.tool_calls.length) - FRAME_LINES)
      }
      // Tools that page their own output (read, grep, bash) keep their own limits: cut what
      // exceeds the share here, the full output going to a spill file as usual.
      const fitShare = (tool: string, result: Tool.Result): Effect.Effect<Tool.Result> =>
        Effect.map(truncate.output(result.output, { ...share, tool }), (cut) =>
          !cut.truncated ? result : {
            ...result,
            output: cut.content,
            metadata: { ...result.metadata, truncated: true, ...(cut.outputPath === undefined ? {} : { outputPath: cut.outputPath }) }
          })
      const run = (call: (typeof calls)[number], i: number): Effect.Effect<Outcome> => {
        if (BATCH_DISALLOWED.includes(call.tool)) {
          return Effect.succeed({
            tool: call.tool,
            error: `Tool '${call.tool}' is not allowed in batch. Disallowed tools: ${BATCH_DISALLOWED.join(", ")}`
          })
        }
        const inner: Tool.Context = { ...ctx, callID: `${ctx.callID}/${i + 1}`, truncation: { ...ctx.truncation, ...share } }
        return dispatcher.execute(call.tool, call.parameters, inner).pipe(
          Effect.flatMap((result) => fitShare(call.tool, result)),
          Effect.match({
            onSuccess: (result): Outcome => ({ tool: call.tool, result }),
            onFailure: (e): Outcome => ({ tool: call.tool, error: e.message })
          })
        )
      }
      const refused: ReadonlyArray<Outcome> = args.tool_calls.slice(BATCH_LIMIT).map((c) => ({
        tool: c.tool,
        error: `Maximum of ${BATCH_LIMIT} tools allowed in batch`
      }))
      const outcomes = [...yield* Effect.forEach(calls, run, { concurrency: BATCH_CONCURRENCY }), ...refused]
      const ok = outcomes.filter((o) => o.result !== undefined).length
      const failed = outcomes.length - ok
      const summary = failed > 0
        ? `Executed ${ok}/${outcomes.length} tools successfully. ${failed} failed.`
        : `All ${ok} tools executed successfully.`
      const attachments = outcomes.flatMap((o) => o.result?.attachments ?? [])
      return {
        title: `Batch execution (${ok}/${outcomes.length} successful)`,
        output: [summary, ...outcomes.map(frame)].join("\n\n"),
        metadata: {
          totalCalls: outcomes.length,
          successful: ok,
          failed,
          tools: outcomes.map((o) => o.tool),
          details: outcomes.map((o) =>
            o.result === undefined
              ? { tool: o.tool, success: false, error: o.error }
              : { tool: o.tool, success: true, title: o.result.title, metadata: o.result.metadata }
          )
        },
        ...(attachments.length === 0 ? {} : { attachments })
      }
    })

    return {
      description: BATCH,
      parameters,
      formatValidationError,
      unavailable: Effect.sync(() => config.enabled ? undefined : DISABLED),
      execute,
      annotations: { readOnly: false, destructive: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
