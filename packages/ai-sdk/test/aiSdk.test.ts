/**
 * The registry as AI SDK tools, driven by `generateText` and the SDK's own mock language model
 * through a multi-step loop that reads, edits (after an approval) and runs bash.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, FileSystem } from "effect"
import type { Scope } from "effect"
import { Permission, ToolRegistry } from "@agent-tools/core"
import { generateText, type ModelMessage, stepCountIs } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { AiSdk, Calls } from "@agent-tools/ai-sdk"
import { Processes, ScriptedPermission } from "@agent-tools/testing"
import { type PermissionConfig, workspace } from "./fixtures/tools.ts"

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 }
}
const toolCall = (toolCallId: string, toolName: string, input: unknown): GenerateResult => ({
  content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: []
})
const say = (text: string): GenerateResult => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage,
  warnings: []
})

/** A model that plays `script` in order, one response per model call. */
const scripted = (script: ReadonlyArray<GenerateResult>) => {
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      const next = script[model.doGenerateCalls.length - 1]
      if (next === undefined) throw new Error(`the script has no response for call ${model.doGenerateCalls.length}`)
      return next
    }
  })
  return model
}

/** The tool results the model was shown on its last call: toolCallId → what it read. */
const lastToolResults = (model: MockLanguageModelV4) => {
  const prompt = model.doGenerateCalls.at(-1)?.prompt ?? []
  const results: Record<string, unknown> = {}
  for (const message of prompt) {
    if (message.role !== "tool") continue
    for (const part of message.content) {
      if (part.type === "tool-result") results[part.toolCallId] = part.output
    }
  }
  return results
}

/** Runs `body` on a fresh workspace (a.txt) with the real read/edit/bash under `permission`. */
const inWorkspace = <A, E>(
  permission: PermissionConfig,
  body: (
    root: string
  ) => Effect.Effect<A, E, ToolRegistry.ToolRegistry | Permission.Permission | FileSystem.FileSystem | Scope.Scope>
) =>
  Effect.gen(function*() {
    const { root, runtime } = yield* workspace(permission)
    return yield* body(root).pipe(Effect.provide(runtime))
  }).pipe(Effect.provide(NodeFileSystem.layer))

const askEdit: PermissionConfig = { "*": "allow", edit: "ask" }

/** What the real read tool shows for a.txt. */
const readOutput = (root: string, lines: ReadonlyArray<string>) =>
  `<path>${root}/a.txt</path>\n<type>file</type>\n<content>\n${lines.map((l, i) => `${i + 1}: ${l}`).join("\n")}` +
  `\n\n(End of file - total ${lines.length} lines)\n</content>`

