/**
 * Plugin hooks around every tool call. A `before` hook may change the arguments (in place or by
 * returning `{ args }`), and the changed arguments are what runs (after re-validation). An `after`
 * hook may change the result; truncation always runs after the hooks, so every tool kind sees the
 * same order: validate → before → validate → run → after → truncate.
 */
import * as Effect from "effect/Effect"
import * as Tool from "./Tool.ts"

export type HookReturn<A> = A | Promise<A> | Effect.Effect<A, Tool.ToolError>

export interface BeforeInput {
  readonly tool: string
  readonly ctx: Tool.Context
  /** The validated arguments; a hook may mutate this object. */
  args: any
}

export interface AfterInput {
  readonly tool: string
  readonly ctx: Tool.Context
  readonly args: unknown
  readonly result: Tool.Result
}

export interface Hooks {
  /** Shown in errors when the hook fails. */
  readonly name?: string | undefined
  readonly before?: ((input: BeforeInput) => HookReturn<{ readonly args: unknown } | void | undefined>) | undefined
  readonly after?: ((input: AfterInput) => HookReturn<Tool.Result | void | undefined>) | undefined
}

const settle = <A>(tool: string, label: string, thunk: () => HookReturn<A>): Effect.Effect<A, Tool.ToolError> =>
  Effect.suspend(() => {
    const value = thunk()
    if (Effect.isEffect(value)) return value
    return value instanceof Promise ? Effect.promise(() => value) : Effect.succeed(value)
  }).pipe(
    Effect.catchDefect((cause) =>
      Effect.fail(
        new Tool.ToolError({
          tool,
          reason: "other",
          message: `The ${label} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause
        })
      )
    )
  )

const labelOf = (hooks: Hooks, phase: "before" | "after") =>
  hooks.name === undefined ? `${phase} hook` : `${phase} hook of ${hooks.name}`

/** Runs the before hooks in order, each seeing the previous one's arguments. */
export const runBefore = (
  hooks: ReadonlyArray<Hooks>,
  tool: string,
  ctx: Tool.Context,
  args: unknown
): Effect.Effect<unknown, Tool.ToolError> =>
  Effect.reduce(hooks, () => args, (current, hook) => {
    const before = hook.before
    if (before === undefined) return Effect.succeed(current)
    // A copy for the hook to mutate, so a failed hook cannot half-change what the next one sees.
    const input: BeforeInput = { tool, ctx, args: typeof current === "object" && current !== null ? { ...current } : current }
    return settle(tool, labelOf(hook, "before"), () => before(input)).pipe(
      Effect.map((returned) =>
        typeof returned === "object" && returned !== null && "args" in returned ? returned.args : input.args
      )
    )
  })

/** Runs the after hooks in order, each seeing the previous one's result. */
export const runAfter = (
  hooks: ReadonlyArray<Hooks>,
  tool: string,
  ctx: Tool.Context,
  args: unknown,
  result: Tool.Result
): Effect.Effect<Tool.Result, Tool.ToolError> =>
  Effect.reduce(hooks, () => result, (current, hook) => {
    const after = hook.after
    if (after === undefined) return Effect.succeed(current)
    return settle(tool, labelOf(hook, "after"), () => after({ tool, ctx, args, result: current })).pipe(
      Effect.flatMap((returned) => {
        if (returned === undefined || returned === null) return Effect.succeed(current)
        if (typeof returned === "object" && typeof (returned as Tool.Result).output === "string") {
          const r = returned as Tool.Result
          return Effect.succeed({ ...r, title: r.title ?? current.title, metadata: r.metadata ?? current.metadata })
        }
        return Effect.fail(
          new Tool.ToolError({ tool, reason: "other", message: `The ${labelOf(hook, "after")} returned something that is not a tool result` })
        )
      })
    )
  })
