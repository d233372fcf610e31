/**
 * The line/byte window of a truncated output: which lines at the head and at the tail are kept.
 *
 * Rules (opencode's, minus its bugs):
 * - lines are split on "\n" ("\r" stays part of its line); a final "\n" ends the last line and is
 *   not a line of its own; "" has no lines;
 * - whole lines only, walking in from each end; the newline between two kept lines is charged to
 *   the later line in reading order (head: the following line; tail: the line before);
 * - when the next line does not fit and nothing visible is kept yet, that line is cut at a character
 *   boundary with a marker instead of being dropped, so a preview is never empty because of one
 *   long line;
 * - head+tail gives the head 20% of both budgets and the tail the rest: the end of a build or test
 *   run is where the error is, gemini-cli's 20/80 split.
 *
 * Only the kept window is measured line by line; the rest is only counted (`measure`).
 */
import type { Limits } from "./Truncate.ts"
import * as Utf8 from "./Utf8.ts"

export interface Budget {
  readonly lines: number
  readonly bytes: number
}

/** One kept end of the text. */
export interface Side {
  /** What is shown, cut marker included. */
  readonly text: string
  /** Lines shown, a cut line included. */
  readonly lines: number
  /** Bytes of the original text this side covers (markers excluded). */
  readonly bytes: number
  /** Bytes of `text` as shown (what the budget bounds). */
  readonly size: number
  /** Whether a line was cut. */
  readonly cut: boolean
  /** Head: index just past what it covers. Tail: index where what it covers starts. */
  readonly edge: number
}

export interface Window {
  readonly head: Side
  readonly tail: Side
}

export interface Measure {
  readonly lines: number
  readonly bytes: number
  /** Whether the text ends with "\n" (that byte terminates the last line and is not budgeted). */
  readonly endsWithNewline: boolean
}

export const HEAD_SHARE = 0.2
export const HEAD_CUT = " ... [line truncated]"
export const TAIL_CUT = "[line truncated] ... "
const CUT_BYTES = HEAD_CUT.length

const empty = (edge: number): Side => ({ text: "", lines: 0, bytes: 0, size: 0, cut: false, edge })

/** Above this many UTF-16 units a text is measured by the SIMD scanner (`Utf8.measureText`). */
const ENCODED_MEASURE = 1 << 20

/** Counts lines and bytes with native scans, without splitting the text. */
export const measure = (text: string): Measure => {
  const endsWithNewline = text.endsWith("\n")
  const last = text.length > 0 && !endsWithNewline ? 1 : 0
  if (text.length > ENCODED_MEASURE) {
    const { bytes, newlines } = Utf8.measureText(text)
    return { lines: newlines + last, bytes, endsWithNewline }
  }
  let newlines = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines++
  return { lines: newlines + last, bytes: Utf8.byteLength(text), endsWithNewline }
}

/** The measure of bytes (newlines found with a byte search). */
export const measureBytes = (bytes: Uint8Array): Measure => {
  const endsWithNewline = bytes.length > 0 && bytes[bytes.length - 1] === 10
  const newlines = Utf8.countNewlines(bytes)
  return { lines: newlines + (bytes.length > 0 && !endsWithNewline ? 1 : 0), bytes: bytes.length, endsWithNewline }
}

/** Whether a text of this measure is returned whole. */
export const fits = (m: Measure, limits: Limits): boolean =>
  m.lines <= limits.maxLines && m.bytes - (m.endsWithNewline ? 1 : 0) <= limits.maxBytes

/** The head's budget, from which the tail's follows (`tailBudget`). */
export const headBudget = (limits: Limits): Budget => {
  switch (limits.direction) {
    case "head":
      return { lines: limits.maxLines, bytes: limits.maxBytes }
    case "tail":
      return { lines: 0, bytes: 0 }
    case "head+tail":
      return { lines: Math.floor(limits.maxLines * HEAD_SHARE), bytes: Math.floor(limits.maxBytes * HEAD_SHARE) }
  }
}

/** The tail gets what the head left over (so an early stop of the head gives the tail more). */
export const tailBudget = (limits: Limits, head: Side): Budget =>
  limits.direction === "head"
    ? { lines: 0, bytes: 0 }
    : { lines: Math.max(0, limits.maxLines - head.lines), bytes: Math.max(0, limits.maxBytes - head.size) }

/** Walks lines from the start of `text` while they fit `budget`. */
export const headSide = (text: string, budget: Budget): Side => {
  let pos = 0
  let lines = 0
  let size = 0
  let visible = 0
  let keptEnd = 0
  while (pos < text.length && lines < budget.lines) {
    const nl = text.indexOf("\n", pos)
    const end = nl === -1 ? text.length : nl
    const charge = lines > 0 ? 1 : 0
    const room = budget.bytes - size - charge
    // More UTF-16 units than room means more bytes than room: no need to measure the line.
    const bytes = end - pos > room ? room + 1 : Utf8.byteLength(text.slice(pos, end))
    if (bytes <= room) {
      size += charge + bytes
      visible += bytes
      lines++
      keptEnd = end
      pos = end + 1
      continue
    }
    const avail = room - CUT_BYTES
    if (visible === 0 && avail > 0) {
      const part = Utf8.prefix(text.slice(pos, Math.min(end, pos + avail)), avail)
      const partBytes = Utf8.byteLength(part)
      return {
        text: (lines > 0 ? text.slice(0, keptEnd) + "\n" : "") + part + HEAD_CUT,
        lines: lines + 1,
        bytes: size + charge + partBytes,
        size: size + charge + partBytes + CUT_BYTES,
        cut: true,
        edge: pos + part.length
      }
    }
    break
  }
  return { text: text.slice(0, keptEnd), lines, bytes: size, size, cut: false, edge: pos }
}

