/**
 * Answers the permission asks of MCP calls. A scoped fiber takes the requests of the server's
 * session from `Permission.asks` as they are asked; each one is sent to the client as an elicitation when the client
 * supports it, else decided by policy (`yes` allows once, otherwise reject with a message that
 * says how to allow it). An elicitation whose request goes away (the call was cancelled, or a
 * sibling rejection took it) is cancelled on the client too.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
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

  // The prompt is dropped when the request goes away meanwhile; the reply itself is not cut off.
  const answer = (request: Permission.Request) =>
    decide(request).pipe(
      Effect.raceFirst(Effect.as(permission.settled(request.id), undefined)),
      Effect.flatMap((a) =>
        a === undefined ? Effect.void : permission.reply({ requestID: request.id, reply: a.reply, message: a.message })
      )
    )

  // A FiberSet, not forkScoped: finished answers leave the set instead of piling up in the scope.
  const answering = yield* FiberSet.make<boolean | void>()
  yield* permission.asks.pipe(
    Stream.filter((request) => request.sessionID === options.sessionID),
    Stream.runForEach((request) => FiberSet.run(answering, answer(request))),
    Effect.forkScoped
  )
})
