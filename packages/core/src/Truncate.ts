/**
 * Bounds what a tool returns to the model: line and byte limits, head / tail / head+tail previews
 * made by a named strategy (whole lines, bytes, or JSON kept valid), the full output spilled to
 * SpillStorage with a notice saying how to page it. The configuration can change while it runs
 * (`update`, `setToolConfig`) and per call (`Options`).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ResultModule from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Events } from "./Events.ts"
import * as LineWindow from "./LineWindow.ts"
import { endBytes, Follower, windowOfEnds } from "./SpillCapture.ts"
import { SpillError, SpillStorage, type SpillWriter } from "./SpillStorage.ts"
import * as Strategy from "./TruncationStrategy.ts"
import { json } from "./TruncationJson.ts"
import { chunkDecoder, type Decoded, decodeChunks } from "./ChunkDecoder.ts"
import type { Capture, Config, Limits, Options, Result, Settings, StrategyName, ToolConfig } from "./TruncateTypes.ts"

export type {
  Capture,
  Config,
  Direction,
  HintContext,
  Limits,
  Options,
  Result,
  Settings,
  StrategyName,
  ToolConfig
} from "./TruncateTypes.ts"

export class Truncate extends Context.Service<Truncate, {
  readonly output: (text: string, options?: Options) => Effect.Effect<Result>
  /**
   * `output` for bytes (UTF-8 assumed, other bytes shown as U+FFFD): totals from a byte search, the
   * preview from the two ends only, the spill written as the bytes are. Optional: a Truncate
   * without it gets the decoded text through `output`.
   */
  readonly outputBytes?: ((bytes: Uint8Array, options?: Options) => Effect.Effect<Result>) | undefined
  readonly stream: <E, R>(
    input: Stream.Stream<string | Uint8Array, E, R>,
    options?: Options
  ) => Effect.Effect<Result, E, R>
  /**
   * Opens a capture of a process's output (a spill file it writes into), when the spill store
   * offers direct spills; undefined otherwise (then the output goes through `stream`). Live
   * previews of up to `previewChars` characters come from the file's end. Optional: a Truncate
   * without it has every output go through `stream`.
   */
  readonly capture?: (options?: Options, previewChars?: number) => Effect.Effect<Capture | undefined, never, Scope.Scope>
  /** Effective limits for a call (see `Options` for the precedence). */
  readonly limits: (options?: Options) => Limits
  /** The configuration in force now. */
  readonly config: Effect.Effect<Config>
  /**
   * Changes the configuration from the next call on: each key given replaces the current one
   * (`tools` as a whole; `setToolConfig` changes one tool), keys left out are kept.
   */
  readonly update: (change: Config) => Effect.Effect<void>
  /** Replaces one tool's overrides from the next call on; `undefined` removes them. */
  readonly setToolConfig: (tool: string, config: ToolConfig | undefined) => Effect.Effect<void>
}>()("@agent-tools/core/Truncate") {}

/** The built-in strategies by name. */
export const strategies: Readonly<Record<StrategyName, Strategy.TruncationStrategy>> = {
  lines: Strategy.lines,
  bytes: Strategy.bytes,
  json
}

/** opencode's limits: 2000 lines, 50 KiB, head. */
export const defaults: Limits = { maxLines: 2000, maxBytes: 51200, direction: "head" }

const count = (value: number | undefined, fallback: number): number =>
  typeof value === "number" && !Number.isNaN(value) ? Math.max(0, Math.floor(value)) : fallback

const override = (base: Limits, over: Settings | undefined): Limits =>
  over === undefined ? base : {
    maxLines: count(over.maxLines, base.maxLines),
    maxBytes: count(over.maxBytes, base.maxBytes),
    direction: over.direction ?? base.direction
  }

/** How much of a decoded output `looksBinary` samples. */
const BINARY_SAMPLE_CHARS = 8192

/**
 * Whether decoded output is binary data rather than text: a NUL, or more than a tenth of the
 * sample being U+FFFD (bytes that were not UTF-8) or control characters no text uses (tab, line
 * breaks, form feed, backspace and escape sequences are text). Binary output is always spilled,
 * so its bytes are kept even when it is small, and a tool can show a description instead.
 */
export const looksBinary = (text: string): boolean => {
  const sample = text.length > BINARY_SAMPLE_CHARS ? text.slice(0, BINARY_SAMPLE_CHARS) : text
  if (sample.includes("\0")) return true
  const odd = sample.match(/[\uFFFD\x01-\x07\x0E-\x1A\x1C-\x1F\x7F]/g)?.length ?? 0
  return sample.length > 0 && odd * 10 > sample.length
}

/** Whether `text` is within `limits` as `output` measures it (a final newline is not counted). */
export const fits = (text: string, limits: Limits): boolean => LineWindow.fits(LineWindow.measure(text), limits)

