/**
 * How a too-large output is reduced to a preview: the pluggable part of `Truncate.output`.
 *
 * `Truncate` decides *whether* to truncate (line and byte limits), spills the full text and builds
 * the `Notice`; the strategy decides *what* the model sees. Built in: `lines` (whole lines at the
 * head, tail or both; the default), `bytes` (fills the byte budget, cutting a line mid-way) and
 * `json` (TruncationJson.ts: the preview stays valid JSON). Configuration selects one by name,
 * globally or per tool; a layer can replace the default:
 *
 *   Truncate.layer(config).pipe(Layer.provide(Layer.succeed(TruncationStrategy, myStrategy)))
 *
 * Streams (`Truncate.stream`) always use the line strategy: it is the one with bounded memory.
 */
import * as Context from "effect/Context"
import * as LineWindow from "./LineWindow.ts"
import type { Direction, HintContext, Limits } from "./Truncate.ts"
import * as Utf8 from "./Utf8.ts"

export interface Removed {
  /** Undefined when the output's lines were not counted. */
  readonly lines: number | undefined
  readonly bytes: number
}

/** What a strategy needs to tell the model about the cut; built by `Truncate`. */
export interface Notice {
  /**
   * Undefined when the lines were not counted (a process's output too long to count cheaply);
   * only the built-in line window is ever given such a notice, for an output much longer than its limits.
   */
  readonly totalLines: number | undefined
  readonly totalBytes: number
  /** Where the full output was saved; undefined when saving failed. */
  readonly outputPath: string | undefined
  /** Why saving failed, if it did. */
  readonly spillError: string | undefined
  /** The saved copy holds only the first this many bytes (the spill store's cap), if it is partial. */
  readonly savedBytes: number | undefined
  /** The paging hint (several lines), naming only tools the caller can use. */
  readonly hint: string
  /** The one-line marker that must open the content (visible in the first 200 bytes). */
  readonly marker: (removed: Removed, shown: string) => string
  /** The line placed where content was cut out. */
  readonly elision: (removed: Removed) => string
}

export interface Preview {
  readonly content: string
  /** Undefined when the notice's `totalLines` is. */
  readonly removedLines: number | undefined
  readonly removedBytes: number
}

export interface TruncationStrategy {
  readonly name: string
  /** Called only for text that exceeds `limits`; must not return the whole text. */
  readonly preview: (text: string, limits: Limits, notice: Notice) => Preview
}

const HINT_HEAD = "The tool call succeeded but the output was truncated."

// The agent types best suited to paging a file, in order; otherwise the first one offered.
const PAGING_AGENTS = ["explore", "general"]

/** The agent type a hint names: one the task tool offers, or none when the list is unknown. */
const delegate = (agents: ReadonlyArray<string> | undefined): string | undefined =>
  agents === undefined ? undefined : PAGING_AGENTS.find((a) => agents.includes(a)) ?? agents[0]

/** The paging hint. No `hint` context means the caller has read and grep but not task. */
export const hintText = (
  outputPath: string | undefined,
  spillError: string | undefined,
  tools: HintContext = { task: false, read: true, grep: true },
  capped?: { readonly savedBytes: number; readonly totalBytes: number }
): string => {
  if (outputPath === undefined) {
    return `${HINT_HEAD} The full output could not be saved${
      spillError === undefined ? "" : ` (${spillError})`
    }, so only this preview is available.`
  }
  const saved = capped === undefined
    ? `${HINT_HEAD} Full output saved to: ${outputPath}\n`
    : `${HINT_HEAD} Only the first ${capped.savedBytes} of ${capped.totalBytes} bytes were saved (the spill size limit), to: ${outputPath}\n`
  if (tools.task) {
    const agent = delegate(tools.agents)
    return saved +
      `Use the Task tool to have ${agent === undefined ? "a sub-agent" : `the ${agent} agent`} process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context.`
  }
  if (tools.read && tools.grep) {
    return saved + "Use Grep to search the full content or Read with offset/limit to view specific sections."
  }
  if (tools.read) return saved + "Use Read with offset/limit to view specific sections."
  if (tools.grep) return saved + "Use Grep to search the full content."
  return saved + "It cannot be retrieved with the tools available to you; work with this preview."
}

const amount = (r: Removed) => r.lines !== undefined && r.lines > 0 ? `${r.lines} lines (${r.bytes} bytes)` : `${r.bytes} bytes`

export const makeNotice = (input: {
  readonly totalLines: number | undefined
  readonly totalBytes: number
  readonly outputPath: string | undefined
  readonly spillError: string | undefined
  readonly hint?: HintContext | undefined
  /** The spill store's per-spill cap, if it has one. */
  readonly spillMaxBytes?: number | undefined
}): Notice => {
  const savedBytes = input.outputPath !== undefined && input.spillMaxBytes !== undefined &&
      input.totalBytes > input.spillMaxBytes
    ? input.spillMaxBytes
    : undefined
  const capped = savedBytes === undefined ? undefined : { savedBytes, totalBytes: input.totalBytes }
  const saved = input.outputPath === undefined
    ? "The full output could not be saved."
    : savedBytes === undefined
    ? `Full output: ${input.outputPath}`
    : `First ${savedBytes} bytes of the output: ${input.outputPath}`
  return {
    totalLines: input.totalLines,
    totalBytes: input.totalBytes,
    outputPath: input.outputPath,
    spillError: input.spillError,
    savedBytes,
    hint: hintText(input.outputPath, input.spillError, input.hint, capped),
    marker: (removed, shown) => `[Output truncated: ${amount(removed)} omitted; showing ${shown}. ${saved}]`,
    elision: (removed) =>
      removed.lines !== undefined && removed.lines > 0 ? `... ${removed.lines} lines truncated ...` : `... ${removed.bytes} bytes truncated ...`
  }
}

