/**
 * The event bus of the tool layer: tool calls, permission asks and replies, truncation and
 * spill outcomes, and files written by tools are published here for UIs and telemetry.
 *
 * A sliding PubSub: a slow subscriber loses the oldest events instead of stalling a tool call.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import type * as Jobs from "./Jobs.ts"

export type Event =
  | { readonly _tag: "ToolStarted"; readonly tool: string; readonly sessionID: string; readonly callID: string }
  | {
    readonly _tag: "ToolFinished"
    readonly tool: string
    readonly sessionID: string
    readonly callID: string
    readonly outcome: "success" | "failure" | "interrupted"
    readonly durationMs: number
  }
  | {
    readonly _tag: "PermissionAsked"
    readonly id: string
    readonly sessionID: string
    /** The permissions of the prompt, joined with ", " when it asks for several. */
    readonly permission: string
    /** Every pattern of the prompt. */
    readonly patterns: ReadonlyArray<string>
    /** Each request of the prompt (one per permission asked in the same call). */
    readonly requests: ReadonlyArray<{ readonly permission: string; readonly patterns: ReadonlyArray<string> }>
  }
  | {
    readonly _tag: "PermissionReplied"
    readonly id: string
    readonly sessionID: string
    readonly reply: "once" | "always" | "reject"
  }
  | {
    readonly _tag: "OutputTruncated"
    readonly tool: string | undefined
    readonly outputPath: string | undefined
    readonly totalBytes: number
    /** Undefined when the output's lines were not counted (see `Truncate.Result`). */
    readonly totalLines: number | undefined
    readonly removedBytes: number
    readonly removedLines: number | undefined
  }
  | { readonly _tag: "TruncationSkipped"; readonly tool: string | undefined; readonly reason: string }
  | { readonly _tag: "SpillFailed"; readonly tool: string | undefined; readonly message: string }
  | {
    /** A tool wrote a file (created, changed or moved to `path`); deletions are not reported. */
    readonly _tag: "FileEdited"
    /** The real (absolute) path of the written file. */
    readonly path: string
    readonly tool: string
    readonly sessionID: string
  }
  | {
    /** A background job started (bash `run_in_background`). */
    readonly _tag: "JobStarted"
    readonly jobID: string
    readonly sessionID: string
    readonly command: string
    readonly tty: boolean
  }
  | {
    /** A background job ended: exited, or killed (and why). */
    readonly _tag: "JobExited"
    readonly jobID: string
    readonly sessionID: string
    readonly status: Jobs.Status
  }

export class Events extends Context.Service<Events, {
  readonly publish: (event: Event) => Effect.Effect<void>
  readonly subscribe: Stream.Stream<Event>
}>()("@agent-tools/core/Events") {}

/** The default bus: keeps at most `capacity` undelivered events per subscriber. */
export const layer = (options: { readonly capacity?: number } = {}): Layer.Layer<Events> =>
  Layer.effect(
    Events,
    Effect.gen(function*() {
      const pubsub = yield* PubSub.sliding<Event>(options.capacity ?? 1024)
      yield* Effect.addFinalizer(() => PubSub.shutdown(pubsub))
      // Publishing is on every tool call's hot path: skip the PubSub entirely while nobody
      // listens (the common case for a library runtime), and open no span of its own.
      let listeners = 0
      const publish = (event: Event) => listeners === 0 ? Effect.void : Effect.asVoid(PubSub.publish(pubsub, event))
      const subscribe = Stream.unwrap(
        Effect.acquireRelease(Effect.sync(() => listeners++), () => Effect.sync(() => listeners--)).pipe(
          Effect.as(Stream.fromPubSub(pubsub))
        )
      )
      return Events.of({ publish, subscribe })
    })
  )

/** Drops every event: for runtimes that do not listen. */
export const layerNoop: Layer.Layer<Events> = Layer.succeed(Events, Events.of({
  publish: () => Effect.void,
  subscribe: Stream.empty
}))