const whole = (text: string, m: LineWindow.Measure): Result => ({
  content: text,
  truncated: false,
  totalBytes: m.bytes,
  totalLines: m.lines,
  removedLines: 0,
  removedBytes: 0
})

/**
 * The Truncate service: limits from `config` (global < per-tool < per-call), the full output
 * spilled to `SpillStorage`, outcomes published on `Events`, the preview made by the
 * `TruncationStrategy` in context (lines by default).
 */
export const layer = (config: Config = {}): Layer.Layer<Truncate, never, SpillStorage | Events> =>
  Layer.effect(
    Truncate,
    Effect.gen(function*() {
      const state: State = {
        spill: yield* SpillStorage,
        events: yield* Events,
        fallback: yield* Strategy.TruncationStrategy,
        current: config
      }
      return Truncate.of({
        output: (text, options) => output(state, text, options),
        outputBytes: (bytes, options) => outputBytes(state, bytes, options),
        stream: (input, options) => stream(state, input, options),
        capture: (options, previewChars) => capture(state, options, previewChars),
        limits: (options) => limits(state, options),
        config: Effect.sync(() => state.current),
        update: Effect.fn("Truncate.update")(function*(change: Config) {
          state.current = { ...state.current, ...change }
        }),
        setToolConfig: Effect.fn("Truncate.setToolConfig")(function*(tool: string, toolConfig: ToolConfig | undefined) {
          const tools = { ...state.current.tools }
          if (toolConfig === undefined) delete tools[tool]
          else tools[tool] = toolConfig
          state.current = { ...state.current, tools }
        })
      })
    })
  )

/** What the parts of a running Truncate share: its services and the configuration in force. */
interface State {
  readonly spill: SpillStorage["Service"]
  readonly events: Events["Service"]
  /** The strategy when no level names one. */
  readonly fallback: Strategy.TruncationStrategy
  current: Config
}

const toolConfig = (state: State, tool: string | undefined): ToolConfig | undefined =>
  tool !== undefined && state.current.tools !== undefined && Object.hasOwn(state.current.tools, tool)
    ? state.current.tools[tool]
    : undefined

// Lowest first: what each call's settings are resolved through.
const levels = (state: State, options?: Options): ReadonlyArray<Settings | undefined> => [
  options?.toolDefaults,
  state.current,
  toolConfig(state, options?.tool),
  options
]

const limits = (state: State, options?: Options): Limits => levels(state, options).reduce<Limits>(override, defaults)

const strategy = (state: State, options?: Options): Strategy.TruncationStrategy => {
  const chosen = levels(state, options).reduceRight<Settings["strategy"]>((found, level) => found ?? level?.strategy, undefined)
  return chosen === undefined ? state.fallback : typeof chosen === "string" ? strategies[chosen] : chosen
}

const disabled = (state: State, options?: Options) => toolConfig(state, options?.tool)?.disabled === true

const skip = (state: State, options?: Options) =>
  state.events.publish({ _tag: "TruncationSkipped", tool: options?.tool, reason: "truncation disabled for this tool" })

// Publishes the outcome and assembles the result of a truncated output.
/** Output that fits but is binary: whole, with its spill kept (its bytes, which the text lost). */
const keptWhole = (commit: Effect.Effect<string, SpillError>, text: string, m: LineWindow.Measure) =>
  Effect.map(
    Effect.result(commit),
    (spilled): Result => ResultModule.isSuccess(spilled) ? { ...whole(text, m), outputPath: spilled.success } : whole(text, m)
  )

const finish = Effect.fnUntraced(function*(
  state: State,
  spilled: ResultModule.Result<string, SpillError>,
  m: { readonly lines: number | undefined; readonly bytes: number },
  options: Options | undefined,
  preview: (notice: Strategy.Notice) => Effect.Effect<Strategy.Preview>
) {
  const outputPath = ResultModule.isSuccess(spilled) ? spilled.success : undefined
  const spillError = ResultModule.isFailure(spilled) ? spilled.failure.message : undefined
  if (spillError !== undefined) {
    yield* state.events.publish({ _tag: "SpillFailed", tool: options?.tool, message: spillError })
    yield* Effect.logWarning("spilling a truncated output failed", spillError)
  }
  const notice = Strategy.makeNotice({
    totalLines: m.lines,
    totalBytes: m.bytes,
    outputPath,
    spillError,
    hint: options?.hint,
    spillMaxBytes: state.spill.maxBytes
  })
  const p = yield* preview(notice)
  yield* state.events.publish({
    _tag: "OutputTruncated",
    tool: options?.tool,
    outputPath,
    totalBytes: m.bytes,
    totalLines: m.lines,
    removedBytes: p.removedBytes,
    removedLines: p.removedLines
  })
  yield* Effect.annotateCurrentSpan({ truncated: true, totalBytes: m.bytes, outputPath: outputPath ?? "" })
  const result: Result = {
    content: p.content,
    truncated: true,
    outputPath,
    totalBytes: m.bytes,
    totalLines: m.lines,
    removedLines: p.removedLines,
    removedBytes: p.removedBytes,
    spillError
  }
  return result
})

