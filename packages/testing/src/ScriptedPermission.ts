/**
 * Scripted answers to permission asks, for tests.
 *
 * - `run(script)`: with the REAL Permission layer, forks a fiber (scoped) that takes each request
 *   from `Permission.asks` and replies to it by the script; returns what was asked.
 * - `layer(script)`: a FAKE Permission that answers every ask at once by the script and records it
 *   (no rules, no pending state); `asked` reads the record.
 * - `layerAllowAll` / `layerRejectAll`: fakes for unit tests that do not care about permissions.
 *
 * A script is a function of the request, or a list of answers used in order. When the list runs out
 * the request is rejected with a message saying so, so an unexpected extra ask fails the test visibly.
 *
 * @example
 * ```ts
 * it.effect("edit asks once", () => Effect.gen(function*() {
 *   const responder = yield* ScriptedPermission.run(["once"])
 *   yield* registry.execute("edit", args, ctx)
 *   const [ask] = yield* responder.asked        // { request: { permission: "edit", … }, reply: "once", … }
 * }).pipe(Effect.provide(TestLayer)))
 * ```
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Permission } from "@agent-tools/core"

export type Answer = Permission.Reply | { readonly reply: Permission.Reply; readonly message?: string | undefined }

export type Script = ((request: Permission.Request) => Answer) | ReadonlyArray<Answer>

export interface Asked {
  readonly request: Permission.Request
  readonly reply: Permission.Reply
  readonly message: string | undefined
  /** false when the request was gone before the reply arrived (e.g. rejected with a sibling). */
  readonly delivered: boolean
}

export interface Responder {
  /** What was asked and answered so far, oldest first. */
  readonly asked: Effect.Effect<ReadonlyArray<Asked>>
}

const describe = (r: Permission.Request) => `${r.permission} ${JSON.stringify(r.patterns)}`

/** Turns a script into a stateful answerer. */
export const answerer = (script: Script) => {
  let index = 0
  return (request: Permission.Request): { readonly reply: Permission.Reply; readonly message: string | undefined } => {
    const answer: Answer | undefined = typeof script === "function" ? script(request) : script[index++]
    if (answer === undefined) {
      return { reply: "reject", message: `ScriptedPermission: no scripted answer left for ${describe(request)}` }
    }
    return typeof answer === "string" ? { reply: answer, message: undefined } : { reply: answer.reply, message: answer.message }
  }
}

/**
 * Forks (in the current scope) a responder that answers each request of the Permission service by
 * `script`, as it is asked (requests already pending too). Stops when the scope closes.
 */
export const run = Effect.fnUntraced(function*(script: Script) {
  const permission = yield* Permission.Permission
  const next = answerer(script)
  const log: Array<Asked> = []
  const answer = Effect.fnUntraced(function*(request: Permission.Request) {
    const { reply, message } = next(request)
    // Recorded before replying: the reply wakes the asking fiber, which may read `asked` at once.
    const at = log.push({ request, reply, message, delivered: true }) - 1
    const delivered = yield* permission.reply({ requestID: request.id, reply, message })
    if (!delivered) log[at] = { request, reply, message, delivered }
  })
  yield* Effect.forkScoped(Stream.runForEach(permission.asks, answer))
  return { asked: Effect.sync(() => [...log]) } satisfies Responder
}) as (script: Script) => Effect.Effect<Responder, never, Permission.Permission | Scope.Scope>

/** The record kept by `layer`. */
export class Recorder extends Context.Service<Recorder, Responder>()("@agent-tools/testing/ScriptedPermission") {}

/** What the fake Permission of `layer` was asked so far. */
export const asked: Effect.Effect<ReadonlyArray<Asked>, never, Recorder> = Recorder.use((r) => r.asked)

const allowRule: Permission.Rule = { permission: "*", pattern: "*", action: "allow" }

const fake = (
  onAsk: (request: Permission.Request) => Effect.Effect<void, Permission.PermissionRejectedError>,
  action: Permission.Action
) => {
  const decision = (permission: string, pattern: string): Permission.Decision =>
    action === "allow"
      ? { permission, pattern, action, rule: allowRule, source: "rules" }
      : { permission, pattern, action, rule: undefined }
  let counter = 0
  return Permission.Permission.of({
    ask: (input) => Effect.suspend(() => onAsk({ ...input, requests: [input], id: `scripted_${++counter}` })),
    askAll: (input) =>
      Effect.suspend(() =>
        input.requests.length === 0
          ? Effect.void
          : onAsk({ ...Permission.summarise(input.sessionID, input.tool, input.requests), id: `scripted_${++counter}` })
      ),
    reply: () => Effect.succeed(false),
    pending: Effect.succeed([]),
    asks: Stream.empty,
    settled: () => Effect.void,
    evaluate: (permission, pattern) => Effect.succeed(decision(permission, pattern)),
    explain: (input) => Effect.succeed({ action, decisions: input.patterns.map((p) => decision(input.permission, p)) }),
    rules: action === "allow" ? [allowRule] : []
  })
}

const rejected = (request: Permission.Request, message: string | undefined) =>
  new Permission.PermissionRejectedError({
    requestID: request.id,
    permission: request.permission,
    patterns: [...request.patterns],
    ...(message === undefined ? {} : { feedback: message })
  })

/** A fake Permission that answers each ask at once by `script` and records it. */
export const layer = (script: Script): Layer.Layer<Permission.Permission | Recorder> =>
  Layer.effectContext(Effect.sync(() => {
    const next = answerer(script)
    const log: Array<Asked> = []
    const permission = fake((request) =>
      Effect.suspend(() => {
        const { reply, message } = next(request)
        log.push({ request, reply, message, delivered: true })
        return reply === "reject" ? Effect.fail(rejected(request, message)) : Effect.void
      }), "ask")
    return Context.make(Permission.Permission, permission).pipe(
      Context.add(Recorder, Recorder.of({ asked: Effect.sync(() => [...log]) }))
    )
  }))

/** Every ask is allowed at once; `evaluate`/`explain` say allow. */
export const layerAllowAll: Layer.Layer<Permission.Permission> = Layer.succeed(
  Permission.Permission,
  fake(() => Effect.void, "allow")
)

/** Every ask is rejected at once (as if the user said no); `evaluate`/`explain` say ask. */
export const layerRejectAll: Layer.Layer<Permission.Permission> = Layer.succeed(
  Permission.Permission,
  fake((request) => Effect.fail(rejected(request, undefined)), "ask")
)