describe("toAiSdkTools with generateText", () => {
  it.live("runs a read → edit (approved) → bash loop; the model reads each tool's output", () =>
    // bash's redirect to runs.log is an edit too: allowed, so only the edit of a.txt needs the user.
    inWorkspace({ "*": "allow", edit: { "*": "ask", "*runs.log": "allow" } }, (root) => Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const registry = yield* ToolRegistry.ToolRegistry
      const tools = yield* AiSdk.toAiSdkTools(registry, { sessionID: "ai-sdk-loop" })
      assert.deepStrictEqual(Object.keys(tools), ["read", "edit", "bash"])
      const model = scripted([
        toolCall("call-1", "read", { filePath: "a.txt" }),
        toolCall("call-2", "edit", { filePath: "a.txt", oldString: "world", newString: "there" }),
        toolCall("call-3", "bash", { command: "echo ran >> runs.log && cat a.txt", description: "Show the file" }),
        say("The file now greets there.")
      ])
      const messages: Array<ModelMessage> = [{ role: "user", content: "Fix the greeting" }]

      // 1st generateText: read runs; edit needs the user, so the step ends with an approval request.
      const first = yield* Effect.promise(() => generateText({ model, tools, messages, stopWhen: stepCountIs(10) }))
      assert.strictEqual(model.doGenerateCalls.length, 2)
      assert.deepStrictEqual(first.steps.map((s) => s.toolCalls.map((c) => c.toolName)), [["read"], ["edit"]])
      const approvals = first.content.filter((p) => p.type === "tool-approval-request")
      assert.deepStrictEqual(approvals.map((p) => p.toolCall.toolCallId), ["call-2"])
      assert.strictEqual(yield* fs.readFileString(`${root}/a.txt`), "hello\nworld\n")

      // The user approves; the 2nd generateText edits, runs bash, and the model answers.
      messages.push(...first.responseMessages, {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: approvals[0]!.approvalId, approved: true }]
      })
      const second = yield* Effect.promise(() => generateText({ model, tools, messages, stopWhen: stepCountIs(10) }))
      assert.strictEqual(second.text, "The file now greets there.")
      assert.strictEqual(yield* fs.readFileString(`${root}/a.txt`), "hello\nthere\n")
      // The probe that found bash needed nobody ran it; execute returned that run, not a second one.
      assert.strictEqual(yield* fs.readFileString(`${root}/runs.log`), "ran\n")
      assert.deepStrictEqual(lastToolResults(model), {
        "call-1": { type: "text", value: readOutput(root, ["hello", "world"]) },
        "call-2": { type: "text", value: "Edit applied successfully." },
        "call-3": { type: "text", value: "hello\nthere\n" }
      })
      // The approved edit runs before the first step of the 2nd call; bash runs in its step.
      assert.deepStrictEqual(
        second.steps.flatMap((s) =>
          s.toolResults.map((r) => {
            const out = r.output as AiSdk.Output
            return [r.toolCallId, out.title, out.output, out.metadata.exit]
          })
        ),
        [["call-3", "Show the file", "hello\nthere\n", 0]]
      )
    })))

  it.live("a denied approval leaves the file alone and tells the model", () =>
    inWorkspace(askEdit, (root) => Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const tools = yield* AiSdk.toAiSdkTools(yield* ToolRegistry.ToolRegistry, { sessionID: "ai-sdk-deny" })
      const model = scripted([
        toolCall("call-0", "read", { filePath: "a.txt" }),
        toolCall("call-1", "edit", { filePath: "a.txt", oldString: "world", newString: "moon" }),
        say("Understood, I will not edit it.")
      ])
      const messages: Array<ModelMessage> = [{ role: "user", content: "Edit it" }]
      const first = yield* Effect.promise(() => generateText({ model, tools, messages, stopWhen: stepCountIs(5) }))
      const approval = first.content.find((p) => p.type === "tool-approval-request")!
      messages.push(...first.responseMessages, {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: approval.approvalId, approved: false, reason: "not now" }]
      })
      const second = yield* Effect.promise(() => generateText({ model, tools, messages, stopWhen: stepCountIs(5) }))
      assert.strictEqual(second.text, "Understood, I will not edit it.")
      assert.strictEqual(yield* fs.readFileString(`${root}/a.txt`), "hello\nworld\n")
      assert.deepStrictEqual(lastToolResults(model), {
        "call-0": { type: "text", value: readOutput(root, ["hello", "world"]) },
        "call-1": { type: "execution-denied", reason: "not now" }
      })
    })))

  it.live("a deny rule and a bad call reach the model as tool errors, then a good call succeeds", () =>
    inWorkspace({ "*": "allow", bash: { "*": "allow", "rm *": "deny" } }, (root) => Effect.gen(function*() {
      const tools = yield* AiSdk.toAiSdkTools(yield* ToolRegistry.ToolRegistry, { sessionID: "ai-sdk-errors" })
      const model = scripted([
        toolCall("call-1", "bash", { command: "rm -rf /", description: "Wipe" }),
        toolCall("call-2", "read", { path: "a.txt" }),
        toolCall("call-3", "read", { filePath: "a.txt" }),
        say("Read it.")
      ])
      const result = yield* Effect.promise(() =>
        generateText({ model, tools, prompt: "Go", stopWhen: stepCountIs(10) })
      )
      assert.strictEqual(result.text, "Read it.")
      assert.deepStrictEqual(lastToolResults(model), {
        "call-1": {
          type: "error-text",
          value: "A permission rule prevents this tool call: bash \"rm -rf /\" is denied by the rule " +
            "{\"permission\":\"bash\",\"pattern\":\"rm *\",\"action\":\"deny\"}."
        },
        "call-2": {
          type: "error-text",
          value: "The read tool was called with invalid arguments:\n" +
            "- filePath: Invalid input: expected string, received undefined\n" +
            "Please rewrite the input so it satisfies the expected schema."
        },
        "call-3": { type: "text", value: readOutput(root, ["hello", "world"]) }
      })
    })))

  it.live("a sub-agent's loop: only the tools it is given are listed; any other is refused by name", () =>
    inWorkspace({ "*": "allow" }, () => Effect.gen(function*() {
      const registry = yield* ToolRegistry.ToolRegistry
      const options = { sessionID: "ai-sdk-sub", tools: ["read"], depth: 1 }
      assert.deepStrictEqual(Object.keys(yield* AiSdk.toAiSdkTools(registry, options)), ["read"])
      const refused = yield* Effect.exit(Calls.run(registry, options, "bash", { command: "ls", description: "List" }, { callID: "c1", mode: "waiting" }))
      assert.strictEqual(
        Calls.failureMessage(refused),
        `The bash tool is not available to agent "build": it is not among the tools this agent was given (read).`
      )
    })))

  it.live("with approval: false, asks go to the Permission service's own responder", () =>
    inWorkspace(askEdit, (root) => Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const responder = yield* ScriptedPermission.run([{ reply: "reject", message: "not this file" }])
      const tools = yield* AiSdk.toAiSdkTools(yield* ToolRegistry.ToolRegistry, { sessionID: "ai-sdk-no-bridge", approval: false })
      assert.isUndefined(tools.edit?.needsApproval)
      const model = scripted([
        toolCall("call-0", "read", { filePath: "a.txt" }),
        toolCall("call-1", "edit", { filePath: "a.txt", oldString: "world", newString: "x" }),
        say("Ok.")
      ])
      const result = yield* Effect.promise(() => generateText({ model, tools, prompt: "Edit", stopWhen: stepCountIs(5) }))
      assert.strictEqual(result.text, "Ok.")
      assert.deepStrictEqual(lastToolResults(model), {
        "call-0": { type: "text", value: readOutput(root, ["hello", "world"]) },
        "call-1": {
          type: "error-text",
          value: "The user rejected permission to use this specific tool call with the following feedback: not this file"
        }
      })
      assert.deepStrictEqual((yield* responder.asked).map((a) => [a.request.permission, a.request.patterns]), [["edit", ["a.txt"]]])
      assert.strictEqual(yield* fs.readFileString(`${root}/a.txt`), "hello\nworld\n")
    })))

  it.live("toolApproval (ai 7's preferred form) asks with the permission and the diff of the edit as the reason", () =>
    inWorkspace(askEdit, (root) => Effect.gen(function*() {
      const adapter = yield* AiSdk.makeAdapter(yield* ToolRegistry.ToolRegistry, { sessionID: "ai-sdk-tool-approval" })
      const model = scripted([
        toolCall("call-0", "read", { filePath: "a.txt" }),
        toolCall("call-1", "edit", { filePath: "a.txt", oldString: "world", newString: "x" })
      ])
      const result = yield* Effect.promise(() =>
        generateText({
          model,
          tools: adapter.tools,
          toolApproval: adapter.toolApproval,
          prompt: "Edit",
          stopWhen: stepCountIs(5)
        })
      )
      const approval = result.content.find((p) => p.type === "tool-approval-request")
      assert.strictEqual(
        approval?.reason,
        `edit a.txt (${root}/a.txt)\n` +
          "  | Index: a.txt\n" +
          "  | ===================================================================\n" +
          "  | --- a.txt\n" +
          "  | +++ a.txt\n" +
          "  | @@ -1,2 +1,2 @@\n" +
          "  |  hello\n" +
          "  | -world\n" +
          "  | +x"
      )
    })))

  it.live("a call needing several permissions is one approval naming each; approved, it runs with no further ask", () =>
    inWorkspace({ "*": "allow", edit: "ask", bash: "ask" }, (root) => Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const adapter = yield* AiSdk.makeAdapter(yield* ToolRegistry.ToolRegistry, { sessionID: "ai-sdk-one-approval" })
      const model = scripted([toolCall("call-1", "bash", { command: "touch b.txt", description: "touch" }), say("done")])
      const messages: Array<ModelMessage> = [{ role: "user", content: "Touch" }]
      const first = yield* Effect.promise(() =>
        generateText({ model, tools: adapter.tools, toolApproval: adapter.toolApproval, messages, stopWhen: stepCountIs(5) })
      )
      const approvals = first.content.filter((p) => p.type === "tool-approval-request")
      assert.strictEqual(approvals.length, 1)
      assert.strictEqual(approvals[0]!.reason, "edit b.txt; bash touch b.txt\nnote: writes b.txt")
      assert.isFalse(yield* fs.exists(`${root}/b.txt`))
      messages.push(...first.responseMessages, {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: approvals[0]!.approvalId, approved: true }]
      })
      const second = yield* Effect.promise(() =>
        generateText({ model, tools: adapter.tools, toolApproval: adapter.toolApproval, messages, stopWhen: stepCountIs(5) })
      )
      assert.strictEqual(second.text, "done")
      assert.isTrue(yield* fs.exists(`${root}/b.txt`))
    })))

  it.live("an abort ends a call that needed no approval: its processes are killed and the result says it was aborted", () =>
    inWorkspace({ "*": "allow" }, () => Effect.gen(function*() {
      const adapter = yield* AiSdk.makeAdapter(yield* ToolRegistry.ToolRegistry, { sessionID: "ai-sdk-abort" })
      const marker = Processes.marker()
      let settled: AiSdk.Output | undefined
      const bash = adapter.tools.bash!
      const tools = {
        bash: { ...bash, execute: async (...args: Parameters<NonNullable<typeof bash.execute>>) => (settled = await (bash.execute!(...args) as Promise<AiSdk.Output>)) }
      }
      const model = scripted([toolCall("call-1", "bash", { command: `sleep ${marker} & wait`, description: "Wait" }), say("done")])
      const controller = new AbortController()
      const generating = yield* Effect.promise(() =>
        generateText({ model, tools, toolApproval: adapter.toolApproval, prompt: "Wait", abortSignal: controller.signal })
          .then(() => "finished", () => "rejected")
      ).pipe(Effect.forkChild)
      yield* Processes.waitUntil(() => Processes.withMarker(marker).length > 0)
      controller.abort()
      yield* Fiber.join(generating)
      // The kill is sent before the call returns; the kernel ends the sandbox's processes right after
      // (bounded by the test's timeout: a process that was never killed would outlive it).
      yield* Processes.waitUntil(() => Processes.withMarker(marker).length === 0)
      assert.deepStrictEqual(Processes.withMarker(marker), [])
      assert.strictEqual(settled?.metadata.reason, "aborted")
      assert.match(settled?.output ?? "", /Command aborted by the user/)
    })), 60_000)
})

describe("the approval reason", () => {
  it("shows control and bidi characters of patterns and paths escaped, on one line", () => {
    assert.strictEqual(
      Calls.describeAsks([
        { sessionID: "s", permission: "bash", patterns: ["echo hi\x1b[2K\r\nrm -rf ~"] },
        { sessionID: "s", permission: "edit", patterns: ["a\u202e.ts"], metadata: { filepath: "/ws/a\u202e.ts\u2066" } }
      ]),
      "bash echo hi\\x1b[2K\\r\\nrm -rf ~; edit a\\u202e.ts (/ws/a\\u202e.ts\\u2066)"
    )
  })

  it("shows a diff as a block after a gutter, its controls escaped, so no line of it passes for a line of the reason", () => {
    assert.strictEqual(
      Calls.describeAsks([{
        sessionID: "s",
        permission: "edit",
        patterns: ["a.ts"],
        display: { kind: "diff", path: "a.ts", diff: "-old\n+new\x1b[2J\r\nApproved: yes\n" }
      }]),
      "edit a.ts\n  | -old\n  | +new\\x1b[2J\n  | Approved: yes"
    )
  })
})