// Returns once the spill is started when the store writes in the background: the preview
// does not wait for the disk (read and grep of the spill wait for it instead).
const save = ({ spill }: State, content: string | Uint8Array) =>
  Effect.result(
    spill.writeInBackground !== undefined
      ? spill.writeInBackground(content)
      : spill.write(content)
  )

const truncated = Effect.fn("Truncate.output")(function*(
  state: State,
  text: string,
  measured: LineWindow.Measure | undefined,
  lim: Limits,
  options?: Options
) {
  const spilled = yield* save(state, text)
  // Measured after the spill is started when it was not needed to decide: the spill's first
  // round trips to the disk then overlap the measure.
  const m = measured ?? LineWindow.measure(text)
  const chosen = strategy(state, options)
  return yield* finish(state, spilled, m, options, (notice) =>
    Effect.try({
      try: () => chosen.preview(text, lim, notice),
      catch: (cause) => cause
    }).pipe(
      // A broken custom strategy must not lose the output: fall back to whole lines.
      Effect.catch((cause) =>
        Effect.logWarning(`truncation strategy "${chosen.name}" failed; using lines`, cause).pipe(
          Effect.as(Strategy.lines.preview(text, lim, notice))
        )
      )
    ))
})

/** Texts at least this long are checked against the byte budget before they are measured. */
const LONG = 1 << 20

// Most outputs fit: answer those without a span or a generator (this runs on every tool call).
const output = (state: State, text: string, options?: Options): Effect.Effect<Result> => {
  // More UTF-16 units than the byte budget (and its final newline) is truncated whatever the
  // measure says: a unit is at least one byte of UTF-8.
  if (text.length > LONG && !disabled(state, options)) {
    const lim = limits(state, options)
    if (text.length - 1 > lim.maxBytes) return truncated(state, text, undefined, lim, options)
  }
  const m = LineWindow.measure(text)
  if (disabled(state, options)) return Effect.as(skip(state, options), whole(text, m))
  const lim = limits(state, options)
  return LineWindow.fits(m, lim) ? Effect.succeed(whole(text, m)) : truncated(state, text, m, lim, options)
}

const outputBytes = Effect.fn("Truncate.outputBytes")(function*(state: State, bytes: Uint8Array, options?: Options) {
  const m = LineWindow.measureBytes(bytes)
  const lim = limits(state, options)
  const ends = endBytes(lim)
  // The line strategy needs only the two ends; a custom one gets the whole text.
  if (
    disabled(state, options) || LineWindow.fits(m, lim) || bytes.length <= ends.head + ends.tail ||
    strategy(state, options) !== Strategy.lines
  ) {
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)
    if (disabled(state, options)) return yield* Effect.as(skip(state, options), whole(text, m))
    return LineWindow.fits(m, lim) ? whole(text, m) : yield* truncated(state, text, m, lim, options)
  }
  const spilled = yield* save(state, bytes)
  const w = windowOfEnds(bytes.subarray(0, ends.head), bytes.subarray(bytes.length - ends.tail), lim, m.lines)
  return yield* finish(state, spilled, m, options, (notice) => Effect.succeed(Strategy.render(w, lim.direction, notice)))
})

const stream = Effect.fn("Truncate.stream")(function*<E, R>(
  state: State,
  input: Stream.Stream<string | Uint8Array, E, R>,
  options?: Options
) {
  const lim = limits(state, options)
  if (disabled(state, options)) {
    const text = yield* Stream.mkString(decodeChunks(input))
    yield* skip(state, options)
    return whole(text, LineWindow.measure(text))
  }
  return yield* Effect.scoped(streamWindow(state, input, lim, options))
})