/**
 * Walks lines from the end of `text` while they fit `budget`, never below index `lower` (what
 * the head covers) and over at most `available` lines.
 */
export const tailSide = (text: string, budget: Budget, lower: number, available: number): Side => {
  const contentEnd = text.endsWith("\n") ? text.length - 1 : text.length
  let end = contentEnd
  let lines = 0
  let size = 0
  let visible = 0
  let keptStart = contentEnd
  while (lines < budget.lines && lines < available && end >= lower) {
    const nl = end > lower ? text.lastIndexOf("\n", end - 1) : -1
    const start = Math.max(nl + 1, lower)
    const charge = lines > 0 ? 1 : 0
    const room = budget.bytes - size - charge
    const bytes = end - start > room ? room + 1 : Utf8.byteLength(text.slice(start, end))
    if (bytes <= room) {
      size += charge + bytes
      visible += bytes
      lines++
      keptStart = start
      end = start - 1
      continue
    }
    const avail = room - CUT_BYTES
    if (visible === 0 && avail > 0) {
      const part = Utf8.suffix(text.slice(Math.max(start, end - avail), end), avail)
      const partBytes = Utf8.byteLength(part)
      return {
        text: TAIL_CUT + part + (lines > 0 ? "\n" + text.slice(keptStart, contentEnd) : ""),
        lines: lines + 1,
        bytes: size + charge + partBytes,
        size: size + charge + partBytes + CUT_BYTES,
        cut: true,
        edge: end - part.length
      }
    }
    break
  }
  return { text: text.slice(keptStart, contentEnd), lines, bytes: size, size, cut: false, edge: keptStart }
}

/** The window of a whole text that does not fit `limits`. */
export const window = (text: string, limits: Limits, totalLines: number): Window => {
  const head = headSide(text, headBudget(limits))
  const whole = head.lines - (head.cut ? 1 : 0)
  const tail = limits.direction === "head"
    ? empty(text.length)
    : tailSide(text, tailBudget(limits, head), head.edge, totalLines - whole)
  return { head, tail }
}

/** Lines and bytes not shown (a cut line counts as shown). */
/** What the window leaves out of totals; lines undefined when the total's are (not counted). */
export const removed = (w: Window, totals: { readonly lines: number | undefined; readonly bytes: number }) => ({
  lines: totals.lines === undefined ? undefined : Math.max(0, totals.lines - w.head.lines - w.tail.lines),
  bytes: Math.max(0, totals.bytes - w.head.bytes - w.tail.bytes)
})

/**
 * The incremental form of `window`, for streams: keeps the whole text while it is short, then
 * only a prefix (the head budget + 4 units), a rolling suffix (maxBytes + 4 units) and counts.
 * Running `headSide` on that prefix and `tailSide` on that suffix gives the same window as on the
 * whole text: a walk stops, at the latest, on a line longer (in UTF-16 units, hence in bytes)
 * than the room left, and the margin makes any line reaching the edge of the kept part such a line.
 */
export class Builder {
  private parts: Array<string> | undefined = []
  private units = 0
  private newlineCount = 0
  private endsWithNewline = false
  private prefix = ""
  private suffix = ""
  private readonly limits: Limits
  private readonly prefixCap: number
  private readonly suffixCap: number

  constructor(limits: Limits) {
    this.limits = limits
    this.prefixCap = headBudget(limits).bytes + 4
    this.suffixCap = limits.direction === "head" ? 0 : limits.maxBytes + 4
  }

  /** Lines seen so far, the unterminated last one included. */
  get lines(): number {
    return this.newlineCount + (this.units > 0 && !this.endsWithNewline ? 1 : 0)
  }

  get newlines(): number {
    return this.newlineCount
  }

  push(s: string): void {
    if (s.length === 0) return
    for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) this.newlineCount++
    this.endsWithNewline = s.charCodeAt(s.length - 1) === 10
    this.units += s.length
    if (this.parts !== undefined) {
      this.parts.push(s)
      if (this.units <= this.prefixCap + this.suffixCap) return
      const whole = this.parts.join("")
      this.parts = undefined
      this.prefix = whole.slice(0, this.prefixCap)
      this.suffix = this.suffixCap > 0 ? whole.slice(-this.suffixCap) : ""
      return
    }
    if (this.suffixCap === 0) return
    if (s.length >= this.suffixCap) {
      this.suffix = s.slice(-this.suffixCap)
    } else {
      this.suffix += s
      // Trim only at twice the cap, so appending stays amortized O(1) per unit.
      if (this.suffix.length > 2 * this.suffixCap) this.suffix = this.suffix.slice(-this.suffixCap)
    }
  }

  /** The whole text, while it is still kept (always when it fits the limits). */
  text(): string | undefined {
    if (this.parts === undefined) return undefined
    const whole = this.parts.join("")
    this.parts = [whole]
    return whole
  }

  measure(bytes: number): Measure {
    return { lines: this.lines, bytes, endsWithNewline: this.endsWithNewline }
  }

  window(): Window {
    const whole = this.text()
    if (whole !== undefined) return window(whole, this.limits, this.lines)
    const head = headSide(this.prefix, headBudget(this.limits))
    const shown = head.lines - (head.cut ? 1 : 0)
    const tail = this.limits.direction === "head"
      ? empty(0)
      : tailSide(this.suffix, tailBudget(this.limits, head), 0, this.lines - shown)
    return { head, tail }
  }
}
