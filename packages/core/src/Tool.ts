/**
 * The tool contract: `define` a tool with zod parameters and `build` it inside a layer so its `init`
 * gets the services it needs. A built tool holds the pieces of a call (validate; its plan: the
 * permission requests and what the run takes over; run); the one place that puts them together —
 * with hooks, events, abort and the truncation policy — is `ToolRegistry.execute`, which every
 * entry point calls.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as z from "zod"
import * as Permission from "./Permission.ts"
import * as Truncate from "./Truncate.ts"

export interface Attachment {
  readonly type: "file"
  readonly mime: string
  /** A `data:<mime>;base64,…` URL. */
  readonly url: string
  readonly filename?: string | undefined
}

export type Metadata = Record<string, unknown>

export interface Result<M extends Metadata = Metadata> {
  readonly title: string
  readonly output: string
  readonly metadata: M
  readonly attachments?: ReadonlyArray<Attachment> | undefined
}

/** What a tool may ask for: the permission fields without the session, which the context supplies. */
export type AskInput = Omit<Permission.AskInput, "sessionID" | "tool">

export interface Context {
  readonly sessionID: string
  readonly messageID: string
  readonly callID: string
  readonly agent: string
  readonly abort: AbortSignal
  readonly extra: Record<string, unknown>
  /** Live progress for a UI (title and partial metadata while the tool runs). */
  readonly metadata: (update: { readonly title?: string | undefined; readonly metadata?: Metadata | undefined }) => Effect.Effect<void>
  /** Asks Permission for what the tool will touch; fails when denied or rejected. */
  readonly ask: (input: AskInput) => Effect.Effect<void, Permission.PermissionRejectedError | Permission.PermissionDeniedError>
  /**
   * Asks several requests as one prompt (`Permission.askAll`): any deny fails with nothing asked,
   * and one reply answers all of them. A wrapper that replaces `ask` must replace this too.
   */
  readonly askAll: (
    inputs: ReadonlyArray<AskInput>
  ) => Effect.Effect<void, Permission.PermissionRejectedError | Permission.PermissionDeniedError>
  /** Per-call truncation overrides (the highest precedence). */
  readonly truncation?: Truncate.Options | undefined
  /**
   * How many sub-agents deep the call is made: 0 (or absent) for the agent the user talks to, 1
   * for a tool call of a sub-agent that agent started, and so on. The task tool refuses to start
   * a sub-agent at `SubagentRunner.MAX_DEPTH`.
   */
  readonly depth?: number | undefined
  /**
   * The ids of the tools the caller was given (a sub-agent's tool list): the registry refuses a
   * call to any other tool by name, even one it would offer the agent. Undefined: every tool the
   * registry offers the agent.
   */
  readonly tools?: ReadonlyArray<string> | undefined
}

/**
 * Why a tool call failed, for code to match on (the message is for the model and the user):
 * - `not-found`: the file, directory or thing named does not exist;
 * - `is-directory`: a directory or special file where a regular file is needed;
 * - `binary`: a binary file where text is needed;
 * - `too-large`: over a size limit of the tool;
 * - `not-read`: a file changed without being read in this session first;
 * - `stale`: the file changed since it was read;
 * - `encoding`: text that cannot be decoded, or encoded back in the file's encoding;
 * - `no-match`: the text to replace (or a patch's context) is not in the file;
 * - `ambiguous`: it is there more than once;
 * - `denied`: refused by a rule of the tools themselves, not a permission rule (outside the
 *   workspace, a protected file, a private network address, the OS refusing access); a permission
 *   rule's refusal is a `PermissionRejectedError` / `PermissionDeniedError` instead;
 * - `aborted`: the call was cancelled;
 * - `invalid`: arguments the schema accepts but the tool cannot use (a bad pattern, URL or patch);
 * - `timeout`: a time limit ran out;
 * - `unavailable`: something the call needs is missing here (a service, a program, a server);
 * - `io`: reading, writing, spawning or fetching failed;
 * - `other`: anything else (custom tools, hooks, remote tools without a reason).
 */
export const ToolErrorReason = Schema.Literals([
  "not-found",
  "is-directory",
  "binary",
  "too-large",
  "not-read",
  "stale",
  "encoding",
  "no-match",
  "ambiguous",
  "denied",
  "aborted",
  "invalid",
  "timeout",
  "unavailable",
  "io",
  "other"
])
export type ToolErrorReason = typeof ToolErrorReason.Type

