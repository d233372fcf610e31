/**
 * The set of tools an agent can call, and the one entry point that calls them:
 * lookup → validate → before hooks → validate → the tool's permission requests (evaluated together:
 * a deny refuses with no prompt, all asks are one prompt) → run → after hooks → truncate, with events.
 * The steps up to the requests are the call's plan (`plan`), which `explain` shows without running.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { authorize } from "./Authorize.ts"
import * as Events from "./Events.ts"
import type * as Hooks from "./Hooks.ts"
import { runAfter, runBefore } from "./Hooks.ts"
import type { ModuleLoader } from "./ModuleLoader.ts"
import * as Permission from "./Permission.ts"
import * as PermissionRules from "./PermissionRules.ts"
import * as Tool from "./Tool.ts"
import * as ToolLoader from "./ToolLoader.ts"
import { ToolUnavailableError, UnknownToolError } from "./ToolRegistryErrors.ts"
import { loadCustom } from "./ToolRegistryCustom.ts"
import type { ToolSource } from "./ToolSource.ts"
import * as ToolSources from "./ToolSources.ts"
import * as Truncate from "./Truncate.ts"
import * as Workspace from "./Workspace.ts"

export { ToolUnavailableError, UnknownToolError } from "./ToolRegistryErrors.ts"

export type ExecuteError = Tool.CallError | UnknownToolError | ToolUnavailableError

export interface TruncationPolicy {
  /** Tools whose output is never truncated by the registry. */
  readonly skip?: ReadonlyArray<string> | undefined
  /** Last word on whether a result is truncated (after the skip list and the tool's own opt-out). */
  readonly shouldTruncate?: ((input: { readonly tool: string; readonly result: Tool.Result }) => boolean) | undefined
}

export interface Options {
  /** Tool ids removed for every agent. */
  readonly disabled?: ReadonlyArray<string> | undefined
  /** Directories of custom tools (`*.ts`, `*.js`), relative to the workspace root. */
  readonly directories?: ReadonlyArray<string> | undefined
  /** Plugins: npm module names (resolved from the workspace root) or inline plugin objects. */
  readonly plugins?: ReadonlyArray<string | ToolLoader.Plugin> | undefined
  /** Loaded tools may replace a built-in of the same id only when this is true. */
  readonly allowOverride?: boolean | undefined
  readonly hooks?: ReadonlyArray<Hooks.Hooks> | undefined
  /** Each agent's own permission rules (evaluated after the configured ones). */
  readonly agents?: Record<string, Permission.Ruleset> | undefined
  readonly truncation?: TruncationPolicy | undefined
}

/** How one call is run, beyond its context. */
export interface ExecuteOptions {
  /**
   * Runs once the call passed validation, the before hooks and its permission requests, just
   * before the tool itself runs (an adapter that must know whether a call needs the user before
   * it acts waits for this).
   */
  readonly onAuthorized?: Effect.Effect<void> | undefined
}

/** A call planned but not run (`ToolRegistry.plan`): what `execute` asks and runs. */
export interface Plan {
  readonly tool: Tool.Built
  /** The arguments after validation and the before hooks: what the tool would run with. */
  readonly args: unknown
  /** The call's permission requests, asked as one prompt before the tool runs. */
  readonly requests: ReadonlyArray<Tool.AskInput>
  /** The tool's own state for the run (see `Tool.Plan`). */
  readonly state: unknown
}

export interface ToolsQuery {
  /** Model id: GPT-style models get apply_patch instead of edit/write when both are registered. */
  readonly model?: string | undefined
  readonly agent?: string | undefined
  /**
   * How long the listing waits for tool sources still loading (MCP servers starting); those not
   * loaded by then load in the background and are announced on `changes` when they land. Default:
   * until every source has loaded or failed.
   */
  readonly wait?: Duration.Input | undefined
}

