/**
 * What the client lends the tools, through a real server process and the SDK client: question
 * is listed to clients with forms and asks through an elicitation; task is listed to clients that
 * offer sampling and runs its sub-agent on `sampling/createMessage`, with this server's tools when
 * the client supports tools in sampling, resumable by task_id.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ElicitRequestFormParams, SamplingMessage } from "@modelcontextprotocol/sdk/types.js"
import { connect, makeWorkspace, NodePlatform, text } from "./harness.ts"

const listed = (conn: { readonly client: { listTools: () => Promise<{ tools: Array<{ name: string }> }> } }) =>
  Effect.promise(() => conn.client.listTools()).pipe(Effect.map((r) => r.tools.map((t) => t.name)))

const live = (name: string, f: () => Effect.Effect<void, unknown, any>) =>
  it.live(name, () => Effect.scoped(f()).pipe(Effect.provide(NodePlatform)) as Effect.Effect<void>, 60_000)

const lastMessage = (messages: ReadonlyArray<SamplingMessage>) => messages[messages.length - 1]

describe("MCP client services", () => {
  live("question and task are listed only to clients that can serve them", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({ "a.txt": "hello\n" })
      const plain = yield* connect({ root, elicitation: false })
      const plainTools = yield* listed(plain)
      assert.notInclude(plainTools, "question")
      assert.notInclude(plainTools, "task")
      assert.include(plainTools, "todowrite")
      assert.include(plainTools, "skill")
      const unavailable = yield* plain.call("task", { description: "d", prompt: "p", subagent_type: "general" })
      assert.strictEqual(text(unavailable), `The task tool is not available to agent "build": the MCP client does not offer sampling.`)
      const full = yield* connect({ root, elicitation: true, sampling: true })
      const fullTools = yield* listed(full)
      assert.include(fullTools, "question")
      assert.include(fullTools, "task")
      assert.notInclude(fullTools, "invalid")
      const task = (yield* Effect.promise(() => full.client.listTools())).tools.find((t) => t.name === "task")
      assert.include(task?.description, "Available agent types and the tools they have access to:\n- general: General-purpose agent")
    }))

  live("question: one form for all questions; choices and custom answers come back per question", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({})
      const conn = yield* connect({ root })
      conn.onElicit((params) => {
        const props = (params as ElicitRequestFormParams).requestedSchema.properties
        return "q1" in props && "q2" in props
          ? { action: "accept", content: { q1: "SQLite", q2: ["Auth", "Search"], q2_custom: "" } }
          : { action: "decline" }
      })
      const result = yield* conn.call("question", {
        questions: [
          { question: "Which database?", header: "Database", options: [{ label: "Postgres", description: "Relational" }, { label: "SQLite", description: "" }] },
          { question: "Which features?", header: "Features", options: [{ label: "Auth", description: "" }, { label: "Search", description: "" }], multiple: true }
        ]
      })
      assert.isUndefined(result.isError)
      assert.strictEqual(
        text(result),
        `User has answered your questions: "Which database?"="SQLite", "Which features?"="Auth, Search". You can now continue with the user's answers in mind.`
      )
      const form = conn.elicitations.at(-1) as ElicitRequestFormParams
      assert.strictEqual(form.message, "The assistant asks 2 questions:\n1. Which database?\n2. Which features?")
      assert.deepStrictEqual(form.requestedSchema.properties.q1, {
        type: "string",
        title: "Database",
        description: "Which database?",
        oneOf: [{ const: "Postgres", title: "Postgres — Relational" }, { const: "SQLite", title: "SQLite" }]
      })
      assert.deepStrictEqual(form.requestedSchema.properties.q2, {
        type: "array",
        title: "Features",
        description: "Which features?",
        items: { anyOf: [{ const: "Auth", title: "Auth" }, { const: "Search", title: "Search" }] }
      })
      const declined = yield* conn.call("question", { questions: [{ question: "Go?", header: "Go", options: [{ label: "Yes", description: "" }] }] })
      assert.strictEqual(declined.isError, true)
      assert.strictEqual(text(declined), "The user dismissed this question")
    }))

  live("task: the sub-agent runs on the client's model; task_id continues its conversation", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({})
      const conn = yield* connect({ root, sampling: true })
      let turn = 0
      conn.onSample(() => ({ role: "assistant", model: "test-model", content: { type: "text", text: `answer ${++turn}` } }))
      const first = yield* conn.call("task", { description: "Explore", prompt: "Where is main?", subagent_type: "general" })
      assert.isUndefined(first.isError, text(first))
      assert.strictEqual(text(first), "task_id: mcp_task_1 (for resuming to continue this task if needed)\n\n<task_result>\nanswer 1\n</task_result>")
      assert.deepStrictEqual(conn.samplings[0]?.messages, [{ role: "user", content: { type: "text", text: "Where is main?" } }])
      assert.isUndefined(conn.samplings[0]?.tools)
      const again = yield* conn.call("task", { description: "More", prompt: "And tests?", subagent_type: "general", task_id: "mcp_task_1" })
      assert.include(text(again), "task_id: mcp_task_1 ")
      assert.deepStrictEqual(conn.samplings[1]?.messages, [
        { role: "user", content: { type: "text", text: "Where is main?" } },
        { role: "assistant", content: { type: "text", text: "answer 1" } },
        { role: "user", content: { type: "text", text: "And tests?" } }
      ])
      const unknown = yield* conn.call("task", { description: "d", prompt: "p", subagent_type: "explore" })
      assert.strictEqual(text(unknown), "Unknown agent type: explore is not a valid agent type. Available agent types: general")
    }))

  live("task with sampling tools: the model's tool uses run through the registry until it answers", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({ "notes.txt": "the secret is 42\n" })
      const conn = yield* connect({ root, sampling: "tools" })
      conn.onSample((params) => {
        const last = lastMessage(params.messages)
        const results = Array.isArray(last?.content) ? last.content : [last?.content]
        const result = results.find((c) => c?.type === "tool_result")
        if (result === undefined) {
          return {
            role: "assistant",
            model: "test-model",
            stopReason: "toolUse",
            content: [{ type: "tool_use", id: "use_1", name: "read", input: { filePath: "notes.txt" } }]
          }
        }
        const seen = result.type === "tool_result" && result.content[0]?.type === "text" ? result.content[0].text : ""
        return { role: "assistant", model: "test-model", stopReason: "endTurn", content: [{ type: "text", text: seen.includes("the secret is 42") ? "It is 42." : "not found" }] }
      })
      const result = yield* conn.call("task", { description: "Find it", prompt: "What is the secret?", subagent_type: "general" })
      assert.isUndefined(result.isError, text(result))
      assert.include(text(result), "<task_result>\nIt is 42.\n</task_result>")
      const names = (conn.samplings[0]?.tools ?? []).map((t) => t.name)
      assert.include(names, "read")
      for (const excluded of ["task", "question", "batch", "todowrite"]) assert.notInclude(names, excluded)
      assert.strictEqual(conn.samplings.length, 2)
    }))
  live("task with sampling tools: a tool left out of the sub-agent's list is refused by name", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({ "a.txt": "x\n" })
      const conn = yield* connect({ root, sampling: "tools" })
      const seen: Array<string> = []
      conn.onSample((params) => {
        const last = lastMessage(params.messages)
        const results = Array.isArray(last?.content) ? last.content : [last?.content]
        const found = results.filter((c) => c?.type === "tool_result")
        if (found.length === 0) {
          return {
            role: "assistant",
            model: "test-model",
            stopReason: "toolUse",
            content: [
              { type: "tool_use", id: "use_1", name: "task", input: { description: "d", prompt: "p", subagent_type: "general" } },
              { type: "tool_use", id: "use_2", name: "todowrite", input: { todos: [] } }
            ]
          }
        }
        for (const r of found) {
          if (r?.type === "tool_result") seen.push(`${r.isError === true ? "error" : "ok"}: ${r.content[0]?.type === "text" ? r.content[0].text : ""}`)
        }
        return { role: "assistant", model: "test-model", stopReason: "endTurn", content: [{ type: "text", text: "done" }] }
      })
      const result = yield* conn.call("task", { description: "Nest", prompt: "Start another task", subagent_type: "general" })
      assert.isUndefined(result.isError, text(result))
      assert.strictEqual(seen.length, 2)
      assert.match(seen[0]!, /^error: The task tool is not available to agent "build": it is not among the tools this agent was given \(.*read.*\)\.$/)
      assert.match(seen[1]!, /^error: The todowrite tool is not available to agent "build": it is not among the tools this agent was given/)
      // the nested task never reached the client's model
      assert.strictEqual(conn.samplings.length, 2)
    }))
})