/** A tool call failed: `reason` for code, `message` for the model, `cause` the error underneath. */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  tool: Schema.String,
  reason: ToolErrorReason,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export class InvalidArgumentsError extends Schema.TaggedError<InvalidArgumentsError>()("InvalidArgumentsError", {
  tool: Schema.String,
  /** One line per bad field: `- path.to.field: what is wrong`. */
  issues: Schema.String,
  /** Set when the tool formats its own validation message. */
  custom: Schema.optional(Schema.String)
}) {
  override get message() {
    return this.custom ??
      `The ${this.tool} tool was called with invalid arguments:\n${this.issues}\nPlease rewrite the input so it satisfies the expected schema.`
  }
}

/** Errors a tool's own `execute` may fail with. */
export type ExecuteError = ToolError | Permission.PermissionRejectedError | Permission.PermissionDeniedError
/** Errors of a tool call: the tool's, plus bad arguments. */
export type CallError = ExecuteError | InvalidArgumentsError

export interface Annotations {
  /** Never changes anything (MCP readOnlyHint). */
  readonly readOnly?: boolean | undefined
  /** May destroy or overwrite data (MCP destructiveHint). */
  readonly destructive?: boolean | undefined
  /** Reaches outside the workspace, e.g. the web (MCP openWorldHint). */
  readonly openWorld?: boolean | undefined
}

/**
 * What a call needs before it runs, computed without acting: its permission requests (each may
 * carry what the prompt shows, `display`), and `state`, what the tool worked out for them (the
 * parsed patch, the new content of a file) that the run takes over instead of working it out again.
 */
export interface Plan<S = unknown> {
  readonly requests: ReadonlyArray<AskInput>
  readonly state?: S | undefined
}

/** What a tool's `init` returns. */
export interface Def<P extends z.ZodType = z.ZodType, M extends Metadata = Metadata, S = undefined> {
  readonly description: string
  /**
   * The built-in tools wrap theirs in `z.lazy`: built on the first validation or listing, not when
   * the module loads, so a process that never lists or calls a tool never builds its schema.
   */
  readonly parameters: P
  /**
   * Runs the call. `planned` is the state of the call's `plan` when the call was planned first
   * (the registry always does); undefined when it runs without a plan.
   */
  readonly execute: (args: z.output<P>, ctx: Context, planned?: S | undefined) => Effect.Effect<Result<M>, ExecuteError>
  /** Replaces the default invalid-arguments message. */
  readonly formatValidationError?: ((error: z.ZodError) => string) | undefined
  /** `false`: never truncate this tool's output; options: the tool's own defaults (e.g. bash tails). */
  readonly truncation?: false | Truncate.Options | undefined
  readonly annotations?: Annotations | undefined
  /**
   * The tool ends promptly on `ctx.abort` with a result of its own (bash returns the output it
   * captured before the kill): once it runs, the registry lets it finish instead of cutting the
   * call off with an aborted error.
   */
  readonly ownAbort?: boolean | undefined
  /**
   * The permission requests of a call, computed without acting. The call asks them all before
   * `execute` runs (any deny refuses with no prompt, all asks are one prompt), and
   * `agent-tools explain` shows exactly this list; `execute` asking for the same requests again
   * passes without a prompt. A tool without it asks at run time through `ctx.ask`.
   */
  readonly requests?: ((args: z.output<P>, ctx: Context) => Effect.Effect<ReadonlyArray<AskInput>, ExecuteError>) | undefined
  /**
   * The requests (as `requests`, which a tool with a plan leaves out) and the state the run takes
   * over: for a tool that must do work to know what it asks, and would do it again when it runs.
   */
  readonly plan?: ((args: z.output<P>, ctx: Context) => Effect.Effect<Plan<S>, ExecuteError>) | undefined
  /**
   * Why the tool cannot be offered right now (no one to answer a question, no sub-agent runner,
   * a flag off), or undefined when it can. Checked each time the tools are listed or called, so a
   * tool can come and go with what the runtime's client supports.
   */
  readonly unavailable?: Effect.Effect<string | undefined> | undefined
  /** Callable, but never offered to a model: the target that adapters route unusable calls to. */
  readonly hidden?: boolean | undefined
  /** The sub-agent types the tool runs (the task tool): truncation hints name only these. */
  readonly subagents?: ReadonlyArray<string> | undefined
}

export interface Definition<Id extends string = string, P extends z.ZodType = z.ZodType, R = never> {
  readonly _tag: "ToolDefinition"
  readonly id: Id
  /** Runs once when the tool is built; resolves the services the tool needs. */
  readonly init: Effect.Effect<Def<P, Metadata, any>, never, R>
}