export class ToolRegistry extends Context.Service<ToolRegistry, {
  /** Adds a built tool, replacing any tool with the same id. */
  readonly register: (tool: Tool.Built) => Effect.Effect<void>
  readonly unregister: (id: string) => Effect.Effect<boolean>
  /** The ids of the tools registered now (a source's tools count once it has loaded). */
  readonly ids: Effect.Effect<ReadonlyArray<string>>
  /** A tool by id; an id a source claims loads that source first. */
  readonly get: (id: string) => Effect.Effect<Option.Option<Tool.Built>>
  /**
   * Adds a source of tools that loads when its tools are needed (each listing, a call of an id it
   * claims); removed with its tools when the scope closes.
   */
  readonly addSource: (source: ToolSource) => Effect.Effect<void, never, Scope.Scope>
  /**
   * Emits when the tools of a source changed after a listing: it said so itself (an MCP server's
   * list_changed) and was reloaded, or it landed after a listing stopped waiting for it.
   */
  readonly changes: Stream.Stream<void>
  /** The tools offered to one agent on one model (every source loaded first). */
  readonly tools: (query?: ToolsQuery) => Effect.Effect<ReadonlyArray<Tool.Built>>
  /**
   * The one call pipeline, used by every entry point (CLI, MCP, AI SDK, effect/ai): lookup →
   * validate → before hooks → validate → permission requests → run → after hooks → truncate,
   * with events; `ctx.abort` ends the call (its processes included) with an aborted result.
   */
  readonly execute: (
    id: string,
    args: unknown,
    ctx: Tool.Context,
    options?: ExecuteOptions
  ) => Effect.Effect<Tool.Result, ExecuteError>
  /**
   * The first steps of `execute`, without running anything: lookup → validate → before hooks →
   * validate → the tool's permission requests (nothing is asked). A hook that rewrites the
   * arguments rewrites them here as in the call.
   */
  readonly plan: (id: string, args: unknown, ctx: Tool.Context) => Effect.Effect<Plan, ExecuteError>
  /** Custom tools and plugins that failed to load, with the file and the reason. */
  readonly diagnostics: Effect.Effect<ReadonlyArray<ToolLoader.ToolLoadError>>
  readonly addHooks: (hooks: Hooks.Hooks) => Effect.Effect<void>
}>()("@agent-tools/core/ToolRegistry") {}

/**
 * How a tool calls other tools of the registry it is built into (batch, invalid). Provided by the
 * registry while it builds its tools, bound to the finished registry, so a call made through it
 * takes the whole pipeline (validation, permissions, hooks, truncation, events).
 */
export class Dispatcher extends Context.Service<Dispatcher, {
  readonly execute: (id: string, args: unknown, ctx: Tool.Context) => Effect.Effect<Tool.Result, ExecuteError>
  /** The tools offered to the agent (as `ToolRegistry.tools`). */
  readonly tools: (query?: ToolsQuery) => Effect.Effect<ReadonlyArray<Tool.Built>>
}>()("@agent-tools/core/ToolRegistry/Dispatcher") {}

/** opencode's rule: GPT models (not gpt-4, not oss) edit with apply_patch. */
export const prefersPatch = (model: string): boolean =>
  model.includes("gpt-") && !model.includes("oss") && !model.includes("gpt-4")

const EDIT_FAMILY = new Set(["edit", "write", "multiedit"])

/** Registry services the built-in tools and loaders need, besides each tool's own. */
export type Requirements =
  | Truncate.Truncate
  | Permission.Permission
  | Events.Events
  | FileSystem.FileSystem
  | Path.Path
  | ModuleLoader
  | Workspace.Workspace

/**
 * Builds a registry from tool definitions (each built with `yield* Tool.build`, so the layer
 * requires the union of their services) plus the custom tools and plugins of `options`.
 */
