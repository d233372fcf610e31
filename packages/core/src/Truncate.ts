/**
 * Bounds what a tool returns to the model: line and byte limits, head / tail / head+tail previews,
 * the full output spilled to SpillStorage with a notice saying how to page it.
 *
 * CONTRACT (implementation owned by the Truncate/Spill work): keep these names and shapes.
 */
import { Context } from "effect"
import type { Effect, Stream } from "effect"

export type Direction = "head" | "tail" | "head+tail"

export interface Limits {
  readonly maxLines: number
  readonly maxBytes: number
  readonly direction: Direction
}

/** Which tools the calling agent can use to page a spill: drives the notice's hint. */
export interface HintContext {
  readonly task: boolean
  readonly read: boolean
  readonly grep: boolean
}

export interface Options {
  readonly maxLines?: number | undefined
  readonly maxBytes?: number | undefined
  readonly direction?: Direction | undefined
  /** The tool whose output this is: selects per-tool limits and labels events. */
  readonly tool?: string | undefined
  readonly hint?: HintContext | undefined
}

export interface Result {
  readonly content: string
  readonly truncated: boolean
  readonly outputPath?: string | undefined
  readonly totalBytes: number
  readonly totalLines: number
  readonly removedLines: number
  readonly removedBytes: number
  /** Set when the spill could not be written; `content` then says so. */
  readonly spillError?: string | undefined
}

export class Truncate extends Context.Service<Truncate, {
  readonly output: (text: string, options?: Options) => Effect.Effect<Result>
  readonly stream: <E, R>(
    input: Stream.Stream<string | Uint8Array, E, R>,
    options?: Options
  ) => Effect.Effect<Result, E, R>
  /** Effective limits for a tool: global < per-tool < per-call. */
  readonly limits: (options?: Options) => Limits
}>()("@agent-tools/core/Truncate") {}
