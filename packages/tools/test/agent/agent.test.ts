/**
 * task (through the scripted runner), batch (concurrent calls through the whole pipeline),
 * invalid (where unusable calls go) and skill (discovered SKILL.md folders, filtered by permission).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, Stream } from "effect"
import { InvalidCall, Permission, SubagentRunner, Tool, ToolRegistry } from "@agent-tools/core"
import { ScriptedSubagent } from "@agent-tools/testing"
import { allowAll, call, callError, context, offered, registry } from "./harness.ts"

const agents = [
  { name: "general", description: "General-purpose agent for multi-step tasks" },
  { name: "explore", description: "Fast agent specialized for exploring codebases" }
]

const description = (id: string) =>
  ToolRegistry.ToolRegistry.use((reg) => Effect.map(reg.get(id), (t) => Option.getOrThrow(t).description))

describe("task", () => {
  it.effect("is not offered without a runner", () =>
    Effect.gen(function*() {
      assert.notInclude(yield* offered, "task")
      assert.strictEqual(
        yield* callError("task", { description: "d", prompt: "p", subagent_type: "general" }),
        `The task tool is not available to agent "build": ${SubagentRunner.NO_RUNNER}.`
      )
    }).pipe(Effect.provide(registry())))

  it.effect("lists the agent types not denied, runs one, resumes it by task_id", () =>
    Effect.gen(function*() {
      assert.include(yield* offered, "task")
      const text = yield* description("task")
      assert.include(
        text,
        "Available agent types and the tools they have access to:\n- explore: Fast agent specialized for exploring codebases"
      )
      assert.notInclude(text, "general")
      const first = yield* call("task", { description: "Find the parser", prompt: "Where is the parser?", subagent_type: "explore" })
      assert.strictEqual(first.title, "Find the parser")
      assert.strictEqual(
        first.output,
        "task_id: task_1 (for resuming to continue this task if needed)\n\n<task_result>\nIt is in src/parser.ts\n</task_result>"
      )
      assert.strictEqual(first.metadata.task_id, "task_1")
      const again = yield* call("task", { description: "More", prompt: "And its tests?", subagent_type: "explore", task_id: "task_1" })
      assert.include(again.output, "<task_result>\nAfter 1 earlier prompt(s): test/parser.test.ts\n</task_result>")
      const runs = yield* (yield* ScriptedSubagent.Recorder).runs
      assert.deepStrictEqual(runs.map((r) => [r.taskID, r.resumed, r.request.agent, r.request.prompt]), [
        ["task_1", false, "explore", "Where is the parser?"],
        ["task_1", true, "explore", "And its tests?"]
      ])
      assert.strictEqual(
        yield* callError("task", { description: "d", prompt: "p", subagent_type: "general" }),
        "Unknown agent type: general is not a valid agent type. Available agent types: explore"
      )
      assert.strictEqual(
        yield* callError("task", { description: "d", prompt: "p" }),
        "The task tool was called with invalid arguments:\n- subagent_type: Invalid input: expected string, received undefined\nPlease rewrite the input so it satisfies the expected schema."
      )
    }).pipe(Effect.provide(registry({
      rules: [...allowAll, { permission: "task", pattern: "general", action: "deny" }],
      runner: ScriptedSubagent.layer({
        agents,
        script: (_request, history) => history.length === 0 ? "It is in src/parser.ts" : `After ${history.length} earlier prompt(s): test/parser.test.ts`
      })
    }))))

  it.effect("the sub-agent's answer is truncated like any output; a failing run names the agent", () =>
    Effect.gen(function*() {
      const long = yield* call("task", { description: "Dump", prompt: "p", subagent_type: "general" })
      assert.isTrue(long.metadata.truncated)
      assert.isString(long.metadata.outputPath)
      assert.include(long.output, "lines truncated")
      assert.strictEqual(
        yield* callError("task", { description: "d", prompt: "p", subagent_type: "general" }),
        "The general agent failed: the model is overloaded"
      )
    }).pipe(Effect.provide(registry({
      truncation: { maxLines: 10 },
      runner: ScriptedSubagent.layer({
        agents,
        script: [Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n"), { fail: "the model is overloaded" }]
      })
    }))))

  it.effect("asks the task permission with the agent type", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("task", { description: "d", prompt: "p", subagent_type: "general" }))
      assert.strictEqual(error._tag, "PermissionRejectedError")
      assert.deepStrictEqual(error._tag === "PermissionRejectedError" ? [error.permission, error.patterns] : [], ["task", ["general"]])
      assert.deepStrictEqual(yield* (yield* ScriptedSubagent.Recorder).runs, [])
    }).pipe(Effect.provide(registry({
      rules: [...allowAll, { permission: "task", pattern: "general", action: "ask" }],
      runner: ScriptedSubagent.layer({ agents, script: ["never runs"] })
    }))))

  // A call with a context as a runner gives its sub-agent's tool calls.
  const callAs = (tool: string, args: unknown, extra: { readonly depth?: number; readonly tools?: ReadonlyArray<string> }) =>
    Effect.gen(function*() {
      const ctx = yield* Tool.makeContext({ sessionID: "s1", callID: "c1", ...extra })
      return yield* ToolRegistry.ToolRegistry.use((reg) => reg.execute(tool, args, ctx))
    })

  it.effect("a tool left out of a sub-agent's list is refused by name, under any case and through batch", () =>
    Effect.gen(function*() {
      const given = ["read", "batch"]
      for (const tool of ["task", "TodoWrite"]) {
        const error = yield* Effect.flip(callAs(tool, { description: "d", prompt: "p", subagent_type: "general", todos: [] }, { tools: given }))
        assert.strictEqual(
          error.message,
          `The ${tool.toLowerCase()} tool is not available to agent "build": it is not among the tools this agent was given (read, batch).`
        )
      }
      const batched = yield* callAs("batch", { tool_calls: [{ tool: "todowrite", parameters: { todos: [] } }] }, { tools: given })
      assert.include(batched.output, `Error: The todowrite tool is not available to agent "build": it is not among the tools this agent was given (read, batch).`)
      assert.deepStrictEqual(yield* (yield* ScriptedSubagent.Recorder).runs, [])
      // the tools it was given still run
      assert.include((yield* callAs("read", { filePath: "a.txt" }, { tools: given })).output, "alpha")
    }).pipe(Effect.provide(registry({ files: { "a.txt": "alpha\n" }, batch: true, runner: ScriptedSubagent.layer({ agents, script: ["never runs"] }) }))))

  it.effect(`task refuses to nest deeper than ${SubagentRunner.MAX_DEPTH} sub-agents; each run is told its depth`, () =>
    Effect.gen(function*() {
      const args = { description: "d", prompt: "p", subagent_type: "general" }
      yield* call("task", args)
      yield* callAs("task", args, { depth: SubagentRunner.MAX_DEPTH - 1 })
      const runs = yield* (yield* ScriptedSubagent.Recorder).runs
      assert.deepStrictEqual(runs.map((r) => r.request.depth), [1, SubagentRunner.MAX_DEPTH])
      const error = yield* Effect.flip(callAs("task", args, { depth: SubagentRunner.MAX_DEPTH }))
      assert.strictEqual(
        error.message,
        `A sub-agent cannot start another sub-agent here: this call is ${SubagentRunner.MAX_DEPTH} sub-agents deep and at most ${SubagentRunner.MAX_DEPTH} may be nested. Do the task with your own tools instead.`
      )
      // even when the agent's own list names task
      assert.strictEqual(
        (yield* Effect.flip(callAs("task", args, { depth: SubagentRunner.MAX_DEPTH, tools: ["task"] }))).message,
        error.message
      )
      assert.strictEqual((yield* (yield* ScriptedSubagent.Recorder).runs).length, 2)
    }).pipe(Effect.provide(registry({ runner: ScriptedSubagent.layer({ agents, script: () => "done" }) }))))
})

const files = { "a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n" }
const seen: Array<string> = []

describe("batch", () => {
  it.effect("is off unless enabled", () =>
    Effect.gen(function*() {
      assert.notInclude(yield* offered, "batch")
      assert.strictEqual(
        yield* callError("batch", { tool_calls: [{ tool: "read", parameters: { filePath: "a.txt" } }] }),
        `The batch tool is not available to agent "build": it is experimental and off: set experimental.batch_tool to true in agent-tools.json to enable it.`
      )
    }).pipe(Effect.provide(registry({ files }))))

  it.effect("runs the calls through the registry, results in order; a failure does not stop the others", () =>
    Effect.gen(function*() {
      assert.include(yield* offered, "batch")
      const result = yield* call("batch", {
        tool_calls: [
          { tool: "read", parameters: { filePath: "a.txt" } },
          { tool: "nope", parameters: {} },
          { tool: "read", parameters: { filePath: "b.txt" } },
          { tool: "batch", parameters: { tool_calls: [] } },
          { tool: "read", parameters: {} },
          { tool: "write", parameters: { filePath: "new.txt", content: "x" } },
          { tool: "read", parameters: { filePath: "c.txt" } }
        ]
      })
      assert.strictEqual(result.title, "Batch execution (3/7 successful)")
      const blocks = result.output.split("\n\n<tool_result ")
      assert.strictEqual(blocks[0], "Executed 3/7 tools successfully. 4 failed.")
      assert.match(blocks[1]!, /^index="1" tool="read" status="success" title="\/ws\/a.txt">\n<path>\/ws\/a.txt<\/path>\n[\s\S]*1: alpha[\s\S]*<\/tool_result>$/)
      assert.strictEqual(blocks[2], `index="2" tool="nope" status="error">\nError: Unknown tool "nope". Available tools: read, todowrite, todoread, batch, skill.\n</tool_result>`)
      assert.match(blocks[3]!, /^index="3" tool="read" status="success" title="\/ws\/b.txt">\n[\s\S]*1: beta/)
      assert.strictEqual(blocks[4], `index="4" tool="batch" status="error">\nError: Tool 'batch' is not allowed in batch. Disallowed tools: batch\n</tool_result>`)
      assert.include(blocks[5]!, `index="5" tool="read" status="error">\nError: The read tool was called with invalid arguments:\n- filePath: Invalid input: expected string, received undefined`)
      assert.strictEqual(blocks[6], `index="6" tool="write" status="error">\nError: The write tool is not available to agent "build": a permission rule denies it.\n</tool_result>`)
      assert.match(blocks[7]!, /^index="7" tool="read" status="success" title="\/ws\/c.txt">\n[\s\S]*1: gamma/)
      assert.deepStrictEqual(result.metadata.tools, ["read", "nope", "read", "batch", "read", "write", "read"])
      assert.deepStrictEqual((result.metadata.details as Array<{ success: boolean }>).map((d) => d.success), [true, false, true, false, false, false, true])
    }).pipe(Effect.provide(registry({ files, batch: true, rules: [...allowAll, { permission: "edit", pattern: "*", action: "deny" }] }))))

  it.effect("more than 25 calls: the rest are refused; each call shares the output budget", () =>
    Effect.gen(function*() {
      const result = yield* call("batch", {
        tool_calls: Array.from({ length: 27 }, () => ({ tool: "read", parameters: { filePath: "big.txt" } }))
      })
      assert.strictEqual(result.title, "Batch execution (25/27 successful)")
      assert.include(result.output, `index="26" tool="read" status="error">\nError: Maximum of 25 tools allowed in batch\n</tool_result>`)
      assert.include(result.output, `index="27" tool="read" status="error">\nError: Maximum of 25 tools allowed in batch`)
      // 25 reads of a 1000-line file within 2000 lines: each read got its share and the whole fits.
      // read fits its page to the share itself, so nothing is spilled: its footer says where the
      // model continues in the file.
      assert.isFalse(result.metadata.truncated)
      assert.isAtMost(result.output.split("\n").length, 2000)
      const details = result.metadata.details as Array<{ metadata?: { truncated?: boolean; outputPath?: string } }>
      assert.isTrue(details[0]?.metadata?.truncated)
      assert.isUndefined(details[0]?.metadata?.outputPath)
      const first = result.output.split("</tool_result>")[0]!
      assert.match(first, /\(Showing lines 1-\d+ of 1000\. Use offset=\d+ to continue\.\)/)
      assert.isAtMost(first.split("\n").length, 2000 / 25)
    }).pipe(Effect.provide(registry({
      files: { "big.txt": Array.from({ length: 1000 }, (_, i) => `row ${i}`).join("\n") },
      batch: true
    }))))

  it.effect("each call passes the registry's hooks, with its own call id", () =>
    Effect.gen(function*() {
      const result = yield* call("batch", {
        tool_calls: [{ tool: "read", parameters: { filePath: "a.txt" } }, { tool: "read", parameters: { filePath: "b.txt" } }]
      })
      assert.strictEqual(result.title, "Batch execution (1/2 successful)")
      assert.include(result.output, `index="2" tool="read" status="error">\nError: The before hook of guard failed: b.txt is off limits\n</tool_result>`)
      assert.deepStrictEqual(seen, ["batch c1", "read c1/1", "read c1/2"])
    }).pipe(Effect.provide(registry({
      files,
      batch: true,
      registryOptions: {
        hooks: [{
          name: "guard",
          before: ({ tool, ctx, args }) => {
            seen.push(`${tool} ${ctx.callID}`)
            if (tool === "read" && args.filePath === "b.txt") throw new Error("b.txt is off limits")
          }
        }]
      }
    }))))

  it.effect("bad payloads get the expected format", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* callError("batch", { tool_calls: [] }),
        `Invalid parameters for tool 'batch':\n  - tool_calls: Provide at least one tool call\n\nExpected payload format:\n  [{"tool": "tool_name", "parameters": {...}}, {...}]`
      )
      assert.strictEqual(
        yield* callError("batch", { tool_calls: [{ tool: "read" }] }),
        `Invalid parameters for tool 'batch':\n  - tool_calls.0.parameters: Invalid input: expected record, received undefined\n\nExpected payload format:\n  [{"tool": "tool_name", "parameters": {...}}, {...}]`
      )
    }).pipe(Effect.provide(registry({ batch: true }))))

  it.live("calls run concurrently (a slow call does not hold the others back)", () =>
    Effect.gen(function*() {
      const reg = yield* ToolRegistry.ToolRegistry
      const permission = yield* Permission.Permission
      const ctx = yield* context()
      // The write waits on a permission prompt; the reads beside it finish meanwhile.
      const fiber = yield* Effect.forkChild(reg.execute("batch", {
        tool_calls: [
          { tool: "write", parameters: { filePath: "w.txt", content: "w" } },
          { tool: "read", parameters: { filePath: "a.txt" } }
        ]
      }, ctx))
      const pending = yield* Stream.runCollect(Stream.take(permission.asks, 1))
      yield* permission.reply({ requestID: pending[0]!.id, reply: "once" })
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.title, "Batch execution (2/2 successful)")
    }).pipe(Effect.provide(registry({
      files,
      batch: true,
      unattended: "wait",
      rules: [...allowAll, { permission: "edit", pattern: "*", action: "ask" }]
    }))), 20_000)
})

describe("invalid", () => {
  it.effect("is hidden; unknown tools and bad arguments are routed to it with the valid tools", () =>
    Effect.gen(function*() {
      assert.notInclude(yield* offered, "invalid")
      const reg = yield* ToolRegistry.ToolRegistry
      const ctx = yield* context()
      const unknown = yield* InvalidCall.execute(reg, "raed", { filePath: "a.txt" }, ctx)
      assert.strictEqual(unknown.title, "Invalid Tool")
      assert.strictEqual(
        unknown.output,
        `The call to tool "raed" was not run: there is no tool named "raed".\nValid tools: read, write, todowrite, todoread, skill.`
      )
      const bad = yield* InvalidCall.execute(reg, "read", { path: "a.txt" }, ctx)
      assert.strictEqual(
        bad.output,
        `The call to tool "read" was not run: its arguments do not fit the tool's schema:\n- filePath: Invalid input: expected string, received undefined\nValid tools: read, write, todowrite, todoread, skill.`
      )
      // Provider control tokens leaked into a call are not echoed back to the model.
      const leaked = yield* InvalidCall.execute(reg, "<|tool_call_begin|>functions.read<｜tool▁call▁begin｜>", {}, ctx)
      assert.strictEqual(leaked.metadata.tool, "functions.read")
      assert.strictEqual(
        leaked.output,
        `The call to tool "functions.read" was not run: there is no tool named "functions.read".\nValid tools: read, write, todowrite, todoread, skill.`
      )
      const routedError = yield* call("invalid", { tool: "read", error: "<|im_start|>assistant bad <|im_end|>call" })
      assert.include(routedError.output, `was not run: assistant bad call`)
      const fine = yield* InvalidCall.execute(reg, "read", { filePath: "a.txt" }, ctx)
      assert.include(fine.output, "1: alpha")
      // Other failures are not the model's to fix by rewriting the call: they stay failures.
      const missing = yield* Effect.flip(InvalidCall.execute(reg, "read", { filePath: "missing.txt" }, ctx))
      assert.strictEqual(missing._tag, "ToolError")
    }).pipe(Effect.provide(registry({ files }))))
})

const skill = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`

describe("skill", () => {
  const skillFiles = {
    ".agent-tools/skills/release/SKILL.md": skill("release-notes", "Write release notes from the git log", "# Release notes\n\nRun scripts/log.sh first."),
    ".agent-tools/skills/release/scripts/log.sh": "git log\n",
    ".agent-tools/skills/release/reference/format.md": "format\n",
    ".claude/skills/pdf/SKILL.md": `---\nname: "pdf"\ndescription: >\n  Fill PDF forms\n  and extract text\n---\nUse pdftotext.\n`,
    ".claude/skills/secret/SKILL.md": skill("secret", "Internal only", "hidden"),
    ".claude/skills/broken/SKILL.md": "no front matter\n"
  }

  it.effect("lists the skills not denied; loads one with its folder and files", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* description("skill"),
        "Load a specialized skill that provides domain-specific instructions and workflows.\n\n" +
          "When you recognize that a task matches one of the available skills listed below, use this tool to load the full skill instructions.\n" +
          "The skill will inject detailed instructions, workflows, and access to bundled resources (scripts, references, templates) into the conversation context.\n" +
          "Tool output includes a `<skill_content name=\"...\">` block with the loaded content.\n\n" +
          "Invoke this tool to load a skill when a task matches one of the available skills listed below:\n\n" +
          "## Available Skills\n- **pdf**: Fill PDF forms and extract text\n- **release-notes**: Write release notes from the git log"
      )
      const loaded = yield* call("skill", { name: "release-notes" })
      assert.strictEqual(loaded.title, "Loaded skill: release-notes")
      assert.strictEqual(
        loaded.output,
        [
          `<skill_content name="release-notes">`,
          "# Skill: release-notes",
          "",
          "# Release notes\n\nRun scripts/log.sh first.",
          "",
          "Base directory for this skill: file:///ws/.agent-tools/skills/release",
          "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
          "Note: file list is sampled.",
          "",
          "<skill_files>",
          "<file>/ws/.agent-tools/skills/release/reference/format.md</file>",
          "<file>/ws/.agent-tools/skills/release/scripts/log.sh</file>",
          "</skill_files>",
          "</skill_content>"
        ].join("\n")
      )
      assert.deepStrictEqual(loaded.metadata.dir, "/ws/.agent-tools/skills/release")
      assert.strictEqual(
        yield* callError("skill", { name: "secret" }),
        `Skill "secret" not found. Available skills: pdf, release-notes`
      )
    }).pipe(Effect.provide(registry({ files: skillFiles, rules: [...allowAll, { permission: "skill", pattern: "secret", action: "deny" }] }))))

  it.effect("asks the skill permission with the skill's name; configured directories only", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("skill", { name: "pdf" }))
      assert.deepStrictEqual(error._tag === "PermissionRejectedError" ? [error.permission, error.patterns] : [], ["skill", ["pdf"]])
      assert.include(yield* description("skill"), "- **pdf**")
      assert.notInclude(yield* description("skill"), "release-notes")
    }).pipe(Effect.provide(registry({
      files: skillFiles,
      skillDirectories: [".claude/skills"],
      rules: [...allowAll, { permission: "skill", pattern: "pdf", action: "ask" }]
    }))))

  const linkedFiles = {
    "/outside/secret/SKILL.md": skill("stolen", "Outside the workspace", "the secret"),
    "/outside/allowed/SKILL.md": skill("user-skill", "A skill of a configured directory outside", "user body"),
    "shared/deploy/SKILL.md": skill("deploy", "Kept elsewhere in the workspace", "deploy body"),
    ".agent-tools/skills/ok/SKILL.md": skill("ok", "A plain skill", "ok body")
  }
  const linked = {
    "/ws/.agent-tools/skills/x/SKILL.md": "/outside/secret/SKILL.md",
    "/ws/.agent-tools/skills/deploy": "/ws/shared/deploy"
  }

  it.effect("a SKILL.md linked out of the workspace is skipped: neither listed nor loaded", () =>
    Effect.gen(function*() {
      const shown = yield* description("skill")
      assert.notInclude(shown, "stolen")
      assert.include(shown, "- **ok**")
      assert.strictEqual(yield* callError("skill", { name: "stolen" }), `Skill "stolen" not found. Available skills: deploy, ok`)
      // the same file through read is asked for, as outside the workspace
      const error = yield* Effect.flip(call("read", { filePath: ".agent-tools/skills/x/SKILL.md" }))
      assert.strictEqual(error._tag === "PermissionRejectedError" ? error.permission : error._tag, "external_directory")
    }).pipe(Effect.provide(registry({
      files: linkedFiles,
      symlinks: linked,
      rules: [...allowAll, { permission: "external_directory", pattern: "*", action: "ask" }]
    }))))

  it.effect("a skill linked elsewhere in the workspace asks read for its real file, as read would", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("skill", { name: "deploy" }))
      assert.deepStrictEqual(error._tag === "PermissionRejectedError" ? [error.permission, error.patterns] : error._tag, ["read", [
        "shared/deploy/SKILL.md"
      ]])
      // a skill inside its skills directory asks nothing of read
      assert.include((yield* call("skill", { name: "ok" })).output, "ok body")
    }).pipe(Effect.provide(registry({
      files: linkedFiles,
      symlinks: linked,
      rules: [...allowAll, { permission: "read", pattern: "*", action: "ask" }]
    }))))

  it.effect("a skills directory of the workspace linked out of it is skipped like a linked SKILL.md", () =>
    Effect.gen(function*() {
      assert.notInclude(yield* description("skill"), "user-skill")
      assert.strictEqual(yield* callError("skill", { name: "user-skill" }), `Skill "user-skill" not found. Available skills: deploy, ok`)
    }).pipe(Effect.provide(registry({
      files: { ...linkedFiles, "shared/deploy/SKILL.md": linkedFiles["shared/deploy/SKILL.md"] },
      symlinks: { "/ws/.claude/skills": "/outside", "/ws/.agents/skills": "/ws/shared" }
    }))))

  it.effect("a skills directory outside the workspace is its own home: its skills load without an outside ask", () =>
    Effect.gen(function*() {
      assert.include((yield* call("skill", { name: "user-skill" })).output, "user body")
    }).pipe(Effect.provide(registry({
      files: linkedFiles,
      skillDirectories: ["/outside/allowed"],
      rules: [...allowAll, { permission: "external_directory", pattern: "*", action: "ask" }]
    }))))

  it.effect("no skills: says so", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* description("skill"),
        "Load a specialized skill that provides domain-specific instructions and workflows. No skills are currently available."
      )
      assert.strictEqual(yield* callError("skill", { name: "x" }), `Skill "x" not found. Available skills: none`)
    }).pipe(Effect.provide(registry())))
})
