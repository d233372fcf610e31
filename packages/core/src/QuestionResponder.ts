/**
 * Who answers the question tool: the person behind the runtime. The CLI asks on its terminal,
 * the MCP server sends an elicitation to its client, a UI shows its own dialog. Without one
 * (`layerNone`), the question tool is not offered.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

export interface Choice {
  /** What the user picks (1–5 words). */
  readonly label: string
  readonly description: string
}

export interface Question {
  readonly question: string
  /** A very short label for the question (a tab or field title). */
  readonly header: string
  readonly options: ReadonlyArray<Choice>
  /** Several options may be picked. */
  readonly multiple?: boolean | undefined
  /** The user may type an answer of their own (default true). */
  readonly custom?: boolean | undefined
}

export interface Request {
  readonly sessionID: string
  readonly callID: string
  readonly questions: ReadonlyArray<Question>
  readonly abort: AbortSignal
}

/** One entry per question, in order: the labels picked (or the text typed); empty when unanswered. */
export type Answers = ReadonlyArray<ReadonlyArray<string>>

export class QuestionDismissedError extends Schema.TaggedError<QuestionDismissedError>()("QuestionDismissedError", {
  /** Why, for the model: the user dismissed it, the prompt failed, … */
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

export class QuestionResponder extends Context.Service<QuestionResponder, {
  /** Why no one can answer right now (no terminal, a client without forms), or undefined. */
  readonly unavailable: Effect.Effect<string | undefined>
  readonly ask: (request: Request) => Effect.Effect<Answers, QuestionDismissedError>
}>()("@agent-tools/core/QuestionResponder") {}

export const NO_RESPONDER = "no one can answer questions in this runtime (no question responder)"

/** No one to ask: the question tool is not offered. */
export const layerNone: Layer.Layer<QuestionResponder> = Layer.succeed(
  QuestionResponder,
  QuestionResponder.of({
    unavailable: Effect.succeed(NO_RESPONDER),
    ask: () => Effect.fail(new QuestionDismissedError({ reason: NO_RESPONDER }))
  })
)
