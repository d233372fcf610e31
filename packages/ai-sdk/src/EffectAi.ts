/**
 * The registry as an effect/ai Toolkit with its handlers layer. Each registry tool becomes a
 * `Tool.dynamic` with the tool's JSON Schema (effect/ai does not validate raw JSON Schema: the
 * registry does, and names the bad field). Results are `{ title, output, metadata }`; the model
 * reads `output`. Failures are returned to the model as the tool's message (`failureMode:
 * "return"`), so a bad call is something the model can correct, not an error of the turn. Live
 * `ctx.metadata` updates are streamed as preliminary results.
 *
 * Permission asks go to the Permission service (its responder or unattended policy answers).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as JsonSchema from "effect/JsonSchema"
import type * as Layer from "effect/Layer"
import { Prompt, Tool as AiTool, Toolkit } from "effect/ai"
import type { Permission, Tool, ToolRegistry } from "@agent-tools/core"
import * as Calls from "./Calls.ts"
import { ToolNames } from "@agent-tools/core"

export const Result = Schema.Struct({
  title: Schema.String,
  output: Schema.String,
  metadata: Schema.Record(Schema.String, Schema.Unknown)
})
export type Result = typeof Result.Type

export type RegistryTool = AiTool.Dynamic<string, {
  readonly parameters: JsonSchema.JsonSchema
  readonly success: typeof Result
  readonly failure: typeof Schema.String
  readonly failureMode: "return"
}>

export type RegistryTools = Record<string, RegistryTool>

export interface Adapter {
  readonly toolkit: Toolkit.Toolkit<RegistryTools>
  /** The handlers of every tool of `toolkit`: provide it where the toolkit is used. */
  readonly layer: Layer.Layer<AiTool.HandlersFor<RegistryTools>>
  /** Tool name (provider-safe) → registry id. */
  readonly ids: ReadonlyMap<string, string>
}

const modelOutput = (result: Result): ReadonlyArray<Prompt.ToolModelOutputPart> => [Prompt.textPart({ text: result.output })]

/** One effect/ai tool for a registry tool, with its hints as effect/ai annotations. */
export const toEffectAiTool = (tool: Tool.Built, name: string): RegistryTool => {
  const dynamic = AiTool.dynamic(name, {
    description: tool.description,
    parameters: tool.jsonSchema as JsonSchema.JsonSchema,
    success: Result,
    failure: Schema.String,
    failureMode: "return",
    toModelOutput: modelOutput
  })
  const readOnly = tool.annotations.readOnly === true
  return dynamic
    .annotate(AiTool.Readonly, readOnly)
    .annotate(AiTool.Destructive, !readOnly && tool.annotations.destructive === true) as RegistryTool
}

let callCounter = 0

/**
 * Builds the toolkit and its handlers over a registry for one session; handlers run each call
 * through the registry with a context for `options`. Interrupting a handler (the chat's fiber)
 * interrupts the call, and the tool's processes with it.
 */
export const make = Effect.fn("EffectAi.make")(function*(
  source: Calls.Source,
  options: Calls.CallOptions
): Effect.fn.Return<Adapter, never, Permission.Permission> {
  const services = yield* Effect.context<Permission.Permission>()
  const built = yield* Calls.list(source, options)
  const names = ToolNames.assign(built.map((t) => t.id))
  const tools = built.map((t) => toEffectAiTool(t, names.toName.get(t.id) ?? t.id))
  const toolkit = Toolkit.make(...tools) as unknown as Toolkit.Toolkit<RegistryTools>

  const handler = (id: string) =>
  (
    params: unknown,
    context: Toolkit.HandlerContext<RegistryTool>
  ): Effect.Effect<Result, string> => {
    const callID = context.toolCallId ?? `effect_ai_${callCounter++}`
    const onMetadata = (_: string, update: { readonly title?: string | undefined; readonly metadata?: Tool.Metadata | undefined }) =>
      Effect.runFork(context.preliminary({ title: update.title ?? "", output: "", metadata: update.metadata ?? {} }))
    return Calls.run(source, { ...options, onMetadata }, id, params, { callID, mode: "waiting" }).pipe(
      Effect.map((result): Result => ({ title: result.title, output: result.output, metadata: result.metadata })),
      Effect.mapError((error: ToolRegistry.ExecuteError) => error.message),
      Effect.provideContext(services)
    )
  }

  const handlers: Record<string, ReturnType<typeof handler>> = {}
  for (const t of built) handlers[names.toName.get(t.id) ?? t.id] = handler(t.id)
  const layer = toolkit.toLayer(handlers as never) as Layer.Layer<AiTool.HandlersFor<RegistryTools>>

  return { toolkit, layer, ids: names.toId } satisfies Adapter
})