// Bounded memory: the window builder, raw bytes only until the limits are exceeded, then
// every chunk goes straight to the spill writer.
const streamWindow = Effect.fnUntraced(function*<E, R>(
  state: State,
  input: Stream.Stream<string | Uint8Array, E, R>,
  lim: Limits,
  options: Options | undefined
) {
  const builder = new LineWindow.Builder(lim)
  const decode = chunkDecoder()
  let bytes = 0
  let pending: Array<Uint8Array> | undefined = []
  let writer: SpillWriter | undefined
  let failure: SpillError | undefined
  const exceeded = () => builder.newlines > lim.maxLines || bytes > lim.maxBytes + 1
  const abandon = (e: SpillError) =>
    Effect.sync(() => {
      failure = e
      writer = undefined
      pending = undefined
    })
  const open = Effect.gen(function*() {
    const opened = yield* Effect.result(state.spill.writer)
    if (ResultModule.isFailure(opened)) return yield* abandon(opened.failure)
    writer = opened.success
    const buffered = pending ?? []
    pending = undefined
    for (const chunk of buffered) yield* writer.write(chunk).pipe(Effect.catch(abandon))
  })
  const take = ({ raw, text }: Decoded) =>
    Effect.suspend(() => {
      builder.push(text)
      bytes += raw.length
      if (failure !== undefined || raw.length === 0) return Effect.void
      if (writer !== undefined) return writer.write(raw).pipe(Effect.catch(abandon))
      pending?.push(raw.slice()) // a producer may reuse its buffer once the chunk is taken
      return exceeded() ? open : Effect.void
    })
  yield* Stream.runForEach(input, (chunk) => take(decode(chunk)))
  yield* take(decode.end())
  const m = builder.measure(bytes)
  if (LineWindow.fits(m, lim)) {
    const text = builder.text() ?? ""
    if (!looksBinary(text)) return whole(text, m)
    if (writer === undefined && failure === undefined) yield* open
    return yield* keptWhole(writer !== undefined ? writer.commit : Effect.fail(failure!), text, m)
  }
  if (writer === undefined && failure === undefined) yield* open
  const spilled: ResultModule.Result<string, SpillError> = writer !== undefined
    ? yield* Effect.result(writer.commit)
    : ResultModule.fail(failure ?? new SpillError({ message: "spill not written" }))
  const w = builder.window()
  return yield* finish(state, spilled, m, options, (notice) => Effect.succeed(Strategy.render(w, lim.direction, notice)))
})

const capture = Effect.fn("Truncate.capture")(function*(state: State, options?: Options, previewChars = 0) {
  const { spill } = state
  if (spill.direct === undefined) return undefined
  const opened = yield* Effect.result(spill.direct)
  if (ResultModule.isFailure(opened)) {
    yield* Effect.logWarning("cannot open a spill file for a process's output; reading it through a pipe", opened.failure.message)
    return undefined
  }
  const lim = limits(state, options)
  const follower = new Follower(opened.success, lim, spill.maxBytes, previewChars * 4)
  const done = Effect.gen(function*() {
    yield* follower.drain
    if (disabled(state, options)) {
      const text = yield* follower.readAll.pipe(Effect.orElseSucceed(() => follower.text() ?? ""))
      yield* skip(state, options)
      return whole(text, LineWindow.measure(text))
    }
    const kept = follower.kept()
    if (kept !== undefined && LineWindow.fits(kept.measure, lim)) {
      const { measure, text } = kept
      return looksBinary(text) ? yield* keptWhole(follower.commit, text, measure) : whole(text, measure)
    }
    const spilled = yield* Effect.result(follower.commit)
    const w = follower.window()
    const m = follower.measure()
    return yield* finish(state, spilled, m, options, (notice) => Effect.succeed(Strategy.render(w, lim.direction, notice)))
  }).pipe(Effect.withSpan("Truncate.captured"))
  return {
    path: follower.path,
    poll: follower.poll,
    append: (bytes) => follower.append(bytes),
    preview: (chars) => follower.preview(chars),
    finish: done,
    readError: () => follower.failure?.message
  } satisfies Capture
})

/**
 * A Truncate that never truncates, for tests (as `FileSystem.layerNoop`): every output comes back
 * whole with its totals, a stream is collected whole, the limits are `defaults`, configuration
 * changes are kept nowhere. `partial` replaces any operation: a test that cares about one
 * (recording the options `output` was given, cutting at 10 characters) states only that one.
 */
export const makeNoop = (partial: Partial<Truncate["Service"]> = {}): Truncate["Service"] =>
  Truncate.of({
    output: (text) => Effect.succeed(whole(text, LineWindow.measure(text))),
    stream: (input) =>
      Effect.suspend(() => {
        // One decoder for the whole stream: a character may be split between two chunks.
        const decoder = new TextDecoder()
        const append = (text: string, chunk: string | Uint8Array) =>
          text + (typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }))
        return Effect.map(Stream.runFold(input, () => "", append), (text) => {
          const all = text + decoder.decode()
          return whole(all, LineWindow.measure(all))
        })
      }),
    limits: () => defaults,
    config: Effect.succeed({}),
    update: () => Effect.void,
    setToolConfig: () => Effect.void,
    ...partial
  })

/** `makeNoop(partial)` as a layer. */
export const layerNoop = (partial: Partial<Truncate["Service"]> = {}): Layer.Layer<Truncate> =>
  Layer.succeed(Truncate, makeNoop(partial))
