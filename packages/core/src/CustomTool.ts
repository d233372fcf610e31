/**
 * Custom tools written as plain objects (the opencode plugin shape), for authors who do not use
 * Effect: `{ description, args | parameters, execute(args, ctx) => string | Promise<string | {output,…}> }`.
 * They are adapted into tool definitions that behave like built-ins (validation, permissions, truncation).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as z from "zod"
import * as Permission from "./Permission.ts"
import * as Tool from "./Tool.ts"

export interface CustomContext {
  readonly sessionID: string
  readonly messageID: string
  readonly callID: string
  readonly agent: string
  readonly abort: AbortSignal
  /** The workspace root. */
  readonly directory: string
  readonly extra: Record<string, unknown>
  /** Resolves when allowed; rejects with the permission error when denied or rejected. */
  readonly ask: (input: Tool.AskInput) => Promise<void>
  readonly metadata: (update: { readonly title?: string; readonly metadata?: Tool.Metadata }) => void
}

export interface CustomTool {
  readonly description: string
  /** A zod object shape (`{ name: z.string() }`) … */
  readonly args?: z.ZodRawShape | undefined
  /** … or a whole zod schema. */
  readonly parameters?: z.ZodType | undefined
  readonly execute: (args: any, ctx: CustomContext) => unknown
  readonly annotations?: Tool.Annotations | undefined
  /**
   * The permission requests of a call (`[{ permission, patterns, always?, metadata? }]`), computed
   * from the arguments without acting: asked as one prompt before `execute` runs (a deny refuses
   * with no prompt) and shown by `agent-tools explain`. Without it the tool asks while it runs.
   */
  readonly requests?: ((args: any) => ReadonlyArray<Tool.AskInput> | Promise<ReadonlyArray<Tool.AskInput>>) | undefined
}

export const isCustomTool = (u: unknown): u is CustomTool =>
  typeof u === "object" && u !== null && typeof (u as CustomTool).description === "string" &&
  typeof (u as CustomTool).execute === "function"

const isZodType = (u: unknown): u is z.ZodType => u instanceof z.ZodType

/** A zod 3 schema: zod 3 builds `_def` and `safeParse`, zod 4 adds `_zod`, which 3 lacks. */
const isZod3 = (u: unknown): boolean =>
  typeof u === "object" && u !== null && "_def" in u && typeof (u as { safeParse?: unknown }).safeParse === "function" &&
  !("_zod" in u)

const ZOD_4 = "custom tools need zod 4: install zod@4 where the tool lives (with zod 3.25, import { z } from \"zod/v4\")"

/** Why a parameter schema is unusable (`field` names it), or undefined. */
const schemaProblem = (field: string, u: unknown): string | undefined =>
  isZodType(u) ? undefined : isZod3(u) ? `\`${field}\` is a zod 3 schema; ${ZOD_4}` : `\`${field}\` must be a zod 4 schema`

/** Why an export cannot be a custom tool, or undefined when it can. */
export const problemOf = (u: unknown): string | undefined => {
  if (Tool.isDefinition(u)) return undefined
  if (typeof u !== "object" || u === null) return `expected a tool object, got ${u === null ? "null" : typeof u}`
  const candidate = u as Partial<CustomTool>
  if (typeof candidate.description !== "string") return "missing string field `description`"
  if (typeof candidate.execute !== "function") return "missing function field `execute`"
  if (candidate.parameters !== undefined) {
    const problem = schemaProblem("parameters", candidate.parameters)
    if (problem !== undefined) return problem
  }
  if (candidate.args !== undefined) {
    if (typeof candidate.args !== "object" || candidate.args === null) return "`args` must be an object of zod schemas"
    for (const [key, value] of Object.entries(candidate.args)) {
      const problem = schemaProblem(`args.${key}`, value)
      if (problem !== undefined) return problem
    }
  }
  if (candidate.requests !== undefined && typeof candidate.requests !== "function") return "`requests` must be a function"
  return undefined
}

const toResult = (value: unknown): Tool.Result | undefined => {
  if (typeof value === "string") return { title: "", output: value, metadata: {} }
  if (typeof value === "object" && value !== null && typeof (value as Tool.Result).output === "string") {
    const r = value as Partial<Tool.Result>
    return {
      title: typeof r.title === "string" ? r.title : "",
      output: r.output as string,
      metadata: typeof r.metadata === "object" && r.metadata !== null ? r.metadata : {},
      attachments: r.attachments
    }
  }
  return undefined
}

const isPermissionError = (u: unknown): u is Permission.PermissionRejectedError | Permission.PermissionDeniedError =>
  u instanceof Permission.PermissionRejectedError || u instanceof Permission.PermissionDeniedError

const isRequest = (u: unknown): u is Tool.AskInput =>
  typeof u === "object" && u !== null && typeof (u as Tool.AskInput).permission === "string" &&
  Array.isArray((u as Tool.AskInput).patterns) && (u as Tool.AskInput).patterns.every((p) => typeof p === "string")

/** A custom tool's `requests`, checked: a bad shape is the tool's error, naming what is wrong. */
const requestsOf = (id: string, requests: NonNullable<CustomTool["requests"]>) => (args: unknown) =>
  Effect.tryPromise({
    try: async () => await requests(args),
    catch: (cause) => new Tool.ToolError({ tool: id, reason: "other", message: cause instanceof Error ? cause.message : String(cause), cause })
  }).pipe(
    Effect.flatMap((list) =>
      Array.isArray(list) && list.every(isRequest)
        ? Effect.succeed(list as ReadonlyArray<Tool.AskInput>)
        : Effect.fail(
          new Tool.ToolError({
            tool: id,
            reason: "invalid",
            message: `the ${id} tool's requests must return an array of { permission: string, patterns: string[] }`
          })
        )
    )
  )

/** Adapts a plain custom tool into a definition with the given id. */
export const toDefinition = (id: string, custom: CustomTool, directory: string): Tool.Definition =>
  Tool.define(id, {
    description: custom.description,
    parameters: custom.parameters ?? z.object(custom.args ?? {}),
    annotations: custom.annotations,
    requests: custom.requests === undefined ? undefined : requestsOf(id, custom.requests),
    execute: (args, ctx) =>
      Effect.tryPromise({
        try: async () => {
          const customContext: CustomContext = {
            sessionID: ctx.sessionID,
            messageID: ctx.messageID,
            callID: ctx.callID,
            agent: ctx.agent,
            abort: ctx.abort,
            directory,
            extra: ctx.extra,
            ask: async (input) => {
              const exit = await Effect.runPromiseExit(ctx.ask(input))
              if (Exit.isSuccess(exit)) return
              const error = Exit.findErrorOption(exit)
              throw Option.isSome(error) ? error.value : new Error("the permission request was interrupted")
            },
            metadata: (update) => void Effect.runFork(ctx.metadata(update))
          }
          return await custom.execute(args, customContext)
        },
        catch: (cause): Tool.ExecuteError =>
          isPermissionError(cause)
            ? cause
            : new Tool.ToolError({ tool: id, reason: "other", message: cause instanceof Error ? cause.message : String(cause), cause })
      }).pipe(
        Effect.flatMap((value) => {
          const result = toResult(value)
          return result === undefined
            ? Effect.fail(
              new Tool.ToolError({ tool: id, reason: "other", message: `the ${id} tool returned neither a string nor {output: string}` })
            )
            : Effect.succeed(result)
        })
      )
  })