export const make = Effect.fnUntraced(function*<R>(
  definitions: ReadonlyArray<Tool.Definition<string, any, R>>,
  options: Options = {}
) {
  // Bound to the finished registry below; tools only call through it at run time.
  let self: ToolRegistry["Service"] | undefined
  const dispatcher = Dispatcher.of({
    execute: (id, args, ctx) => Effect.suspend(() => self!.execute(id, args, ctx)),
    tools: (query) => Effect.suspend(() => self!.tools(query))
  })

  // Each tool is built when first called, fetched or listed, not with the registry: a process that
  // calls one tool does not pay the others' start-up (the bash tool probes its sandbox).
  const tools = new Map<string, Effect.Effect<Tool.Built>>()
  const own = Context.add(yield* Effect.context<Exclude<R, Dispatcher>>(), Dispatcher, dispatcher)
  for (const definition of definitions) {
    const build = Tool.build(definition).pipe(Effect.provideContext(own as Context.Context<R>))
    tools.set(definition.id, yield* Effect.cached(build))
  }
  const services = Context.add(yield* Effect.context<Requirements>(), Dispatcher, dispatcher)
  const { diagnostics, hooks } = yield* loadCustom(tools, options, services as Context.Context<unknown>)
  const reg = yield* open(tools, diagnostics, hooks, options)
  self = ToolRegistry.of({
    register: Effect.fn("ToolRegistry.register")(function*(tool: Tool.Built) {
      tools.set(tool.id, Effect.succeed(tool))
      reg.hints.clear()
    }),
    unregister: Effect.fn("ToolRegistry.unregister")(function*(id: string) {
      reg.hints.clear()
      return tools.delete(id)
    }),
    ids: Effect.sync(() => [...tools.keys()]),
    get: (id) =>
      Effect.flatMap(
        tools.has(id) || !reg.sources.claimed(id) ? Effect.void : reg.sources.load(id),
        () => Effect.map(builtOf(reg, id), Option.fromUndefinedOr)
      ),
    addSource: (source) => addSource(reg, source),
    changes: Stream.fromPubSub(reg.changed),
    tools: Effect.fn("ToolRegistry.tools")(function*(query?: ToolsQuery) {
      yield* query?.wait === undefined ? reg.sources.loadAll : reg.sources.loadAllWithin(query.wait)
      return yield* available(reg, query)
    }),
    execute: (id, args, ctx, options) => execute(reg, id, args, ctx, options),
    plan: (id, args, ctx) => plan(reg, id, args, ctx),
    diagnostics: Effect.sync(() => [...diagnostics]),
    addHooks: Effect.fn("ToolRegistry.addHooks")(function*(added: Hooks.Hooks) {
      hooks.push(added)
    })
  })
  return self
})

/** What the parts of a registry share: its services, tools, hooks, policies and caches. */
interface Registry {
  readonly events: Events.Events["Service"]
  readonly permission: Permission.Permission["Service"]
  readonly truncate: Truncate.Truncate["Service"]
  readonly options: Options
  readonly tools: Map<string, Effect.Effect<Tool.Built>>
  readonly diagnostics: Array<ToolLoader.ToolLoadError>
  readonly hooks: Array<Hooks.Hooks>
  readonly disabledIds: Set<string>
  // The truncation hint depends only on the agent's static rules and the tool set: cached.
  readonly hints: Map<string, Truncate.HintContext>
  readonly skip: Set<string>
  readonly shouldTruncate: TruncationPolicy["shouldTruncate"]
  readonly changed: PubSub.PubSub<void>
  // Tools of outside sources (MCP servers), registered and unregistered as the sources load.
  readonly sources: ReturnType<typeof ToolSources.make>
}

const open = Effect.fnUntraced(function*(
  tools: Map<string, Effect.Effect<Tool.Built>>,
  diagnostics: Array<ToolLoader.ToolLoadError>,
  hooks: Array<Hooks.Hooks>,
  options: Options
) {
  const hints = new Map<string, Truncate.HintContext>()
  const changed = yield* PubSub.unbounded<void>()
  return {
    events: yield* Events.Events,
    permission: yield* Permission.Permission,
    truncate: yield* Truncate.Truncate,
    options,
    tools,
    diagnostics,
    hooks,
    disabledIds: new Set(options.disabled ?? []),
    hints,
    skip: new Set(options.truncation?.skip ?? []),
    shouldTruncate: options.truncation?.shouldTruncate,
    changed,
    sources: ToolSources.make(tools, () => hints.clear(), () => PubSub.publishUnsafe(changed, undefined))
  } satisfies Registry
})

