/**
 * The permission step of a tool call: the call's requests (from its plan, `ToolRegistry.plan`) go out
 * together through the context's `askAll` (any deny refuses with no prompt, all asks are one
 * prompt), and the tool then runs with a context that remembers what was granted, so the tool's
 * own asks for the same permissions and patterns pass without asking again. An ask for anything
 * else (a custom tool asking at run time) still goes to the user.
 */
import * as Effect from "effect/Effect"
import type * as Permission from "./Permission.ts"
import type * as Tool from "./Tool.ts"

const key = (permission: string, pattern: string) => `${permission}\u0000${pattern}`

/** `ctx` with `granted` (permission/pattern pairs) answered without asking. */
export const withGrant = (ctx: Tool.Context, granted: ReadonlySet<string>): Tool.Context => {
  const open = (request: Tool.AskInput): Tool.AskInput | undefined => {
    const patterns = request.patterns.filter((p) => !granted.has(key(request.permission, p)))
    return patterns.length === 0 ? undefined : patterns.length === request.patterns.length ? request : { ...request, patterns }
  }
  return {
    ...ctx,
    ask: (input) => {
      const rest = open(input)
      return rest === undefined ? Effect.void : ctx.ask(rest)
    },
    askAll: (inputs) => {
      const rest = inputs.flatMap((input) => {
        const r = open(input)
        return r === undefined ? [] : [r]
      })
      return rest.length === 0 ? Effect.void : ctx.askAll(rest)
    }
  }
}

/** Asks `requests` as one prompt; the context to run the tool with once they are granted. */
export const authorize = (
  ctx: Tool.Context,
  requests: ReadonlyArray<Tool.AskInput>
): Effect.Effect<Tool.Context, Permission.PermissionRejectedError | Permission.PermissionDeniedError> =>
  requests.length === 0
    ? Effect.succeed(ctx)
    : ctx.askAll(requests).pipe(
      Effect.as(withGrant(ctx, new Set(requests.flatMap((r) => r.patterns.map((p) => key(r.permission, p))))))
    )
