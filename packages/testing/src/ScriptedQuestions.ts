/**
 * Scripted answers to the question tool, for tests: `layer(script)` provides a
 * `QuestionResponder` that answers each request by the script (a function of the request, or a
 * list of answers used in order; `"dismiss"` dismisses) and records it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { QuestionResponder } from "@agent-tools/core"

export type Reply = QuestionResponder.Answers | "dismiss"

export type Script = ((request: QuestionResponder.Request) => Reply) | ReadonlyArray<Reply>

export class Recorder extends Context.Service<Recorder, {
  readonly asked: Effect.Effect<ReadonlyArray<QuestionResponder.Request>>
}>()("@agent-tools/testing/ScriptedQuestions/Recorder") {}

export const layer = (script: Script): Layer.Layer<QuestionResponder.QuestionResponder | Recorder> =>
  Layer.effectContext(Effect.sync(() => {
    const asked: Array<QuestionResponder.Request> = []
    let index = 0
    const ask = (request: QuestionResponder.Request) =>
      Effect.suspend(() => {
        asked.push(request)
        const reply = typeof script === "function" ? script(request) : script[index++]
        if (reply === undefined) {
          return Effect.fail(new QuestionResponder.QuestionDismissedError({ reason: "ScriptedQuestions: no scripted answer left" }))
        }
        return reply === "dismiss"
          ? Effect.fail(new QuestionResponder.QuestionDismissedError({ reason: "The user dismissed this question" }))
          : Effect.succeed(reply)
      })
    return Context.make(
      QuestionResponder.QuestionResponder,
      QuestionResponder.QuestionResponder.of({ unavailable: Effect.undefined, ask })
    ).pipe(Context.add(Recorder, Recorder.of({ asked: Effect.sync(() => [...asked]) })))
  }))
