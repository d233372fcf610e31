/**
 * Runs a sub-agent for the task tool. The library ships no model loop: a runtime provides one
 * (its own agent loop; the MCP server's runs on the client's model through sampling; the test kit's
 * is scripted). Without one (`layerNone`), the task tool is not offered.
 *
 * A runner gives each tool call of a sub-agent a context with the request's `depth` and the ids
 * of the tools the sub-agent was given (`Tool.Context.depth`, `.tools`): the registry then refuses
 * the tools left out of its list by name, and the task tool refuses to nest deeper than
 * `MAX_DEPTH`, whatever tools an agent lists.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

export interface Agent {
  readonly name: string
  /** When to use it; shown to the model in the task tool's description. */
  readonly description: string
}

/**
 * How deep sub-agents may nest: a task started by a sub-agent at this depth is refused. Each
 * level is a whole model loop, so a deeper chain mostly multiplies cost and hides what went wrong.
 */
export const MAX_DEPTH = 3

export interface Request {
  /**
   * The depth the sub-agent runs at (the caller's depth + 1): the `depth` of the contexts the
   * runner gives its tool calls.
   */
  readonly depth: number
  /** The calling session. */
  readonly sessionID: string
  readonly callID: string
  /** Continue this earlier task (its conversation) instead of starting a new one. */
  readonly taskID?: string | undefined
  readonly agent: string
  /** A short (3–5 words) description of the task. */
  readonly description: string
  readonly prompt: string
  readonly abort: AbortSignal
}

export interface Outcome {
  /** The id that resumes this task. */
  readonly taskID: string
  /** The sub-agent's final answer. */
  readonly output: string
  readonly metadata?: Record<string, unknown> | undefined
}

export class SubagentError extends Schema.TaggedError<SubagentError>()("SubagentError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export class SubagentRunner extends Context.Service<SubagentRunner, {
  /** Why no sub-agent can run right now (e.g. the MCP client offers no sampling), or undefined. */
  readonly unavailable: Effect.Effect<string | undefined>
  /** The agent types the task tool offers. */
  readonly agents: ReadonlyArray<Agent>
  readonly run: (request: Request) => Effect.Effect<Outcome, SubagentError>
}>()("@agent-tools/core/SubagentRunner") {}

export const NO_RUNNER = "this runtime has no sub-agent runner"

/** No runner: the task tool is not offered. */
export const layerNone: Layer.Layer<SubagentRunner> = Layer.succeed(
  SubagentRunner,
  SubagentRunner.of({
    unavailable: Effect.succeed(NO_RUNNER),
    agents: [],
    run: () => Effect.fail(new SubagentError({ message: NO_RUNNER }))
  })
)