export interface Built {
  readonly id: string
  readonly description: string
  readonly parameters: z.ZodType
  readonly jsonSchema: Record<string, unknown>
  readonly annotations: Annotations
  readonly truncation: false | Truncate.Options | undefined
  /** The tool answers `ctx.abort` with a result of its own (see `Def.ownAbort`). */
  readonly ownAbort: boolean
  /** Validates raw model arguments. */
  readonly validate: (args: unknown) => Effect.Effect<unknown, InvalidArgumentsError>
  /**
   * Runs the tool on validated arguments, without truncation; `planned` is the state of the
   * call's `plan`, when it was planned.
   */
  readonly run: (args: unknown, ctx: Context, planned?: unknown) => Effect.Effect<Result, ExecuteError>
  /**
   * The call's plan (on validated arguments): its permission requests and the state its run
   * takes over. No requests for a tool that declares none (see `declaresRequests`).
   */
  readonly plan: (args: unknown, ctx: Context) => Effect.Effect<Plan, ExecuteError>
  /** The tool declares its requests (`requests` or `plan`); else it may still ask while it runs. */
  readonly declaresRequests: boolean
  /** Why the tool cannot be offered now; undefined when it can (see `Def.unavailable`). */
  readonly unavailable: Effect.Effect<string | undefined>
  /** Callable but never listed for a model. */
  readonly hidden: boolean
  /** The sub-agent types the tool runs (see `Def.subagents`). */
  readonly subagents?: ReadonlyArray<string> | undefined
}

/**
 * Declares a tool. `init` is an Effect that yields the services the tool needs and returns its
 * definition (or the definition itself, for tools that need no service).
 */
export const define = <const Id extends string, P extends z.ZodType, M extends Metadata = Metadata, R = never, S = undefined>(
  id: Id,
  init: Effect.Effect<Def<P, M, S>, never, R> | Def<P, M, S>
): Definition<Id, P, R> => ({
  _tag: "ToolDefinition",
  id,
  init: (Effect.isEffect(init) ? init : Effect.succeed(init)) as Effect.Effect<Def<P, Metadata, any>, never, R>
})

export const isDefinition = (u: unknown): u is Definition<string, z.ZodType, unknown> =>
  typeof u === "object" && u !== null && (u as { _tag?: unknown })._tag === "ToolDefinition" &&
  typeof (u as { id?: unknown }).id === "string" && Effect.isEffect((u as { init?: unknown }).init)

/** `- filePath: Invalid input: expected string, received undefined`, one line per issue. */
export const formatIssues = (error: z.ZodError): string =>
  error.issues.map((issue) => `- ${issue.path.length === 0 ? "(arguments)" : issue.path.join(".")}: ${issue.message}`)
    .join("\n")

/** The JSON Schema the model sees for a zod parameter schema. */
export const jsonSchemaOf = (parameters: z.ZodType): Record<string, unknown> => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(parameters, { io: "input" }) as Record<string, unknown>
  return schema
}

/**
 * Bounds a result with Truncate unless the tool opted out. Precedence of settings, lowest first:
 * the built-in defaults < the tool's own (`Def.truncation`) < the global config < the tool's
 * config < per call (`ctx.truncation`).
 *
 * A tool that cut its own output (`metadata.truncated` set) is trusted only while the output
 * fits the limits: past them the output is truncated again and spilled. A result that names a
 * spill (`metadata.outputPath`) is a Truncate preview already, whose notice is allowed on top of
 * the limits.
 */
export const finalize = Effect.fnUntraced(function*(
  tool: Pick<Built, "id" | "truncation">,
  result: Result,
  ctx: Pick<Context, "truncation">,
  hint?: Truncate.HintContext | undefined
) {
  if (tool.truncation === false) return result
  const truncate = yield* Truncate.Truncate
  const options: Truncate.Options = {
    ...ctx.truncation,
    toolDefaults: tool.truncation,
    tool: tool.id,
    hint: ctx.truncation?.hint ?? hint
  }
  const selfTruncated = result.metadata.truncated !== undefined
  if (selfTruncated && (result.metadata.outputPath !== undefined || Truncate.fits(result.output, truncate.limits(options)))) {
    return result
  }
  const bounded = yield* truncate.output(result.output, options)
  if (selfTruncated && !bounded.truncated) return result
  const metadata: Metadata = { ...result.metadata, truncated: bounded.truncated }
  if (bounded.outputPath !== undefined) metadata.outputPath = bounded.outputPath
  if (bounded.spillError !== undefined) metadata.spillError = bounded.spillError
  return { ...result, output: bounded.content, metadata }
})