const addSource = (reg: Registry, source: ToolSource) =>
  Effect.gen(function*() {
    yield* reg.sources.add(source)
    if (source.changes === undefined) return
    yield* Effect.forkScoped(
      Stream.runForEach(source.changes, () => Effect.andThen(reg.sources.reload(source), PubSub.publish(reg.changed, undefined)))
    )
  })

const rulesOf = ({ options, permission }: Registry, agent: string | undefined): Permission.Ruleset =>
  agent === undefined ? permission.rules : [...permission.rules, ...(options.agents?.[agent] ?? [])]

// What the rules and the config allow; availability that can change at run time is checked after.
const permitted = (reg: Registry, query: ToolsQuery = {}): ReadonlyArray<string> => {
  const denied = PermissionRules.disabled([...reg.tools.keys()], rulesOf(reg, query.agent))
  let list = [...reg.tools.keys()].filter((id) => !reg.disabledIds.has(id) && !denied.has(id))
  if (query.model !== undefined && list.includes("apply_patch") && list.some((id) => EDIT_FAMILY.has(id))) {
    const patch = prefersPatch(query.model)
    list = list.filter((id) => id === "apply_patch" ? patch : EDIT_FAMILY.has(id) ? !patch : true)
  }
  return list
}

const builtOf = (reg: Registry, id: string): Effect.Effect<Tool.Built | undefined> => reg.tools.get(id) ?? Effect.undefined

// Built side by side: a build that waits on a process (the sandbox probe, rg's version) leaves
// the CPU to the others. Each build is cached, so the first listing builds each tool once.
const available = (reg: Registry, query: ToolsQuery = {}): Effect.Effect<ReadonlyArray<Tool.Built>> =>
  Effect.forEach(permitted(reg, query), (id) => builtOf(reg, id), { concurrency: "unbounded" }).pipe(
    Effect.flatMap((list) =>
      Effect.filter(
        list.filter((t): t is Tool.Built => t !== undefined && !t.hidden),
        (t) => Effect.map(t.unavailable, (why) => why === undefined)
      )
    )
  )

const hintFor = (reg: Registry, agent: string): Effect.Effect<Truncate.HintContext> => {
  let hint = reg.hints.get(agent)
  if (hint === undefined) {
    const ids = new Set(permitted(reg, { agent }))
    const task = ids.has("task") && PermissionRules.evaluate("task", "*", rulesOf(reg, agent)).action !== "deny"
    hint = { task, read: ids.has("read"), grep: ids.has("grep") }
    reg.hints.set(agent, hint)
  }
  const cached = hint
  // Whether a sub-agent can run may change with the client: checked on every call.
  const task = reg.tools.get("task")
  return !cached.task || task === undefined
    ? Effect.succeed(cached)
    : Effect.flatMap(task, (t) =>
      Effect.map(t.unavailable, (why) =>
        why !== undefined || t.subagents?.length === 0
          ? { ...cached, task: false }
          : t.subagents === undefined
          ? cached
          : { ...cached, agents: t.subagents }))
}

/**
 * The context a tool runs with: the hint for its own truncation (bash cuts its output itself)
 * is the one the registry would use, so it names only the tools and agents the caller has.
 */
const hinted = (ctx: Tool.Context, hint: Truncate.HintContext): Tool.Context =>
  ctx.truncation?.hint !== undefined ? ctx : { ...ctx, truncation: { ...ctx.truncation, hint } }

