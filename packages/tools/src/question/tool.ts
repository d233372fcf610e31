/**
 * question: asks the user through the runtime's `QuestionResponder` and returns the answers.
 * Offered only where a responder can answer (a terminal, a client with forms, a UI).
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { QuestionResponder, Tool } from "@agent-tools/core"
import { MAX_HEADER, MAX_LABEL } from "../internal/limits.ts"
import { QUESTION } from "./description.ts"

export { MAX_HEADER, MAX_LABEL }

const option = () =>
  z.object({
    label: z.string().trim().min(1).max(MAX_LABEL).describe(`Display text (1-5 words, concise, max ${MAX_LABEL} chars)`),
    description: z.string().describe("Explanation of choice")
  })

const question = () =>
  z.object({
    question: z.string().trim().min(1).describe("Complete question"),
    header: z.string().trim().min(1).max(MAX_HEADER).describe(`Very short label (max ${MAX_HEADER} chars)`),
    options: z.array(option()).describe("Available choices"),
    multiple: z.boolean().optional().describe("Allow selecting multiple choices"),
    custom: z.boolean().optional().describe("Allow typing a custom answer (default: true)")
  }).superRefine((q, check) => {
    const labels = new Set<string>()
    q.options.forEach((option, i) => {
      if (labels.has(option.label)) {
        check.addIssue({ code: "custom", path: ["options", i, "label"], message: `duplicate label "${option.label}"` })
      }
      labels.add(option.label)
    })
    if (q.options.length === 0 && q.custom === false) {
      check.addIssue({ code: "custom", path: ["options"], message: "a question without options must allow custom answers" })
    }
  })

const parameters = z.lazy(() =>
  z.object({
    questions: z.array(question()).min(1).describe("Questions to ask")
  })
)

/** What the model reads: each question with its answer, in order. */
export const summary = (
  questions: ReadonlyArray<Pick<QuestionResponder.Question, "question">>,
  answers: QuestionResponder.Answers
): string =>
  `User has answered your questions: ${
    questions.map((q, i) => `"${q.question}"="${answers[i]?.length ? answers[i].join(", ") : "Unanswered"}"`).join(", ")
  }. You can now continue with the user's answers in mind.`

export const QuestionTool = Tool.define(
  "question",
  Effect.gen(function*() {
    const responder = yield* QuestionResponder.QuestionResponder
    return {
      description: QUESTION,
      parameters,
      unavailable: responder.unavailable,
      // Asks no permission: the user answers the question itself.
      requests: () => Effect.succeed([]),
      execute: Effect.fn("QuestionTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context) {
        const answers = yield* responder.ask({
          sessionID: ctx.sessionID,
          callID: ctx.callID,
          questions: args.questions,
          abort: ctx.abort
        }).pipe(Effect.mapError((e) =>
          new Tool.ToolError({
            tool: "question",
            reason: e.reason === QuestionResponder.NO_RESPONDER ? "unavailable" : "aborted",
            message: e.message,
            cause: e
          })
        ))
        const n = args.questions.length
        return {
          title: `Asked ${n} question${n > 1 ? "s" : ""}`,
          output: summary(args.questions, answers),
          metadata: { answers }
        }
      }),
      annotations: { readOnly: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