/** Builds a tool: runs its `init` (in the caller's layer) and wraps its pieces. */
export const build = Effect.fnUntraced(function*<Id extends string, P extends z.ZodType, R>(
  definition: Definition<Id, P, R>
) {
  const def = yield* definition.init
  const id: string = definition.id
  const validate = (args: unknown): Effect.Effect<unknown, InvalidArgumentsError> => {
    const parsed = def.parameters.safeParse(args)
    if (parsed.success) return Effect.succeed(parsed.data)
    return Effect.fail(
      new InvalidArgumentsError({
        tool: id,
        issues: formatIssues(parsed.error),
        custom: def.formatValidationError?.(parsed.error)
      })
    )
  }
  const run = (args: unknown, ctx: Context, planned?: unknown) => def.execute(args as z.output<P>, ctx, planned)
  const ownPlan = def.plan
  const ownRequests = def.requests
  const plan = ownPlan !== undefined
    ? (args: unknown, ctx: Context): Effect.Effect<Plan, ExecuteError> => ownPlan(args as z.output<P>, ctx)
    : ownRequests !== undefined
    ? (args: unknown, ctx: Context): Effect.Effect<Plan, ExecuteError> =>
      Effect.map(ownRequests(args as z.output<P>, ctx), (requests) => ({ requests }))
    : () => Effect.succeed<Plan>({ requests: [] })
  const declaresRequests = ownPlan !== undefined || ownRequests !== undefined
  // Converted when first read (listing the tools): a process that only calls a tool never pays it.
  let jsonSchema: Record<string, unknown> | undefined
  const built: Built = {
    id,
    description: def.description,
    parameters: def.parameters,
    get jsonSchema() {
      return jsonSchema ??= jsonSchemaOf(def.parameters)
    },
    annotations: def.annotations ?? {},
    truncation: def.truncation,
    ownAbort: def.ownAbort === true,
    unavailable: def.unavailable ?? Effect.undefined,
    hidden: def.hidden ?? false,
    subagents: def.subagents,
    validate,
    run,
    plan,
    declaresRequests
  }
  return built
})

let callCounter = 0
const newCallID = () => `call_${(callCounter++).toString(36)}_${Math.random().toString(36).slice(2, 10)}`

/**
 * A call context with sensible defaults: `ask` goes to the Permission service for this session
 * (with the agent's extra rules, if any), `metadata` is a no-op unless given.
 */
export const makeContext = Effect.fnUntraced(function*(options: {
  readonly sessionID: string
  readonly messageID?: string | undefined
  readonly callID?: string | undefined
  readonly agent?: string | undefined
  readonly abort?: AbortSignal | undefined
  readonly extra?: Record<string, unknown> | undefined
  readonly metadata?: Context["metadata"] | undefined
  readonly truncation?: Truncate.Options | undefined
  /** The agent's own permission rules, evaluated after the configured ones. */
  readonly ruleset?: Permission.Ruleset | undefined
  /** The tool name reported with permission requests. */
  readonly tool?: string | undefined
  readonly depth?: number | undefined
  readonly tools?: ReadonlyArray<string> | undefined
}) {
  const permission = yield* Permission.Permission
  const callID = options.callID ?? newCallID()
  const tool = options.tool === undefined ? undefined : { name: options.tool, callID }
  const rulesetOf = (input: AskInput) => [...(options.ruleset ?? []), ...(input.ruleset ?? [])]
  const context: Context = {
    sessionID: options.sessionID,
    messageID: options.messageID ?? "message",
    callID,
    agent: options.agent ?? "build",
    abort: options.abort ?? new AbortController().signal,
    extra: options.extra ?? {},
    metadata: options.metadata ?? (() => Effect.void),
    ask: (input) => permission.ask({ ...input, sessionID: options.sessionID, tool, ruleset: rulesetOf(input) }),
    askAll: (inputs) =>
      permission.askAll({
        sessionID: options.sessionID,
        tool,
        requests: inputs.map((input) => ({ ...input, ruleset: rulesetOf(input) }))
      }),
    truncation: options.truncation,
    ...(options.depth === undefined ? {} : { depth: options.depth }),
    ...(options.tools === undefined ? {} : { tools: options.tools })
  }
  return context
})
