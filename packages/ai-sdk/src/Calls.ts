/**
 * Calling registry tools on behalf of an SDK, with the three ways a call's permission asks can be
 * answered. Every call goes through `ToolRegistry.execute`, the one pipeline (hooks, events,
 * truncation policy, abort) that the CLI and the MCP server use too.
 *
 * - `waiting`: `ctx.ask` goes to Permission, which decides by its rules and waits for (or is
 *   answered by) the runtime's responder;
 * - `probe`: used to decide whether a call needs the user before it acts. The call starts with
 *   asks decided by the rules alone; if its permission step (a built-in tool's whole list of
 *   requests, asked before it runs) needs the user, it stops there, before the tool acts, and
 *   reports those requests. Otherwise the tool starts and keeps running in the background with an
 *   abort controller of its own, so the SDK's execute can await it and abort it; asks the tool
 *   makes only while it runs (a tool without `requests`) then go to Permission as in `waiting`;
 * - `approved`: the user approved this call in the SDK (e.g. an AI SDK approval response), so
 *   asks the rules leave at `ask` are allowed; a `deny` rule still denies.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { DisplayText, Permission, Tool, ToolRegistry } from "@agent-tools/core"
import type { Truncate } from "@agent-tools/core"

/** The registry whose tools are called (with its hooks, events and per-agent filtering). */
type RegistryService = ToolRegistry.ToolRegistry["Service"]
export interface Source extends RegistryService {}

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
  /**
   * For a sub-agent's loop: how many sub-agents deep it runs (`SubagentRunner.Request.depth`),
   * so that `task` refuses to nest too deep (`Tool.Context.depth`).
   */
  readonly depth?: number | undefined
  /**
   * For a sub-agent's loop: the ids of the tools it is given. Only those are listed, and the
   * registry refuses a call to any other by name (`Tool.Context.tools`).
   */
  readonly tools?: ReadonlyArray<string> | undefined
  /** Live progress of a running call (title and partial metadata). */
  readonly onMetadata?:
    | ((callID: string, update: { readonly title?: string | undefined; readonly metadata?: Tool.Metadata | undefined }) => void)
    | undefined
}

export type AskMode = "waiting" | "approved"

export type Outcome = Exit.Exit<Tool.Result, ToolRegistry.ExecuteError>

/** A call that needed no approval, running (or already finished) in the background. */
export interface Running {
  readonly fiber: Fiber.Fiber<Tool.Result, ToolRegistry.ExecuteError>
  /** The call's `ctx.abort`: aborting it ends the call with the registry's aborted result. */
  readonly abort: AbortController
}

export type Probe =
  | { readonly _tag: "NeedsApproval"; readonly asks: ReadonlyArray<Permission.AskInput> }
  | { readonly _tag: "Started"; readonly call: Running }

/** The tools of the source for these options. */
export const list = Effect.fn("Calls.list")(function*(
  source: Source,
  options: CallOptions
): Effect.fn.Return<ReadonlyArray<Tool.Built>> {
  const listed = yield* source.tools({ agent: options.agent, model: options.model })
  const given = options.tools
  return given === undefined ? listed : listed.filter((t) => given.includes(t.id))
})

/** How a call's asks are answered: one request, or the requests of one prompt. */
interface Asker {
  readonly ask: (input: Permission.AskInput) => Effect.Effect<void, Permission.PermissionRejectedError | Permission.PermissionDeniedError>
  readonly askAll: (
    inputs: ReadonlyArray<Permission.AskInput>
  ) => Effect.Effect<void, Permission.PermissionRejectedError | Permission.PermissionDeniedError>
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
  asker: Asker
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
    depth: options.depth,
    tools: options.tools,
    metadata: onMetadata === undefined ? undefined : (update) => Effect.sync(() => onMetadata(callID, update))
  })
  return {
    ...base,
    ask: (input) => asker.ask(fullAsk(options, id, callID, input)),
    askAll: (inputs) => asker.askAll(inputs.map((input) => fullAsk(options, id, callID, input)))
  } satisfies Tool.Context
})

/** The permission service's own ask for one request or several (one prompt). */
const asking = (permission: Permission.Permission["Service"], inputs: ReadonlyArray<Permission.AskInput>) =>
  inputs.length === 1
    ? permission.ask(inputs[0]!)
    : permission.askAll({
      sessionID: inputs[0]?.sessionID ?? "",
      tool: inputs[0]?.tool,
      requests: inputs.map(({ sessionID: _s, tool: _t, ...item }) => item)
    })

/** The combined decision for several requests: deny if any denies, else ask if any asks. */
const decide = Effect.fnUntraced(function*(permission: Permission.Permission["Service"], inputs: ReadonlyArray<Permission.AskInput>) {
  const actions: Array<Permission.Action> = []
  for (const input of inputs) actions.push((yield* permission.explain(input)).action)
  return actions.includes("deny") ? "deny" as const : actions.includes("ask") ? "ask" as const : "allow" as const
})

/** An Asker from one function over the requests of a prompt. */
const askerOf = (
  f: (inputs: ReadonlyArray<Permission.AskInput>) => Effect.Effect<void, Permission.PermissionRejectedError | Permission.PermissionDeniedError>
): Asker => ({ ask: (input) => f([input]), askAll: f })

