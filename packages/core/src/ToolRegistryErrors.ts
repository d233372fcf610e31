/**
 * Why a call to the registry could not reach its tool: no tool of that name, or one that cannot be
 * called here (disabled, denied, not given to this agent, unavailable right now).
 */
import * as Schema from "effect/Schema"

export class UnknownToolError extends Schema.TaggedError<UnknownToolError>()("UnknownToolError", {
  tool: Schema.String,
  available: Schema.Array(Schema.String)
}) {
  override get message() {
    return `Unknown tool "${this.tool}". Available tools: ${this.available.join(", ")}.`
  }
}

/**
 * The tool exists but cannot be called here. `reason`, for code: `disabled` in the configuration,
 * `denied` by a permission rule, `not-given` to this agent (a sub-agent's tool list), `unavailable`
 * right now (the tool says why: no responder, no runner, a flag off; or its source failed to
 * load). `detail` says it in words.
 */
export class ToolUnavailableError extends Schema.TaggedError<ToolUnavailableError>()("ToolUnavailableError", {
  tool: Schema.String,
  agent: Schema.String,
  reason: Schema.Literals(["disabled", "denied", "not-given", "unavailable"]),
  detail: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message() {
    return `The ${this.tool} tool is not available to agent "${this.agent}": ${this.detail}.`
  }
}