const bound = (
  reg: Registry,
  tool: Tool.Built,
  result: Tool.Result,
  ctx: Tool.Context,
  hint: Truncate.HintContext
): Effect.Effect<Tool.Result> => {
  const { shouldTruncate } = reg
  if (reg.skip.has(tool.id) || (shouldTruncate !== undefined && !shouldTruncate({ tool: tool.id, result }))) {
    return result.metadata.truncated === undefined
      ? reg.events.publish({ _tag: "TruncationSkipped", tool: tool.id, reason: "registry policy" }).pipe(
        Effect.as({ ...result, metadata: { ...result.metadata, truncated: false } })
      )
      : Effect.succeed(result)
  }
  return Tool.finalize(tool, result, ctx, hint).pipe(Effect.provideService(Truncate.Truncate, reg.truncate))
}

// Models often capitalise tool names: accept a case-insensitive match.
const findId = ({ tools }: Registry, id: string) =>
  tools.has(id) ? id : [...tools.keys()].find((k) => k.toLowerCase() === id.toLowerCase())

// An id no tool has yet may belong to a source that has not loaded.
const lookup = (reg: Registry, id: string, agent: string): Effect.Effect<Tool.Built, UnknownToolError | ToolUnavailableError> => {
  const known = findId(reg, id)
  if (known !== undefined || !reg.sources.claimed(id)) return check(reg, known, id, agent)
  return Effect.flatMap(reg.sources.load(id), (failures) => {
    const loaded = findId(reg, id)
    // The source that would hold it could not load: say why rather than "unknown tool".
    return loaded === undefined && failures.length > 0
      ? Effect.fail(
        new ToolUnavailableError({ tool: id, agent, reason: "unavailable", detail: failures.map((f) => f.message).join("; "), cause: failures })
      )
      : check(reg, loaded, id, agent)
  })
}

const check = (
  reg: Registry,
  known: string | undefined,
  id: string,
  agent: string
): Effect.Effect<Tool.Built, UnknownToolError | ToolUnavailableError> => {
  if (known === undefined) {
    return Effect.flatMap(available(reg, { agent }), (list) => Effect.fail(new UnknownToolError({ tool: id, available: list.map((t) => t.id) })))
  }
  if (reg.disabledIds.has(known)) {
    return Effect.fail(new ToolUnavailableError({ tool: known, agent, reason: "disabled", detail: "it is disabled in the configuration" }))
  }
  if (PermissionRules.disabled([known], rulesOf(reg, agent)).has(known)) {
    return Effect.fail(new ToolUnavailableError({ tool: known, agent, reason: "denied", detail: "a permission rule denies it" }))
  }
  return Effect.flatMap(reg.tools.get(known)!, (tool) =>
    Effect.flatMap(tool.unavailable, (reason) =>
      reason === undefined
        ? Effect.succeed(tool)
        : Effect.fail(new ToolUnavailableError({ tool: tool.id, agent, reason: "unavailable", detail: reason }))))
}

// A caller with a tool list of its own (a sub-agent) reaches only those tools, by any name.
const given = (tool: Tool.Built, ctx: Tool.Context): Effect.Effect<Tool.Built, ToolUnavailableError> =>
  ctx.tools === undefined || ctx.tools.includes(tool.id)
    ? Effect.succeed(tool)
    : Effect.fail(
      new ToolUnavailableError({
        tool: tool.id,
        agent: ctx.agent,
        reason: "not-given",
        detail: `it is not among the tools this agent was given (${ctx.tools.join(", ") || "none"})`
      })
    )

const abortable = <A, E>(effect: Effect.Effect<A, E>, tool: string, signal: AbortSignal) =>
  signal.aborted
    ? Effect.fail(new Tool.ToolError({ tool, reason: "aborted", message: "The tool call was aborted before it started." }))
    : Effect.raceFirst(
      effect,
      Effect.callback<never, Tool.ToolError>((resume) => {
        const onAbort = () => resume(Effect.fail(new Tool.ToolError({ tool, reason: "aborted", message: "The tool call was aborted." })))
        // The abort may land between the check above and this fiber starting.
        if (signal.aborted) return onAbort()
        signal.addEventListener("abort", onAbort, { once: true })
        return Effect.sync(() => signal.removeEventListener("abort", onAbort))
      })
    )

