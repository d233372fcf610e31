/**
 * Calls the registry cannot run as given — an unknown tool, arguments that fail validation — go to
 * its hidden `invalid` tool, so the model gets a result that names the problem and the valid
 * tools, and can correct itself, instead of a failed call. For adapters whose SDK lets them
 * rewrite a bad call (e.g. an AI SDK `experimental_repairToolCall`) or that run calls themselves.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Tool from "./Tool.ts"
import type * as ToolRegistry from "./ToolRegistry.ts"

/** The id of the tool bad calls are routed to. */
export const TOOL = "invalid"

/** What the `invalid` tool is called with. */
export interface Arguments {
  /** The tool the model asked for. */
  readonly tool: string
  /** What is wrong with the call. */
  readonly error: string
}

/** The `invalid` call for a failure the model can fix, or undefined for any other failure. */
export const argumentsFor = (id: string, error: ToolRegistry.ExecuteError): Arguments | undefined => {
  switch (error._tag) {
    case "UnknownToolError":
      return { tool: id, error: `there is no tool named "${id}".` }
    case "InvalidArgumentsError":
      return {
        tool: error.tool,
        error: error.custom ?? `its arguments do not fit the tool's schema:\n${error.issues}`
      }
    default:
      return undefined
  }
}

/**
 * `registry.execute`, except that a call with an unknown tool or invalid arguments runs the
 * registry's `invalid` tool instead (when it has one); every other failure is returned as is.
 */
export const execute = (
  registry: ToolRegistry.ToolRegistry["Service"],
  id: string,
  args: unknown,
  ctx: Tool.Context
): Effect.Effect<Tool.Result, ToolRegistry.ExecuteError> =>
  registry.execute(id, args, ctx).pipe(
    Effect.catch((error) => {
      const routed = argumentsFor(id, error)
      if (routed === undefined) return Effect.fail(error)
      return Effect.flatMap(
        registry.get(TOOL),
        (invalid) => Option.isNone(invalid) ? Effect.fail(error) : registry.execute(TOOL, routed, ctx)
      )
    })
  )
