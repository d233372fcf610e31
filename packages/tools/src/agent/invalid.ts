/**
 * invalid: the target of calls that cannot be run as given (see `InvalidCall`). Never offered to
 * a model; its result tells the model what was wrong and which tools it can call.
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { InvalidCall, Tool, ToolRegistry } from "@agent-tools/core"
import { INVALID } from "./descriptions.ts"

const parameters = z.object({
  tool: z.string().describe("The tool the model asked for"),
  error: z.string().describe("What is wrong with the call")
})

export const InvalidTool = Tool.define(
  InvalidCall.TOOL,
  Effect.gen(function*() {
    const dispatcher = yield* ToolRegistry.Dispatcher
    return {
      description: INVALID,
      parameters,
      hidden: true,
      requests: () => Effect.succeed([]),
      execute: Effect.fn("InvalidTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context) {
        const valid = (yield* dispatcher.tools({ agent: ctx.agent })).map((t) => t.id)
        return {
          title: "Invalid Tool",
          output: `The call to tool "${args.tool}" was not run: ${args.error}\nValid tools: ${valid.join(", ") || "none"}.`,
          metadata: { tool: args.tool }
        }
      }),
      annotations: { readOnly: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