/** Runs one call; `approved` lifts the asks the rules leave at `ask`. */
export const run = Effect.fn("Calls.run")(function*(
  source: Source,
  options: CallOptions,
  id: string,
  args: unknown,
  call: { readonly callID: string; readonly abort?: AbortSignal | undefined; readonly mode: AskMode }
): Effect.fn.Return<Tool.Result, ToolRegistry.ExecuteError, Permission.Permission> {
  const permission = yield* Permission.Permission
  const asker = askerOf((inputs) =>
    call.mode === "waiting"
      ? asking(permission, inputs)
      // A deny goes through Permission so the error (and its events) are the usual ones.
      : Effect.flatMap(decide(permission, inputs), (action) => action === "deny" ? asking(permission, inputs) : Effect.void)
  )
  const ctx = yield* contextWith(options, id, call.callID, call.abort, asker)
  return yield* source.execute(id, args, ctx)
})

/** Starts the call; stops it at its permission step when that needs the user (see the module doc). */
export const probe = Effect.fn("Calls.probe")(function*(
  source: Source,
  options: CallOptions,
  id: string,
  args: unknown,
  callID: string
): Effect.fn.Return<Probe, never, Permission.Permission> {
  const permission = yield* Permission.Permission
  const stopped = yield* Deferred.make<ReadonlyArray<Permission.AskInput>>()
  const authorized = yield* Deferred.make<void>()
  let started = false
  const asker = askerOf((inputs) =>
    started
      ? asking(permission, inputs)
      : Effect.flatMap(decide(permission, inputs), (action) =>
        action === "ask"
          ? Deferred.succeed(stopped, inputs).pipe(Effect.andThen(Effect.never))
          : asking(permission, inputs))
  )
  const abort = new AbortController()
  const ctx = yield* contextWith(options, id, callID, abort.signal, asker)
  const onAuthorized = Effect.suspend(() => {
    started = true
    return Deferred.succeed(authorized, undefined)
  })
  // Detached: the call outlives the probe, until the SDK's execute awaits (or aborts) it.
  const fiber = yield* source.execute(id, args, ctx, { onAuthorized }).pipe(Effect.forkDetach)
  const needs = Deferred.await(stopped).pipe(Effect.map((asks): Probe => ({ _tag: "NeedsApproval", asks })))
  const running = Effect.raceFirst(Deferred.await(authorized), Fiber.await(fiber)).pipe(
    Effect.as<Probe>({ _tag: "Started", call: { fiber, abort } })
  )
  const probed = yield* Effect.raceFirst(needs, running)
  if (probed._tag === "NeedsApproval") yield* Fiber.interrupt(fiber)
  return probed
})

/** Awaits a started call; `signal` (the SDK's abort) aborts it. */
export const join = (call: Running, signal: AbortSignal | undefined): Effect.Effect<Outcome> =>
  Effect.suspend(() => {
    if (signal === undefined) return Fiber.await(call.fiber)
    const forward = () => call.abort.abort()
    if (signal.aborted) forward()
    else signal.addEventListener("abort", forward, { once: true })
    return Fiber.await(call.fiber).pipe(Effect.ensuring(Effect.sync(() => signal.removeEventListener("abort", forward))))
  })

/** Calls that started during a probe, waiting for the SDK's execute (bounded: a step can be dropped). */
export const makeStarted = (capacity = 256) => {
  const calls = new Map<string, Running>()
  return {
    put: (callID: string, call: Running) => {
      calls.delete(callID)
      calls.set(callID, call)
      if (calls.size > capacity) calls.delete(calls.keys().next().value as string)
    },
    take: (callID: string): Option.Option<Running> => {
      const call = calls.get(callID)
      calls.delete(callID)
      return Option.fromUndefinedOr(call)
    }
  }
}

/**
 * The approval reason listing every request of the call: a first line such as
 * `edit src/a.ts; bash touch src/a.ts` (with the real path when the tool gave one), then what the
 * tool's plan shows: the diff of a file change, the notes on a command. Apps show it as it is, so
 * control and bidi characters are escaped (`DisplayText`: `line` for the summary, `block` with a
 * gutter for the multi-line diff, so no line of it can pass for a line of the reason).
 */
export const describeAsks = (asks: ReadonlyArray<Permission.AskInput>): string => {
  const summary = asks.map((ask) => {
    const filepath = ask.metadata?.filepath
    const where = typeof filepath === "string" && !ask.patterns.includes(filepath) ? ` (${DisplayText.line(filepath)})` : ""
    return `${DisplayText.line(ask.permission)} ${ask.patterns.map(DisplayText.line).join(", ")}${where}`
  }).join("; ")
  const details = asks.flatMap((ask) => {
    const display = ask.display
    if (display === undefined) return []
    if (display.kind === "command") return display.notes.map((note) => `note: ${DisplayText.line(note)}`)
    return display.diff.trim() === "" ? [] : [`${GUTTER}${DisplayText.block(DisplayText.clip(display.diff.trimEnd()), GUTTER)}`]
  })
  return details.length === 0 ? summary : [summary, ...details].join("\n")
}

/** Continuation lines of a multi-line detail start with this, so they cannot pass for lines of the reason. */
const GUTTER = "  | "


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
