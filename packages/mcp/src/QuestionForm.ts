/**
 * The question tool's questions as one MCP elicitation form, and the answers read back from it.
 * Each question is a field `q1`, `q2`, …: a single choice (string with titled options), a
 * multiple choice (array of titled options) or, without options, free text; a question that
 * allows custom answers also gets a text field `q1_custom`, which wins when filled in. The text
 * shown (message, titles, descriptions) goes through `DisplayText`; an option's `const` stays the
 * model's label, since it is what comes back as the answer.
 */
import { DisplayText, QuestionResponder } from "@agent-tools/core"
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js"

type Field = ElicitRequestFormParams["requestedSchema"]["properties"][string]

const choices = (q: QuestionResponder.Question) =>
  q.options.map((o) => ({
    const: o.label,
    title: DisplayText.line(o.description === "" ? o.label : `${o.label} — ${o.description}`)
  }))

/** A question's text: its own lines kept, each after the first set off so it cannot pass for another question. */
const GUTTER = "  | "
const questionText = (q: QuestionResponder.Question) => DisplayText.block(q.question, GUTTER)

const fieldOf = (q: QuestionResponder.Question): Field => {
  const title = DisplayText.line(q.header)
  const description = questionText(q)
  return q.options.length === 0
    ? { type: "string", title, description }
    : q.multiple === true
    ? { type: "array", title, description, items: { anyOf: choices(q) } }
    : { type: "string", title, description, oneOf: choices(q) }
}

const allowsCustom = (q: QuestionResponder.Question) => q.custom !== false && q.options.length > 0

export const params = (questions: ReadonlyArray<QuestionResponder.Question>): ElicitRequestFormParams => {
  const properties: Record<string, Field> = {}
  questions.forEach((q, i) => {
    properties[`q${i + 1}`] = fieldOf(q)
    if (allowsCustom(q)) {
      properties[`q${i + 1}_custom`] = {
        type: "string",
        title: `${DisplayText.line(q.header)}: your own answer`,
        description: "Leave empty to use the choice above"
      }
    }
  })
  const n = questions.length
  return {
    mode: "form",
    message: n === 1
      ? `The assistant asks: ${questionText(questions[0]!)}`
      : `The assistant asks ${n} questions:\n${questions.map((q, i) => `${i + 1}. ${questionText(q)}`).join("\n")}`,
    requestedSchema: { type: "object", properties }
  }
}

/** The answers of an accepted form; undefined when the user declined or cancelled. */
export const answersOf = (
  questions: ReadonlyArray<QuestionResponder.Question>,
  result: ElicitResult
): QuestionResponder.Answers | undefined => {
  if (result.action !== "accept") return undefined
  const content = result.content ?? {}
  return questions.map((q, i) => {
    const custom = content[`q${i + 1}_custom`]
    if (allowsCustom(q) && typeof custom === "string" && custom.trim() !== "") return [custom.trim()]
    const value = content[`q${i + 1}`]
    if (Array.isArray(value)) return value.filter((v) => typeof v === "string" && v !== "")
    return typeof value === "string" && value.trim() !== "" ? [value.trim()] : []
  })
}
