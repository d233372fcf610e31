/**
 * Runs a sub-agent for the task tool. The library ships no model loop: a runtime provides one
 * (its own agent loop; the MCP server's runs on the client's model through sampling; the test kit's
 * is scripted). Without one (`layerNone`), the task tool is not offered.
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

export interface Request {
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
