/**
 * Calling registry tools on behalf of an SDK, with the three ways a call's permission asks can be
 * answered:
 *
 * - `waiting`: `ctx.ask` goes to Permission, which decides by its rules and waits for (or is
 *   answered by) the runtime's responder;
 * - `probe`: used to decide whether a call needs the user. The call runs with asks decided by the
 *   rules alone; at the first ask that would need the user it stops (interrupted, before the tool
 *   acts: tools ask before they touch anything) and reports that ask. A call that needs nobody
 *   simply completes, and its outcome is kept so the SDK's execute does not run it twice;
 * - `approved`: the user approved this call in the SDK (e.g. an AI SDK approval response), so
 *   asks the rules leave at `ask` are allowed; a `deny` rule still denies.
 */
import { Deferred, Effect, Exit, Option } from "effect"
import { Permission, Tool, ToolRegistry } from "@agent-tools/core"
import type { Truncate } from "@agent-tools/core"

/** A registry (with hooks, events and per-agent filtering) or plain built tools. */
export type Source = ToolRegistry.ToolRegistry["Service"] | ReadonlyArray<Tool.Built>

export interface CallOptions {
  readonly sessionID: string
  readonly messageID?: string | undefined
  /** The agent whose tools and rules apply (default `build`). */
  readonly agent?: string | undefined
  /** Model id, for the registry's model-specific tool set. */
  readonly model?: string | undefined
  /** The agent's own permission rules, evaluated after the configured ones. */
  readonly ruleset?: Permission.Ruleset | undefined
  readonly truncation?: Truncate.Options | undefined
  readonly extra?: Record<string, unknown> | undefined
  /** Live progress of a running call (title and partial metadata). */
  readonly onMetadata?:
    | ((callID: string, update: { readonly title?: string | undefined; readonly metadata?: Tool.Metadata | undefined }) => void)
    | undefined
}

export type AskMode = "waiting" | "approved"

export type Outcome = Exit.Exit<Tool.Result, ToolRegistry.ExecuteError>

export type Probe =
  | { readonly _tag: "NeedsApproval"; readonly ask: Permission.AskInput }
  | { readonly _tag: "Done"; readonly outcome: Outcome }

const isRegistry = (source: Source): source is ToolRegistry.ToolRegistry["Service"] => !Array.isArray(source)

/** The tools of the source for these options. */
export const list = Effect.fn("Calls.list")(function*(source: Source, options: CallOptions) {
  return isRegistry(source) ? yield* source.tools({ agent: options.agent, model: options.model }) : source
})

const execute = (
  source: Source,
  id: string,
  args: unknown,
  ctx: Tool.Context
): Effect.Effect<Tool.Result, ToolRegistry.ExecuteError> => {
  if (isRegistry(source)) return source.execute(id, args, ctx)
  const tool = source.find((t) => t.id === id)
  return tool === undefined
    ? Effect.fail(new ToolRegistry.UnknownToolError({ tool: id, available: source.map((t) => t.id) }))
    : tool.execute(args, ctx)
}

/** What makeContext would send to Permission for a tool's ask. */
const fullAsk = (options: CallOptions, id: string, callID: string, input: Tool.AskInput): Permission.AskInput => ({
  ...input,
  sessionID: options.sessionID,
  tool: { name: id, callID },
  ruleset: [...(options.ruleset ?? []), ...(input.ruleset ?? [])]
})

const contextWith = Effect.fnUntraced(function*(
  options: CallOptions,
  id: string,
  callID: string,
  abort: AbortSignal | undefined,
  ask: (input: Permission.AskInput) => Effect.Effect<void, Permission.PermissionRejectedError | Permission.PermissionDeniedError>
) {
  const onMetadata = options.onMetadata
  const base = yield* Tool.makeContext({
    sessionID: options.sessionID,
    messageID: options.messageID,
    callID,
    agent: options.agent,
    abort,
    extra: options.extra,
    truncation: options.truncation,
    ruleset: options.ruleset,
    tool: id,
    metadata: onMetadata === undefined ? undefined : (update) => Effect.sync(() => onMetadata(callID, update))
  })
  return { ...base, ask: (input) => ask(fullAsk(options, id, callID, input)) } satisfies Tool.Context
})

