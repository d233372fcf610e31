/**
 * todowrite / todoread (a list per session, validated) and question (through the responder;
 * offered only where one exists).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { QuestionResponder } from "@agent-tools/core"
import { ScriptedQuestions } from "@agent-tools/testing"
import { call, callError, offered, registry } from "./harness.ts"

describe("todowrite / todoread", () => {
  it.effect("keeps one list per session; ids and priority default; the title counts open items", () =>
    Effect.gen(function*() {
      const written = yield* call("todowrite", {
        todos: [
          { content: "Write the parser", status: "completed", priority: "high" },
          { content: "Test it", status: "in_progress" },
          { content: "Ship", status: "pending", priority: "low", id: "ship" },
          { content: "Old idea", status: "cancelled", priority: "low" }
        ]
      })
      const todos = [
        { id: "1", content: "Write the parser", status: "completed", priority: "high" },
        { id: "2", content: "Test it", status: "in_progress", priority: "medium" },
        { id: "ship", content: "Ship", status: "pending", priority: "low" },
        { id: "4", content: "Old idea", status: "cancelled", priority: "low" }
      ]
      assert.strictEqual(written.title, "2 todos")
      assert.strictEqual(written.output, JSON.stringify(todos, null, 2))
      assert.deepStrictEqual(written.metadata.todos, todos)
      const read = yield* call("todoread", {})
      assert.strictEqual(read.output, written.output)
      const other = yield* call("todoread", {}, "s2")
      assert.strictEqual(other.output, "[]")
      assert.strictEqual(other.title, "0 todos")
      // A write replaces the whole list.
      yield* call("todowrite", { todos: [{ content: "Only this", status: "pending" }] })
      assert.deepStrictEqual((yield* call("todoread", {})).metadata.todos, [{ id: "1", content: "Only this", status: "pending", priority: "medium" }])
    }).pipe(Effect.provide(registry())))

  it.effect("bad items are refused naming the field", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* callError("todowrite", { todos: [{ content: "a", status: "done" }] }),
        `The todowrite tool was called with invalid arguments:\n- todos.0.status: Invalid option: expected one of "pending"|"in_progress"|"completed"|"cancelled"\nPlease rewrite the input so it satisfies the expected schema.`
      )
      assert.strictEqual(
        yield* callError("todowrite", { todos: [{ content: "  ", status: "pending", priority: "urgent" }] }),
        `The todowrite tool was called with invalid arguments:\n- todos.0.content: Too small: expected string to have >=1 characters\n- todos.0.priority: Invalid option: expected one of "high"|"medium"|"low"\nPlease rewrite the input so it satisfies the expected schema.`
      )
      assert.strictEqual(
        yield* callError("todowrite", { todos: [{ content: "a", status: "pending", id: "x" }, { content: "b", status: "pending", id: "x" }] }),
        `The todowrite tool was called with invalid arguments:\n- todos.1.id: duplicate id "x" (also item 0)\nPlease rewrite the input so it satisfies the expected schema.`
      )
      assert.strictEqual(
        yield* callError("todowrite", {}),
        `The todowrite tool was called with invalid arguments:\n- todos: Invalid input: expected array, received undefined\nPlease rewrite the input so it satisfies the expected schema.`
      )
    }).pipe(Effect.provide(registry())))

  it.effect("a deny rule on todowrite refuses the write and removes the tool", () =>
    Effect.gen(function*() {
      assert.notInclude(yield* offered, "todowrite")
      assert.include(yield* offered, "todoread")
      assert.strictEqual(
        yield* callError("todowrite", { todos: [] }),
        `The todowrite tool is not available to agent "build": a permission rule denies it.`
      )
    }).pipe(Effect.provide(registry({
      rules: [{ permission: "*", pattern: "*", action: "allow" }, { permission: "todowrite", pattern: "*", action: "deny" }]
    }))))
})

const questions = [
  {
    question: "Which database should we use?",
    header: "Database",
    options: [{ label: "Postgres (Recommended)", description: "Relational" }, { label: "SQLite", description: "Embedded" }]
  },
  {
    question: "Which features?",
    header: "Features",
    options: [{ label: "Auth", description: "Login" }, { label: "Search", description: "Full text" }],
    multiple: true
  }
]

describe("question", () => {
  it.effect("is not offered, and refuses to run, without a responder", () =>
    Effect.gen(function*() {
      assert.notInclude(yield* offered, "question")
      assert.strictEqual(
        yield* callError("question", { questions }),
        `The question tool is not available to agent "build": ${QuestionResponder.NO_RESPONDER}.`
      )
    }).pipe(Effect.provide(registry())))

  it.effect("asks through the responder and reports the answers in order", () =>
    Effect.gen(function*() {
      assert.include(yield* offered, "question")
      const result = yield* call("question", { questions })
      assert.strictEqual(result.title, "Asked 2 questions")
      assert.strictEqual(
        result.output,
        `User has answered your questions: "Which database should we use?"="Postgres (Recommended)", "Which features?"="Auth, Search". You can now continue with the user's answers in mind.`
      )
      assert.deepStrictEqual(result.metadata.answers, [["Postgres (Recommended)"], ["Auth", "Search"]])
      const [asked] = yield* (yield* ScriptedQuestions.Recorder).asked
      assert.strictEqual(asked?.sessionID, "s1")
      assert.strictEqual(asked?.callID, "c1")
      assert.deepStrictEqual(asked?.questions, questions)
      const unanswered = yield* call("question", { questions: [questions[0]] })
      assert.strictEqual(unanswered.title, "Asked 1 question")
      assert.include(unanswered.output, `"Which database should we use?"="Unanswered"`)
    }).pipe(Effect.provide(registry({ questions: ScriptedQuestions.layer([[["Postgres (Recommended)"], ["Auth", "Search"]], [[]]]) }))))

  it.effect("a dismissed question fails with the reason; bad questions name the field", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* callError("question", { questions }), "The user dismissed this question")
      assert.strictEqual(
        yield* callError("question", { questions: [] }),
        `The question tool was called with invalid arguments:\n- questions: Too small: expected array to have >=1 items\nPlease rewrite the input so it satisfies the expected schema.`
      )
      assert.strictEqual(
        yield* callError("question", {
          questions: [{ question: "Q?", header: "A header that is far too long to show", options: [{ label: "A", description: "" }, { label: "A", description: "" }, { label: "x".repeat(61), description: "" }] }]
        }),
        `The question tool was called with invalid arguments:\n- questions.0.header: Too big: expected string to have <=30 characters\n- questions.0.options.2.label: Too big: expected string to have <=60 characters\n- questions.0.options.1.label: duplicate label "A"\nPlease rewrite the input so it satisfies the expected schema.`
      )
      assert.strictEqual(
        yield* callError("question", { questions: [{ question: "Q?", header: "H", options: [], custom: false }] }),
        `The question tool was called with invalid arguments:\n- questions.0.options: a question without options must allow custom answers\nPlease rewrite the input so it satisfies the expected schema.`
      )
    }).pipe(Effect.provide(registry({ questions: ScriptedQuestions.layer(["dismiss"]) }))))
})
