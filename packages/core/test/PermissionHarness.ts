/** What the Permission tests share: a ruleset, the layer, and helpers to ask in the background. */
import { Effect, Layer, Stream } from "effect"
import * as Events from "../src/Events.ts"
import * as Permission from "../src/Permission.ts"
import type { AskInput, Ruleset } from "../src/Permission.ts"

export const rules: Ruleset = [
  { permission: "*", pattern: "*", action: "ask" },
  { permission: "read", pattern: "*", action: "allow" },
  { permission: "bash", pattern: "git status *", action: "allow" },
  { permission: "bash", pattern: "rm *", action: "deny" }
]

export const provide = (options: Permission.LayerOptions = { rules }) =>
  Effect.provide(Permission.layer(options).pipe(Layer.provideMerge(Events.layer())))

export const bash = (sessionID: string, ...patterns: Array<string>): AskInput => ({ sessionID, permission: "bash", patterns })

/** Waits on the published asks until `n` were asked (asks run in forked fibers); then what is pending. */
export const pendingAtLeast = (n: number) =>
  Effect.gen(function*() {
    const permission = yield* Permission.Permission
    yield* Stream.runDrain(Stream.take(permission.asks, n))
    return yield* permission.pending
  })

export const askInBackground = (input: AskInput) =>
  Effect.gen(function*() {
    const permission = yield* Permission.Permission
    return yield* permission.ask(input).pipe(Effect.forkChild)
  })
