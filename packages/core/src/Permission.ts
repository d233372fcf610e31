/**
 * Allow / ask / deny rules with wildcards; asks that wait for a reply (once / always / reject).
 *
 * CONTRACT (implementation owned by the Permission work): keep these names and shapes.
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"

export type Action = "allow" | "ask" | "deny"
export type Reply = "once" | "always" | "reject"

export interface Rule {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
}
export type Ruleset = ReadonlyArray<Rule>

export interface AskInput {
  readonly sessionID: string
  readonly permission: string
  readonly patterns: ReadonlyArray<string>
  /** Patterns stored for the session when the user answers `always`. */
  readonly always?: ReadonlyArray<string> | undefined
  readonly metadata?: Record<string, unknown> | undefined
  readonly tool?: { readonly name: string; readonly callID: string } | undefined
  /** Extra rules for this ask (e.g. the agent's), evaluated after the configured ones. */
  readonly ruleset?: Ruleset | undefined
}

export interface Request extends AskInput {
  readonly id: string
}

export interface Decision {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
  /** The rule that decided; undefined when no rule matched (the default is `ask`). */
  readonly rule: Rule | undefined
}

export interface Explanation {
  /** deny if any pattern is denied, else ask if any needs asking, else allow. */
  readonly action: Action
  readonly decisions: ReadonlyArray<Decision>
}

export class PermissionRejectedError extends Schema.TaggedError<PermissionRejectedError>()("PermissionRejectedError", {
  requestID: Schema.String,
  permission: Schema.String,
  patterns: Schema.Array(Schema.String),
  feedback: Schema.optional(Schema.String)
}) {
  override get message() {
    return this.feedback === undefined
      ? "The user rejected permission to use this specific tool call."
      : `The user rejected permission to use this specific tool call with the following feedback: ${this.feedback}`
  }
}

export class PermissionDeniedError extends Schema.TaggedError<PermissionDeniedError>()("PermissionDeniedError", {
  permission: Schema.String,
  pattern: Schema.String,
  rule: Schema.Struct({ permission: Schema.String, pattern: Schema.String, action: Schema.Literals(["allow", "ask", "deny"]) })
}) {
  override get message() {
    return `A permission rule prevents this tool call: ${this.permission} "${this.pattern}" is denied by the rule ${
      JSON.stringify(this.rule)
    }.`
  }
}

export class Permission extends Context.Service<Permission, {
  /** Returns when every pattern is allowed (by rule or by reply); fails when one is denied or rejected. */
  readonly ask: (input: AskInput) => Effect.Effect<void, PermissionRejectedError | PermissionDeniedError>
  /** Answers a pending request; false when no such request is pending. */
  readonly reply: (input: {
    readonly requestID: string
    readonly reply: Reply
    readonly message?: string | undefined
  }) => Effect.Effect<boolean>
  readonly pending: Effect.Effect<ReadonlyArray<Request>>
  /** The decision for one permission and pattern (configured rules, then `extra`, then session approvals). */
  readonly evaluate: (permission: string, pattern: string, extra?: Ruleset) => Effect.Effect<Decision>
  /** What `ask` would decide, without asking. */
  readonly explain: (input: AskInput) => Effect.Effect<Explanation>
  /** The configured rules. */
  readonly rules: Ruleset
}>()("@agent-tools/core/Permission") {}
