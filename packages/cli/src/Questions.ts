/**
 * The question tool at the terminal: each question is shown on stderr with its numbered options,
 * and a line is read through Effect's Terminal: option numbers (several, comma-separated, when
 * the question allows it), or text of one's own when custom answers are allowed; an empty line
 * leaves the question unanswered. Without a terminal the question tool is not offered. The
 * model's text is shown through `DisplayText` (controls and bidi characters escaped; the lines of
 * a multi-line question after a gutter, so they cannot pass for options).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Terminal from "effect/Terminal"
import type * as Context from "effect/Context"
import type * as Stdio from "effect/Stdio"
import { DisplayText, QuestionResponder } from "@agent-tools/core"
import * as Output from "./Output.ts"

export const NO_TERMINAL = "there is no terminal to ask on"

/** Question `i` of `n` as shown on the terminal, with its options and how to answer. */
export const render = (q: QuestionResponder.Question, i: number, n: number): string => {
  const lines = [`\n${n > 1 ? `(${i + 1}/${n}) ` : ""}${DisplayText.line(q.header)}: ${DisplayText.block(q.question, "  | ")}`]
  q.options.forEach((o, k) =>
    lines.push(`  ${k + 1}. ${DisplayText.line(o.label)}${o.description === "" ? "" : ` — ${DisplayText.line(o.description)}`}`)
  )
  const custom = q.custom !== false
  const how = q.options.length === 0
    ? "Type your answer"
    : q.multiple === true
    ? `Choose one or more (e.g. 1,3)${custom ? " or type your own answer" : ""}`
    : `Choose a number${custom ? " or type your own answer" : ""}`
  lines.push(`${how} (empty: no answer): `)
  return lines.join("\n")
}

/** The labels a line picks, or undefined when it is not a valid answer to the question. */
export const parseAnswer = (q: QuestionResponder.Question, line: string): ReadonlyArray<string> | undefined => {
  const text = line.trim()
  if (text === "") return []
  if (q.options.length > 0 && /^\d+(\s*,\s*\d+)*$/.test(text)) {
    const picked = text.split(",").map((s) => Number(s.trim()))
    if (picked.some((k) => k < 1 || k > q.options.length)) return undefined
    if (q.multiple !== true && picked.length > 1) return undefined
    return [...new Set(picked)].map((k) => q.options[k - 1]!.label)
  }
  return q.custom === false && q.options.length > 0 ? undefined : [text]
}

const ask = (services: Context.Context<Terminal.Terminal | Stdio.Stdio>) => (request: QuestionResponder.Request) =>
  Effect.gen(function*() {
    const terminal = yield* Terminal.Terminal
    const answers: Array<ReadonlyArray<string>> = []
    for (const [i, q] of request.questions.entries()) {
      yield* Output.stderr(render(q, i, request.questions.length))
      let answer: ReadonlyArray<string> | undefined
      while (answer === undefined) {
        const line = yield* terminal.readLine.pipe(Effect.orElseSucceed(() => undefined))
        if (line === undefined) return yield* new QuestionResponder.QuestionDismissedError({ reason: "The user dismissed this question" })
        answer = parseAnswer(q, line)
        if (answer === undefined) yield* Output.stderr(`Please answer with ${q.multiple === true ? "option numbers" : "an option number"}${q.custom === false ? "" : " or your own text"}: `)
      }
      answers.push(answer)
    }
    return answers
  }).pipe(Effect.provideContext(services))

/** The question responder of a CLI command: the terminal when stdin is one, else none. */
export const layer = (
  tty: boolean,
  services: Context.Context<Terminal.Terminal | Stdio.Stdio>
): Layer.Layer<QuestionResponder.QuestionResponder> =>
  Layer.succeed(
    QuestionResponder.QuestionResponder,
    QuestionResponder.QuestionResponder.of({
      unavailable: Effect.succeed(tty ? undefined : NO_TERMINAL),
      ask: tty ? ask(services) : () => Effect.fail(new QuestionResponder.QuestionDismissedError({ reason: NO_TERMINAL }))
    })
  )