// Line numbers let the model page the spill with offset/limit; a cut line is named. Without a
// line count the total is given in bytes, and the notice says the lines were not counted.
const shownText = (w: LineWindow.Window, direction: Direction, notice: Notice): string => {
  const total = notice.totalLines
  const headCut = w.head.cut ? ` (line ${w.head.lines} cut)` : ""
  const tailCut = !w.tail.cut ? "" : total === undefined ? " (the first one cut)" : ` (line ${total - w.tail.lines + 1} cut)`
  const of = total === undefined ? `lines of ${notice.totalBytes} bytes (too long to count its lines)` : `of ${total} lines`
  switch (direction) {
    case "head":
      return `the first ${w.head.lines}${headCut} ${of}`
    case "tail":
      return `the last ${w.tail.lines}${tailCut} ${of}`
    case "head+tail":
      return `the first ${w.head.lines}${headCut} and the last ${w.tail.lines}${tailCut} ${of}`
  }
}

/** Lays out a line window: marker first, the elision where lines were cut out, the hint last (first for tail). */
export const render = (w: LineWindow.Window, direction: Direction, notice: Notice): Preview => {
  const r = LineWindow.removed(w, { lines: notice.totalLines, bytes: notice.totalBytes })
  const marker = notice.marker(r, shownText(w, direction, notice))
  const elision = notice.elision(r)
  const content = direction === "head"
    ? `${marker}\n${w.head.text}\n\n${elision}\n\n${notice.hint}`
    : direction === "tail"
    ? `${marker}\n${notice.hint}\n\n${elision}\n\n${w.tail.text}`
    : `${marker}\n${w.head.text}\n\n${elision}\n\n${w.tail.text}\n\n${notice.hint}`
  return { content, removedLines: r.lines, removedBytes: r.bytes }
}

/** The default: whole lines at the head, tail or both ends (see LineWindow). */
export const lines: TruncationStrategy = {
  name: "lines",
  preview: (text, limits, notice) =>
    render(LineWindow.window(text, limits, notice.totalLines ?? LineWindow.measure(text).lines), limits.direction, notice)
}

const countLines = (s: string): number => LineWindow.measure(s).lines

/** The first bytes of `text` within `budget`, over at most `budget.lines` lines; may end mid-line. */
const headBytes = (text: string, budget: LineWindow.Budget): LineWindow.Side => {
  let end = budget.lines > 0 ? text.length : 0
  for (let i = 0, nl = -1; i < budget.lines; i++) {
    nl = text.indexOf("\n", nl + 1)
    if (nl === -1) break
    if (i === budget.lines - 1) end = nl
  }
  const part = Utf8.prefix(text.slice(0, Math.min(end, budget.bytes)), budget.bytes)
  const bytes = Utf8.byteLength(part)
  const cut = part.length < text.length && part.length > 0 && !part.endsWith("\n") && text[part.length] !== "\n"
  return { text: part, lines: countLines(part), bytes, size: bytes, cut, edge: part.length }
}

/** The last bytes of `text` within `budget`, over at most `budget.lines` lines, never before `lower`. */
const tailBytes = (text: string, budget: LineWindow.Budget, lower: number): LineWindow.Side => {
  const contentEnd = text.endsWith("\n") ? text.length - 1 : text.length
  let start = budget.lines > 0 ? lower : contentEnd
  for (let i = 0, nl = contentEnd; i < budget.lines; i++) {
    nl = nl > 0 ? text.lastIndexOf("\n", nl - 1) : -1
    if (nl < lower) break
    if (i === budget.lines - 1) start = nl + 1
  }
  start = Math.max(start, lower, contentEnd - budget.bytes)
  const part = Utf8.suffix(text.slice(start, contentEnd), budget.bytes)
  const from = contentEnd - part.length
  const bytes = Utf8.byteLength(part)
  const cut = part.length > 0 && from > 0 && text[from - 1] !== "\n"
  return { text: part, lines: countLines(part), bytes, size: bytes, cut, edge: from }
}

/**
 * Fills the byte budget exactly (at a character boundary), cutting the last line shown mid-way:
 * for outputs of few, very long lines (minified code, base64, logs without newlines), where whole
 * lines would show next to nothing. The line limit still applies.
 */
export const bytes: TruncationStrategy = {
  name: "bytes",
  preview: (text, limits, notice) => {
    const head = headBytes(text, LineWindow.headBudget(limits))
    const tail = limits.direction === "head"
      ? { text: "", lines: 0, bytes: 0, size: 0, cut: false, edge: text.length }
      : tailBytes(text, LineWindow.tailBudget(limits, head), head.edge)
    return render({ head, tail }, limits.direction, notice)
  }
}

/** The strategy `Truncate.layer` uses when none is configured; `lines` unless a layer provides another. */
export const TruncationStrategy = Context.Reference<TruncationStrategy>("@agent-tools/core/TruncationStrategy", {
  defaultValue: () => lines
})
