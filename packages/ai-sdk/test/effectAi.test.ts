/**
 * The registry as an effect/ai Toolkit, driven by a scripted LanguageModel through a Chat loop:
 * read, edit (its ask answered by a scripted Permission responder) and bash, with a bad call
 * the model gets back as a failure result.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, FileSystem, Stream } from "effect"
import { Chat, LanguageModel, type Prompt, type Response } from "effect/ai"
import { ToolRegistry } from "@agent-tools/core"
import { Processes, ScriptedPermission } from "@agent-tools/testing"
import { EffectAi } from "@agent-tools/ai-sdk"
import { workspace } from "./fixtures/tools.ts"

const usage = { inputTokens: {}, outputTokens: {} }
const callTool = (id: string, name: string, params: unknown): ReadonlyArray<Response.PartEncoded> => [
  { type: "tool-call", id, name, params },
  { type: "finish", reason: "tool-calls", usage }
]
const say = (text: string): ReadonlyArray<Response.PartEncoded> => [
  { type: "text", text },
  { type: "finish", reason: "stop", usage }
]

/** A LanguageModel that answers call n with script[n] and records each prompt. */
const scripted = Effect.fn("test.scripted")(function*(script: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>) {
  const prompts: Array<Prompt.Prompt> = []
  const model = yield* LanguageModel.make({
    generateText: (options) =>
      Effect.suspend(() => {
        prompts.push(options.prompt)
        const parts = script[prompts.length - 1]
        return parts === undefined ? Effect.die(`no scripted response for call ${prompts.length}`) : Effect.succeed([...parts])
      }),
    streamText: () => Stream.die("streamText is not scripted")
  })
  return { model, prompts }
})

/**
 * The tool results in a prompt: call id → [tool name, the result's output (or the failure
 * message), isFailure, what the model reads].
 */
const toolResults = (prompt: Prompt.Prompt) =>
  Object.fromEntries(
    prompt.content.flatMap((message) =>
      message.role === "tool"
        ? message.content.flatMap((part) =>
          part.type === "tool-result"
            ? [[part.id, [
              part.name,
              part.isFailure ? part.result : (part.result as EffectAi.Result).output,
              part.isFailure,
              part.modelOutput?.map((o) => o.type === "text" ? o.text : o.type)
            ]] as const]
            : []
        )
        : []
    )
  )

/** What the real read tool shows for a.txt. */
const readOutput = (root: string, lines: ReadonlyArray<string>) =>
  `<path>${root}/a.txt</path>\n<type>file</type>\n<content>\n${lines.map((l, i) => `${i + 1}: ${l}`).join("\n")}` +
  `\n\n(End of file - total ${lines.length} lines)\n</content>`

describe("EffectAi toolkit", () => {
  it.live("a Chat loop reads, edits and runs bash through the registry", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { root, runtime } = yield* workspace({ "*": "allow", edit: "ask" })

      const program = Effect.gen(function*() {
        const responder = yield* ScriptedPermission.run(["once"])
        const adapter = yield* EffectAi.make(yield* ToolRegistry.ToolRegistry, { sessionID: "effect-ai" })
        assert.deepStrictEqual(Object.keys(adapter.toolkit.tools), ["read", "edit", "bash"])
        const { model, prompts } = yield* scripted([
          callTool("c1", "read", { path: "a.txt" }),
          callTool("c2", "read", { filePath: "a.txt" }),
          callTool("c3", "edit", { filePath: "a.txt", oldString: "world", newString: "effect" }),
          callTool("c4", "bash", { command: "cat a.txt", description: "Show the file" }),
          say("Done: the file greets effect.")
        ])
        const toolkit = yield* adapter.toolkit.pipe(Effect.provide(adapter.layer))
        const chat = yield* Chat.fromPrompt([{ role: "user", content: "Fix the greeting" }])
        let turns = 0
        let text = ""
        while (turns < 10) {
          turns++
          const response = yield* chat.generateText({ prompt: [], toolkit }).pipe(
            Effect.provideService(LanguageModel.LanguageModel, model)
          )
          if (response.toolCalls.length === 0) {
            text = response.text
            break
          }
        }
        assert.strictEqual(turns, 5)
        assert.strictEqual(text, "Done: the file greets effect.")
        assert.strictEqual(yield* fs.readFileString(`${root}/a.txt`), "hello\neffect\n")
        assert.deepStrictEqual(toolResults(prompts[4]!), {
          c1: [
            "read",
            "The read tool was called with invalid arguments:\n- filePath: Invalid input: expected string, received " +
            "undefined\nPlease rewrite the input so it satisfies the expected schema.",
            true,
            undefined
          ],
          c2: ["read", readOutput(root, ["hello", "world"]), false, [readOutput(root, ["hello", "world"])]],
          c3: ["edit", "Edit applied successfully.", false, ["Edit applied successfully."]],
          c4: ["bash", "hello\neffect\n", false, ["hello\neffect\n"]]
        })
        const asked = yield* responder.asked
        assert.deepStrictEqual(asked.map((a) => [a.request.permission, a.request.patterns, a.request.tool, a.reply]), [
          ["edit", ["a.txt"], { name: "edit", callID: "c3" }, "once"]
        ])
      })
      yield* program.pipe(Effect.provide(runtime))
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it.live("interrupting the chat ends a running call and kills its processes", () =>
    Effect.gen(function*() {
      const { runtime } = yield* workspace({ "*": "allow" })
      const marker = Processes.marker()
      const program = Effect.gen(function*() {
        const adapter = yield* EffectAi.make(yield* ToolRegistry.ToolRegistry, { sessionID: "effect-ai-abort" })
        const { model } = yield* scripted([callTool("c1", "bash", { command: `sleep ${marker} & wait`, description: "Wait" })])
        const toolkit = yield* adapter.toolkit.pipe(Effect.provide(adapter.layer))
        const chat = yield* Chat.fromPrompt([{ role: "user", content: "Wait" }])
        const turn = yield* chat.generateText({ prompt: [], toolkit }).pipe(
          Effect.provideService(LanguageModel.LanguageModel, model),
          Effect.forkChild
        )
        yield* Processes.waitUntil(() => Processes.withMarker(marker).length > 0)
        yield* Fiber.interrupt(turn)
        // The kill is sent before the call returns; the kernel ends the sandbox's processes right after
        // (bounded by the test's timeout: a process that was never killed would outlive it).
        yield* Processes.waitUntil(() => Processes.withMarker(marker).length === 0)
        assert.deepStrictEqual(Processes.withMarker(marker), [])
      })
      yield* program.pipe(Effect.provide(runtime))
    }).pipe(Effect.provide(NodeFileSystem.layer)), 60_000)
})
