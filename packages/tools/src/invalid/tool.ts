/**
 * invalid: the target of calls that cannot be run as given (see `InvalidCall`). Never offered to
 * a model; its result tells the model what was wrong and which tools it can call.
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { InvalidCall, Tool, ToolRegistry } from "@agent-tools/core"
import { INVALID } from "./description.ts"

/**
 * Chat-template control tokens some providers leak into a broken call's name or arguments:
 * `<|tool_call_begin|>`, `<|im_start|>`, DeepSeek's full-width `<｜tool▁call▁begin｜>`. Echoed back,
 * the model reads them as structure of its own transcript, so they are removed from the result.
 * `\uff5c` is the full-width `｜`, escaped: code outside comments stays ASCII, so the bundles load
 * as one-byte text.
 */
const CONTROL_TOKEN = /<[|\uff5c][^<>|\uff5c\n]{0,64}[|\uff5c]>/g

/** The text without provider control tokens. */
export const stripControlTokens = (text: string): string => text.replace(CONTROL_TOKEN, "")

const parameters = z.lazy(() =>
  z.object({
    tool: z.string().describe("The tool the model asked for"),
    error: z.string().describe("What is wrong with the call")
  })
)

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
        const tool = stripControlTokens(args.tool)
        return {
          title: "Invalid Tool",
          output: `The call to tool "${tool}" was not run: ${stripControlTokens(args.error)}\nValid tools: ${valid.join(", ") || "none"}.`,
          metadata: { tool }
        }
      }),
      annotations: { readOnly: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
