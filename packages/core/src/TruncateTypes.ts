/**
 * The shapes Truncate works with: limits and the settings of each configuration level, per-call
 * options, a result, and a capture of a process's output. `Truncate.ts` re-exports them.
 */
import type * as Effect from "effect/Effect"
import type { TruncationStrategy } from "./TruncationStrategy.ts"

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
  /** The agent types the task tool offers; the hint names one of these, never another. */
  readonly agents?: ReadonlyArray<string> | undefined
}

/** The built-in strategies, by the name the configuration uses. */
export type StrategyName = "lines" | "bytes" | "json"

/** What a configuration level may set: each unset field falls through to the level below. */
export interface Settings {
  readonly maxLines?: number | undefined
  readonly maxBytes?: number | undefined
  readonly direction?: Direction | undefined
  /**
   * How a preview is made: a built-in by name, or a strategy object. Unset everywhere: the
   * `TruncationStrategy` in context (`lines` unless a layer provides another). `Truncate.stream`
   * always cuts whole lines: it is the path with bounded memory.
   */
  readonly strategy?: StrategyName | TruncationStrategy | undefined
}

/**
 * Per-call options. Precedence, lowest first: the built-in defaults < `toolDefaults` (the tool's
 * own preference, e.g. bash keeps head and tail) < the global config < the tool's config < the
 * settings given here.
 */
export interface Options extends Settings {
  /** The tool whose output this is: selects per-tool limits and labels events. */
  readonly tool?: string | undefined
  readonly hint?: HintContext | undefined
  /** The tool's own preference: above the built-in defaults, below any configuration. */
  readonly toolDefaults?: Settings | undefined
}

export interface Result {
  readonly content: string
  readonly truncated: boolean
  readonly outputPath?: string | undefined
  readonly totalBytes: number
  /**
   * Undefined when the lines were not counted: a process's output captured in a file past
   * `SpillCapture.COUNT_LIMIT` bytes, whose count would take a pass over the whole file (the
   * notice then gives bytes only).
   */
  readonly totalLines: number | undefined
  /** Undefined when `totalLines` is. */
  readonly removedLines: number | undefined
  readonly removedBytes: number
  /** Set when the spill could not be written; `content` then says so. */
  readonly spillError?: string | undefined
}

/**
 * A process's output captured in a spill file that the process writes into directly: read back
 * as it grows, so the bytes never pass through this process (see `Truncate.capture`).
 */
export interface Capture {
  /** The file to redirect the process's stdout and stderr to, appending. */
  readonly path: string
  /** Reads what was appended since the last call (line totals, both ends; past `SpillCapture.COUNT_LIMIT`, at most every 50 ms). */
  readonly poll: Effect.Effect<void>
  /** Appends output that arrived another way (a pipe). */
  readonly append: (bytes: Uint8Array) => Effect.Effect<void>
  /** The last `chars` characters, when something arrived since the last call. */
  readonly preview: (chars: number) => string | undefined
  /** Reads the rest and returns the same result `stream` gives for the same bytes. */
  readonly finish: Effect.Effect<Result>
  /** Why reading the file failed part way, if it did (what was read is kept). */
  readonly readError: () => string | undefined
}

export interface ToolConfig extends Settings {
  /** Opts the tool out: its output is returned whole (a `TruncationSkipped` event says so). */
  readonly disabled?: boolean | undefined
}

export interface Config extends Settings {
  /** Per-tool overrides, by tool id (also MCP tools). */
  readonly tools?: Readonly<Record<string, ToolConfig>> | undefined
}
