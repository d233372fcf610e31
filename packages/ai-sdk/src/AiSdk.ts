/**
 * The registry as Vercel AI SDK tools: one `tool()` per registry tool, with its JSON Schema
 * (`jsonSchema()`; the registry validates the arguments and names the bad field), the result's
 * `output` as what the model reads, and permission asks bridged to the AI SDK's approval flow.
 *
 * Approval (ai 7): `needsApproval(input, { toolCallId })` probes the call (see Calls): when its
 * permission step would need the user, the AI SDK ends the step with a `tool-approval-request`;
 * once the app adds an approving `tool-approval-response` and calls again, `execute` runs the call
 * with those asks allowed (deny rules still deny). A call that needs nobody starts during the
 * probe and `execute` awaits it, aborting it when the SDK's `abortSignal` fires (its processes
 * are killed, and the model reads that the call was aborted). ai 7 prefers `toolApproval` on
 * generateText over the tool-level `needsApproval`; `makeAdapter(...).toolApproval` is the same
 * bridge in that form, with the ask as the approval's reason.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { Permission } from "@agent-tools/core"
import { jsonSchema, tool } from "ai"
import type { JSONSchema7, ModelMessage, Tool as AiTool, ToolApprovalStatus, ToolSet, TypedToolCall } from "ai"
import * as Calls from "./Calls.ts"
import { ToolNames } from "@agent-tools/core"

export interface Output {
  readonly title: string
  readonly output: string
  readonly metadata: Record<string, unknown>
}

// Context `any`, as in ai's own ToolSet: these tools take no tool context.
export type AiSdkTool = AiTool<unknown, Output, any>

export interface Options extends Calls.CallOptions {
  /**
   * Bridge asks to the AI SDK's approval flow (default true). With false, asks go to the
   * Permission service as they are (its responder, or its unattended policy, decides).
   */
  readonly approval?: boolean | undefined
}

export interface Adapter {
  /** Tool name (provider-safe) → AI SDK tool. */
  readonly tools: Record<string, AiSdkTool>
  /** The same approval bridge for generateText's `toolApproval` (ai 7's preferred form). */
  readonly toolApproval: (options: { readonly toolCall: TypedToolCall<ToolSet> }) => Promise<ToolApprovalStatus>
  /** Tool name → registry id. */
  readonly ids: ReadonlyMap<string, string>
}

/**
 * What execute throws for a failed call. The AI SDK shows the model `String(error)`: with this
 * `toString` the model reads exactly the tool's message, as over MCP.
 */
export class ToolCallFailed extends Error {
  override readonly name = "ToolCallFailed"
  override toString() {
    return this.message
  }
}

/** True when the messages carry an approving response to an approval request for this call. */
export const isApproved = (messages: ReadonlyArray<ModelMessage>, toolCallId: string): boolean => {
  const requested = new Set<string>()
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue
    for (const part of message.content) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId) requested.add(part.approvalId)
    }
  }
  return messages.some((message) =>
    message.role === "tool" &&
    message.content.some((part) =>
      part.type === "tool-approval-response" && part.approved && requested.has(part.approvalId)
    )
  )
}

const toOutput = (result: { readonly title: string; readonly output: string; readonly metadata: Record<string, unknown> }): Output => ({
  title: result.title,
  output: result.output,
  metadata: result.metadata
})

/** Builds the tools and the approval function over a registry. */
export const makeAdapter = Effect.fn("AiSdk.makeAdapter")(function*(source: Calls.Source, options: Options) {
  const services = yield* Effect.context<Permission.Permission>()
  const runPromise = Effect.runPromiseWith(services)
  const runPromiseExit = Effect.runPromiseExitWith(services)
  const bridge = options.approval ?? true
  const started = Calls.makeStarted()
  const built = yield* Calls.list(source, options)
  const names = ToolNames.assign(built.map((t) => t.id))

  const settle = (outcome: Calls.Outcome): Output => {
    if (Exit.isSuccess(outcome)) return toOutput(outcome.value)
    throw new ToolCallFailed(Calls.failureMessage(outcome))
  }

  /** Probes a call; a started call is kept for execute. Returns the requests that need the user. */
  const needsUser = async (
    id: string,
    input: unknown,
    toolCallId: string
  ): Promise<ReadonlyArray<Permission.AskInput> | undefined> => {
    const probe = await runPromise(Calls.probe(source, options, id, input, toolCallId))
    if (probe._tag === "NeedsApproval") return probe.asks
    started.put(toolCallId, probe.call)
    return undefined
  }

  const tools: Record<string, AiSdkTool> = {}
  for (const t of built) {
    const id = t.id
    tools[names.toName.get(id) ?? id] = tool<unknown, Output, any>({
      description: t.description,
      inputSchema: jsonSchema<unknown>(t.jsonSchema as JSONSchema7),
      ...(bridge
        ? { needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) => (await needsUser(id, input, toolCallId)) !== undefined }
        : {}),
      execute: async (input, { toolCallId, messages, abortSignal }) => {
        const running = started.take(toolCallId)
        if (Option.isSome(running)) return settle(await runPromise(Calls.join(running.value, abortSignal)))
        const mode: Calls.AskMode = bridge && isApproved(messages, toolCallId) ? "approved" : "waiting"
        const outcome = await runPromiseExit(
          Calls.run(source, options, id, input, { callID: toolCallId, abort: abortSignal, mode }),
          { signal: abortSignal }
        )
        return settle(outcome)
      },
      toModelOutput: ({ output }) => ({ type: "text", value: output.output })
    })
  }

  const toolApproval: Adapter["toolApproval"] = async ({ toolCall }) => {
    const id = names.toId.get(toolCall.toolName)
    if (id === undefined || toolCall.providerExecuted === true) return undefined
    const asks = await needsUser(id, toolCall.input, toolCall.toolCallId)
    return asks === undefined ? undefined : { type: "user-approval", reason: Calls.describeAsks(asks) }
  }

  return { tools, toolApproval, ids: names.toId } satisfies Adapter
})

/** `toAiSdkTools(registry, { sessionID })`: the AI SDK tool map of a registry. */
export const toAiSdkTools = Effect.fn("AiSdk.toAiSdkTools")(function*(source: Calls.Source, options: Options) {
  return (yield* makeAdapter(source, options)).tools
})
