/**
 * Answers the permission asks of MCP calls. A scoped fiber watches `Permission.pending` for the
 * server's session; each new request is sent to the client as an elicitation when the client
 * supports it, else decided by policy (`yes` allows once, otherwise reject with a message that
 * says how to allow it). An elicitation whose request goes away (the call was cancelled, or a
 * sibling rejection took it) is cancelled on the client too.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Permission } from "@agent-tools/core"
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import * as Elicitation from "./Elicitation.ts"

export class ElicitationError extends Schema.TaggedError<ElicitationError>()("ElicitationError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export interface Elicitor {
  /** Whether the connected client declared form elicitation (known once it has initialized). */
  readonly supported: Effect.Effect<boolean>
  readonly elicit: (request: Permission.Request) => Effect.Effect<ElicitResult, ElicitationError>
}

export interface Options {
  readonly sessionID: string
  readonly elicitor: Elicitor
  /** Without elicitation: allow once (`--yes`) instead of rejecting. */
  readonly yes: boolean
  /** How often pending asks are checked (default 20 ms). */
  readonly interval?: Duration.Input | undefined
}

export const unattendedMessage = (request: Permission.Request) =>
  `The MCP client cannot show permission prompts (no elicitation support), so "${request.permission}" for ${
    request.patterns.join(", ")
  } was rejected. Allow it in agent-tools.json ("permission") or start the server with --yes.`

/** Forks the watcher into the current scope. */
export const run = Effect.fn("McpResponder.run")(function*(options: Options): Effect.fn.Return<
  void,
  never,
  Permission.Permission | Scope.Scope
> {
  const permission = yield* Permission.Permission
  const interval = Duration.fromInputUnsafe(options.interval ?? "20 millis")
  const inFlight = new Set<string>()

  const stillPending = (id: string) => Effect.map(permission.pending, (all) => all.some((r) => r.id === id))
  const whenGone = (id: string) =>
    Effect.gen(function*() {
      while (yield* stillPending(id)) yield* Effect.sleep(interval)
    })

  const decide = Effect.fn("McpResponder.decide")(function*(request: Permission.Request) {
    if (!(yield* options.elicitor.supported)) {
      return options.yes ? { reply: "once" as const } : { reply: "reject" as const, message: unattendedMessage(request) }
    }
    return yield* options.elicitor.elicit(request).pipe(
      Effect.map(Elicitation.answerOf),
      Effect.catch((e) =>
        Effect.logWarning("permission elicitation failed", e.message).pipe(
          Effect.as({ reply: "reject" as const, message: `The permission prompt failed: ${e.message}` })
        )
      )
    )
  })

  const answer = (request: Permission.Request) =>
    decide(request).pipe(
      Effect.flatMap((a) => permission.reply({ requestID: request.id, reply: a.reply, message: a.message })),
      Effect.raceFirst(whenGone(request.id)),
      Effect.ensuring(Effect.sync(() => inFlight.delete(request.id)))
    )

  // A FiberSet, not forkScoped: finished answers leave the set instead of piling up in the scope.
  const answering = yield* FiberSet.make<boolean | void>()
  const scan = Effect.gen(function*() {
    for (const request of yield* permission.pending) {
      if (request.sessionID !== options.sessionID || inFlight.has(request.id)) continue
      inFlight.add(request.id)
      yield* FiberSet.run(answering, answer(request))
    }
  })

  yield* scan.pipe(Effect.andThen(Effect.sleep(interval)), Effect.forever, Effect.forkScoped)
})
