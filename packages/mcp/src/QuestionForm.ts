/**
 * The question tool's questions as one MCP elicitation form, and the answers read back from it.
 * Each question is a field `q1`, `q2`, …: a single choice (string with titled options), a
 * multiple choice (array of titled options) or, without options, free text; a question that
 * allows custom answers also gets a text field `q1_custom`, which wins when filled in.
 */
import { QuestionResponder } from "@agent-tools/core"
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js"

type Field = ElicitRequestFormParams["requestedSchema"]["properties"][string]

const choices = (q: QuestionResponder.Question) =>
  q.options.map((o) => ({ const: o.label, title: o.description === "" ? o.label : `${o.label} — ${o.description}` }))

const fieldOf = (q: QuestionResponder.Question): Field =>
  q.options.length === 0
    ? { type: "string", title: q.header, description: q.question }
    : q.multiple === true
    ? { type: "array", title: q.header, description: q.question, items: { anyOf: choices(q) } }
    : { type: "string", title: q.header, description: q.question, oneOf: choices(q) }

const allowsCustom = (q: QuestionResponder.Question) => q.custom !== false && q.options.length > 0

export const params = (questions: ReadonlyArray<QuestionResponder.Question>): ElicitRequestFormParams => {
  const properties: Record<string, Field> = {}
  questions.forEach((q, i) => {
    properties[`q${i + 1}`] = fieldOf(q)
    if (allowsCustom(q)) {
      properties[`q${i + 1}_custom`] = { type: "string", title: `${q.header}: your own answer`, description: "Leave empty to use the choice above" }
    }
  })
  const n = questions.length
  return {
    mode: "form",
    message: n === 1 ? `The assistant asks: ${questions[0]!.question}` : `The assistant asks ${n} questions:\n${questions.map((q, i) => `${i + 1}. ${q.question}`).join("\n")}`,
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
