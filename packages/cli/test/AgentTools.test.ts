/**
 * The session and agent tools through the CLI: `tools --json` lists what a call from here can use
 * (question only on a terminal, no task without a runner, batch when enabled, skill), and
 * `call question` asks at the terminal.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { run, workspace } from "./harness.ts"

const live = (name: string, f: () => Effect.Effect<void, unknown, any>) =>
  it.live(name, () => Effect.scoped(f()).pipe(Effect.provide(NodeServices.layer)) as Effect.Effect<void>, 60_000)

const names = (stdout: string) => (JSON.parse(stdout) as Array<{ name: string }>).map((t) => t.name)

const BUILTINS = ["read", "write", "edit", "multiedit", "apply_patch", "grep", "glob", "list", "bash"]

describe("CLI: session and agent tools", () => {
  live("tools --json: todowrite, todoread, skill; question only on a terminal; batch when enabled; never task or invalid", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const piped = names((yield* run(["tools", "--json", "--cwd", ws.dir])).stdout)
      for (const id of [...BUILTINS, "todowrite", "todoread", "skill"]) assert.include(piped, id)
      for (const id of ["question", "task", "batch", "invalid"]) assert.notInclude(piped, id)
      const tty = names((yield* run(["tools", "--json", "--cwd", ws.dir], { tty: true })).stdout)
      assert.include(tty, "question")
      assert.notInclude(tty, "task")
      const enabled = yield* workspace({ config: { tools: { directories: [".agent/tools"] }, experimental: { batch_tool: true } } })
      assert.include(names((yield* run(["tools", "--json", "--cwd", enabled.dir])).stdout), "batch")
    }))

  live("call question asks at the terminal: option numbers, own text, empty for no answer", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const args = JSON.stringify({
        questions: [
          { question: "Which database?", header: "Database", options: [{ label: "Postgres", description: "Relational" }, { label: "SQLite", description: "" }] },
          { question: "Which features?", header: "Features", options: [{ label: "Auth", description: "" }, { label: "Search", description: "" }], multiple: true },
          { question: "Anything else?", header: "Notes", options: [] }
        ]
      })
      const r = yield* run(["call", "question", args, "--cwd", ws.dir], { tty: true, answers: ["7", "2", "1, 2", ""] })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(
        r.stdout,
        `User has answered your questions: "Which database?"="SQLite", "Which features?"="Auth, Search", "Anything else?"="Unanswered". You can now continue with the user's answers in mind.\n`
      )
      assert.include(r.stderr, "(1/3) Database: Which database?\n  1. Postgres — Relational\n  2. SQLite\nChoose a number or type your own answer (empty: no answer): ")
      assert.include(r.stderr, "Please answer with an option number or your own text: ")
      const custom = yield* run(["call", "question", args, "--cwd", ws.dir], { tty: true, answers: ["MariaDB", "1", "no"] })
      assert.include(custom.stdout, `"Which database?"="MariaDB", "Which features?"="Auth", "Anything else?"="no"`)
      const piped = yield* run(["call", "question", args, "--cwd", ws.dir])
      assert.strictEqual(piped.code, 2)
      assert.strictEqual(piped.stderr, `The question tool is not available to agent "build": there is no terminal to ask on.\n`)
    }))

  live("call bash with run_in_background: a one-shot call says plainly that jobs need a long-lived session", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const args = JSON.stringify({ command: "sleep 30", description: "wait", run_in_background: true })
      const r = yield* run(["call", "bash", args, "--cwd", ws.dir, "--yes"])
      assert.notStrictEqual(r.code, 0)
      assert.include(r.stderr, "background jobs need a long-lived session: the MCP server (agent-tools mcp) or the library")
      const output = yield* run(["call", "bash_output", `{"id":"job-1"}`, "--cwd", ws.dir])
      assert.include(output.stderr, "background jobs need a long-lived session")
    }))

  live("call todowrite; a skill of .agent-tools/skills loads and is listed in the description", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        files: { ".agent-tools/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the app\n---\nRun make deploy.\n" }
      })
      const written = yield* run(["call", "todowrite", JSON.stringify({ todos: [{ content: "ship", status: "pending" }] }), "--cwd", ws.dir, "--json"])
      assert.strictEqual(written.code, 0, written.stderr)
      assert.strictEqual((JSON.parse(written.stdout) as { title: string }).title, "1 todos")
      const skill = yield* run(["call", "skill", `{"name":"deploy"}`, "--cwd", ws.dir])
      assert.strictEqual(skill.code, 0, skill.stderr)
      assert.include(skill.stdout, `<skill_content name="deploy">\n# Skill: deploy\n\nRun make deploy.\n`)
      const tools = JSON.parse((yield* run(["tools", "--json", "--cwd", ws.dir])).stdout) as Array<{ name: string; description: string }>
      assert.include(tools.find((t) => t.name === "skill")?.description, "- **deploy**: Deploy the app")
    }))
  live("call --json: metadata bigger than the byte limit is bounded like the text (an 8 MB todo list, an upstream result)", () =>
    Effect.gen(function*() {
      const upstream = `export default {
  description: "Returns what an upstream MCP server returns: the same data as text and as structuredContent",
  execute: async () => {
    const data = { items: Array.from({ length: 15000 }, (_, i) => ({ id: i, body: "x".repeat(80) })) }
    return { title: "docs_search", output: JSON.stringify(data), metadata: { structuredContent: data } }
  }
}
`
      const ws = yield* workspace({ files: { ".agent/tools/upstream.js": upstream } })
      const size = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length
      const todos = Array.from({ length: 80_000 }, (_, i) => ({ content: `todo number ${i} ${"t".repeat(50)}`, status: "pending" }))
      assert.isAbove(size(todos), 8_000_000)
      const written = yield* run(["call", "todowrite", "-", "--cwd", ws.dir, "--json"], { stdin: JSON.stringify({ todos }) })
      assert.strictEqual(written.code, 0, written.stderr)
      const todo = JSON.parse(written.stdout) as { title: string; metadata: Record<string, unknown> }
      assert.strictEqual(todo.title, "80000 todos")
      assert.isAtMost(size(todo.metadata), 51200)
      assert.isTrue(todo.metadata.truncated)
      assert.include(String(todo.metadata.todos), `the full output is in ${todo.metadata.outputPath}`)

      const called = yield* run(["call", "upstream", "--cwd", ws.dir, "--json"])
      assert.strictEqual(called.code, 0, called.stderr)
      const result = JSON.parse(called.stdout) as { metadata: Record<string, unknown> }
      assert.isAtMost(size(result.metadata), 51200)
      assert.match(String(result.metadata.structuredContent), /^\[left out: \d+ bytes of metadata, over the 51200-byte limit of a result; the full output is in /)
    }))
})
