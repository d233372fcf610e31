/**
 * The task tool's sub-agent on the MCP client's model: each run is a conversation of
 * `sampling/createMessage` requests. When the client supports tools in sampling, the model gets
 * this server's tools (minus those a sub-agent should not use) and each tool use runs through the
 * registry, like a call from the client, until the model answers in text. A task keeps its
 * conversation, so `task_id` continues it. A tool use of a tool the sub-agent was not given is
 * refused by the registry with an error naming it (its calls carry its tool list and depth).
 */
import * as Effect from "effect/Effect"
import { SubagentRunner, ToolNames, type Tool } from "@agent-tools/core"
import type {
  CreateMessageRequestParams,
  CreateMessageResultWithTools,
  SamplingMessage,
  SamplingMessageContentBlock,
  Tool as McpTool,
  ToolResultContent,
  ToolUseContent
} from "@modelcontextprotocol/sdk/types.js"
import type { Connection } from "./ClientServices.ts"
import * as Mapping from "./Mapping.ts"

export const AGENT: SubagentRunner.Agent = {
  name: "general",
  description:
    "General-purpose agent on the MCP client's model, for researching questions and carrying out multi-step tasks; it can use this server's tools when the client supports tools in sampling."
}

/** Tools a sub-agent does not get: no nested sub-agents, no questions to the user, no batches. */
export const EXCLUDED: ReadonlySet<string> = new Set(["task", "question", "batch", "invalid", "todowrite", "todoread"])
/** Most model turns of one run. */
export const MAX_STEPS = 25
export const MAX_TOKENS = 8192

const SYSTEM = "You are a sub-agent working on one task for another agent. Use the tools you are given when they help. " +
  "When you are done, answer with a complete, self-contained report of what you found or did: it is all the other agent will see."

const blocks = (content: SamplingMessage["content"]): ReadonlyArray<SamplingMessageContentBlock> =>
  Array.isArray(content) ? content : [content]

const textOf = (content: SamplingMessage["content"]) =>
  blocks(content).flatMap((b) => b.type === "text" ? [b.text] : []).join("\n").trim()

const failure = (message: string, cause?: unknown) => new SubagentRunner.SubagentError({ message, ...(cause === undefined ? {} : { cause }) })

export const runner = (connection: Connection) => {
  const tasks = new Map<string, Array<SamplingMessage>>()
  let counter = 0

  const unavailable = Effect.sync(() => {
    const current = connection.current
    if (current === undefined) return "no MCP client is connected"
    return current.server.getClientCapabilities()?.sampling === undefined ? "the MCP client does not offer sampling" : undefined
  })

  const run = Effect.fn("McpSampling.run")(function*(request: SubagentRunner.Request) {
    const current = connection.current
    if (current === undefined) return yield* failure("no MCP client is connected")
    const { server, registry } = current
    const withTools = server.getClientCapabilities()?.sampling?.tools !== undefined
    const offered = withTools
      ? (yield* registry.tools({ agent: current.agent, model: current.model })).filter((t) => !EXCLUDED.has(t.id))
      : []
    const names = ToolNames.assign(offered.map((t) => t.id))
    const tools = offered.flatMap((t): Array<McpTool> => {
      const entry = Mapping.toMcpTool(t, names.toName.get(t.id) ?? t.id)
      return typeof entry === "string" ? [] : [entry]
    })

    const resumed = request.taskID !== undefined && tasks.has(request.taskID)
    const taskID = resumed ? request.taskID! : `mcp_task_${++counter}`
    const messages: Array<SamplingMessage> = [...(tasks.get(taskID) ?? []), { role: "user", content: { type: "text", text: request.prompt } }]
    const related = current.requestOf(request.callID)

    const sample = (params: CreateMessageRequestParams) =>
      Effect.tryPromise({
        try: (signal) =>
          server.createMessage(params, {
            signal: AbortSignal.any([signal, request.abort]),
            ...(related === undefined ? {} : { relatedRequestId: related })
          }) as Promise<CreateMessageResultWithTools>,
        catch: (cause) => failure(`sampling failed: ${cause instanceof Error ? cause.message : String(cause)}`, cause)
      })

    const useTool = (use: ToolUseContent, step: number): Effect.Effect<ToolResultContent> => {
      const id = names.toId.get(use.name) ?? use.name
      return Effect.gen(function*() {
        const ctx: Tool.Context = yield* current.context({
          callID: `${request.callID}/${step}/${use.id}`,
          tool: id,
          abort: request.abort,
          depth: request.depth,
          tools: offered.map((t) => t.id)
        })
        return yield* registry.execute(id, use.input, ctx)
      }).pipe(
        Effect.match({
          onSuccess: (result): ToolResultContent => ({ type: "tool_result", toolUseId: use.id, content: [{ type: "text", text: result.output }] }),
          onFailure: (e): ToolResultContent => ({ type: "tool_result", toolUseId: use.id, content: [{ type: "text", text: e.message }], isError: true })
        })
      )
    }

    for (let step = 1; step <= MAX_STEPS; step++) {
      const result = yield* sample({
        messages,
        systemPrompt: SYSTEM,
        maxTokens: MAX_TOKENS,
        ...(tools.length === 0 ? {} : { tools, toolChoice: { mode: step === MAX_STEPS ? "none" : "auto" } })
      })
      messages.push({ role: "assistant", content: result.content })
      const uses = blocks(result.content).filter((b): b is ToolUseContent => b.type === "tool_use")
      if (uses.length === 0) {
        tasks.set(taskID, messages)
        return { taskID, output: textOf(result.content), metadata: { model: result.model, steps: step } }
      }
      const results = yield* Effect.forEach(uses, (use) => useTool(use, step))
      messages.push({ role: "user", content: results })
    }
    tasks.set(taskID, messages)
    return yield* failure(`the sub-agent did not finish within ${MAX_STEPS} model turns`)
  })

  return SubagentRunner.SubagentRunner.of({ unavailable, agents: [AGENT], run })
}