// Validation, the before hooks (validated again when they changed the arguments), the requests.
const planFor = Effect.fnUntraced(function*(reg: Registry, tool: Tool.Built, args: unknown, ctx: Tool.Context) {
  let valid = yield* tool.validate(args)
  if (reg.hooks.length > 0) {
    const changed = yield* runBefore(reg.hooks, tool.id, ctx, valid)
    if (changed !== valid) valid = yield* tool.validate(changed)
  }
  const planned = yield* tool.plan(valid, ctx)
  return { tool, args: valid, requests: planned.requests, state: planned.state } satisfies Plan
})

const find = (reg: Registry, id: string, ctx: Tool.Context) =>
  lookup(reg, id, ctx.agent).pipe(Effect.flatMap((tool) => given(tool, ctx)))

const plan = Effect.fn("ToolRegistry.plan")(function*(reg: Registry, id: string, args: unknown, ctx: Tool.Context) {
  const tool = yield* find(reg, id, ctx)
  yield* Effect.annotateCurrentSpan({ "tool.name": tool.id, "session.id": ctx.sessionID })
  return yield* planFor(reg, tool, args, ctx)
})

const execute = Effect.fn("ToolRegistry.execute")(function*(
  reg: Registry,
  id: string,
  args: unknown,
  ctx: Tool.Context,
  options: ExecuteOptions = {}
) {
  const { events, hooks } = reg
  const tool = yield* find(reg, id, ctx)
  yield* Effect.annotateCurrentSpan({ "tool.name": tool.id, "tool.call_id": ctx.callID, "session.id": ctx.sessionID })
  yield* events.publish({ _tag: "ToolStarted", tool: tool.id, sessionID: ctx.sessionID, callID: ctx.callID })
  const started = yield* Clock.currentTimeMillis
  const finished = (outcome: "success" | "failure" | "interrupted") =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => events.publish({
      _tag: "ToolFinished",
      tool: tool.id,
      sessionID: ctx.sessionID,
      callID: ctx.callID,
      outcome,
      durationMs: now - started
    }))
  // Abort cuts the call off wherever it waits (before hooks, a permission prompt, the tool),
  // except a running tool that answers the abort with a result of its own (kept, like any result).
  const prepare = Effect.gen(function*() {
    const planned = yield* planFor(reg, tool, args, ctx)
    // Granted requests pass without asking again when the tool asks for them itself.
    const granted = yield* authorize(ctx, planned.requests)
    if (options.onAuthorized !== undefined) yield* options.onAuthorized
    return { valid: planned.args, granted, state: planned.state }
  })
  const call = Effect.gen(function*() {
    const { valid, granted, state } = yield* abortable(prepare, tool.id, ctx.abort)
    const hint = yield* hintFor(reg, ctx.agent)
    const running = tool.run(valid, hinted(granted, hint), state)
    const raw = yield* tool.ownAbort ? running : abortable(running, tool.id, ctx.abort)
    const result = hooks.length > 0 ? yield* runAfter(hooks, tool.id, ctx, valid, raw) : raw
    return yield* bound(reg, tool, result, ctx, hint)
  })
  return yield* call.pipe(
    Effect.onExit((exit) =>
      finished(exit._tag === "Success" ? "success" : exit.cause.reasons.every((r) => r._tag === "Interrupt") ? "interrupted" : "failure")
    )
  )
})

/** The services a list of tool definitions needs: the union of each one's. */
export type ServicesOf<D> = D extends Tool.Definition<string, any, infer R> ? R : never

/** The registry as a layer; it requires every service any of `definitions` needs. */
export const layer = <const D extends ReadonlyArray<Tool.Definition<string, any, any>>>(
  definitions: D,
  options: Options = {}
): Layer.Layer<ToolRegistry, never, Exclude<ServicesOf<D[number]>, Dispatcher> | Requirements> =>
  Layer.effect(ToolRegistry, make<ServicesOf<D[number]>>(definitions, options))