/** Runs one call; `approved` lifts the asks the rules leave at `ask`. */
export const run = Effect.fn("Calls.run")(function*(
  source: Source,
  options: CallOptions,
  id: string,
  args: unknown,
  call: { readonly callID: string; readonly abort?: AbortSignal | undefined; readonly mode: AskMode }
) {
  const permission = yield* Permission.Permission
  const ask = call.mode === "waiting" ? permission.ask : (input: Permission.AskInput) =>
    Effect.flatMap(permission.explain(input), (explanation) =>
      // A deny goes through Permission so the error (and its events) are the usual ones.
      explanation.action === "deny" ? permission.ask(input) : Effect.void)
  const ctx = yield* contextWith(options, id, call.callID, call.abort, ask)
  return yield* execute(source, id, args, ctx)
})

/** Runs the call until the first ask that needs the user (see the module doc). */
export const probe = Effect.fn("Calls.probe")(function*(
  source: Source,
  options: CallOptions,
  id: string,
  args: unknown,
  callID: string
) {
  const permission = yield* Permission.Permission
  const stopped = yield* Deferred.make<Permission.AskInput>()
  const ask = (input: Permission.AskInput) =>
    Effect.flatMap(permission.explain(input), (explanation) =>
      explanation.action === "ask"
        ? Deferred.succeed(stopped, input).pipe(Effect.andThen(Effect.never))
        : permission.ask(input))
  const ctx = yield* contextWith(options, id, callID, undefined, ask)
  const done = execute(source, id, args, ctx).pipe(
    Effect.exit,
    Effect.map((outcome): Probe => ({ _tag: "Done", outcome }))
  )
  const needs = Deferred.await(stopped).pipe(Effect.map((ask): Probe => ({ _tag: "NeedsApproval", ask })))
  return yield* Effect.raceFirst(done, needs)
})

/** Outcomes of probes that completed, waiting for the SDK's execute (bounded: a step can be dropped). */
export const makeOutcomes = (capacity = 256) => {
  const outcomes = new Map<string, Outcome>()
  return {
    put: (callID: string, outcome: Outcome) => {
      outcomes.delete(callID)
      outcomes.set(callID, outcome)
      if (outcomes.size > capacity) outcomes.delete(outcomes.keys().next().value as string)
    },
    take: (callID: string): Option.Option<Outcome> => {
      const outcome = outcomes.get(callID)
      outcomes.delete(callID)
      return Option.fromUndefinedOr(outcome)
    }
  }
}

/** One line for an approval prompt: `edit src/a.ts` (with the real path when the tool gave one). */
export const describeAsk = (ask: Permission.AskInput): string => {
  const filepath = ask.metadata?.filepath
  const where = typeof filepath === "string" && !ask.patterns.includes(filepath) ? ` (${filepath})` : ""
  return `${ask.permission} ${ask.patterns.join(", ")}${where}`
}

/** The message of a failed call, for the model. */
export const failureMessage = (cause: Exit.Exit<unknown, { readonly message: string }>): string => {
  if (Exit.isSuccess(cause)) return ""
  const failure = cause.cause.reasons.find((r) => r._tag === "Fail")
  if (failure !== undefined && failure._tag === "Fail") return failure.error.message
  const defect = cause.cause.reasons.find((r) => r._tag === "Die")
  if (defect !== undefined && defect._tag === "Die") {
    return `The tool call failed: ${defect.defect instanceof Error ? defect.defect.message : String(defect.defect)}`
  }
  return "The tool call was aborted."
}
