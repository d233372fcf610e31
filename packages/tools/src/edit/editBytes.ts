/**
 * One edit made on the file's bytes, without decoding the whole file: the common case of a big
 * UTF-8 file and a quote that is in it, maybe re-indented. Decoding a large file makes a string as
 * large as the file, which costs more than the rest of an edit together.
 *
 * One of oldString's lines, trimmed (the first, else a long one), that occurs only a few times is
 * searched for as bytes. Every candidate of the strategies that compare whole lines up to their
 * indentation (exact, indentation-flexible, line-trimmed) contains it, so the lines around its
 * occurrences hold all of them: only that window is decoded and handed to `applyEdit`, and the
 * change is spliced into the file's bytes. The result is
 * taken only when it is provably the one the whole file would give; anything else (no occurrence,
 * many, a looser strategy, an error to explain) returns undefined and the caller edits the decoded
 * file instead, so the messages and every rule stay those of the full cascade.
 */
import type { LineRange, StrategyName } from "./replacers/index.ts"
import { MAX_PROBES } from "./replacers/lines.ts"
import { type FileDiff, spanDiff } from "../internal/diff.ts"
import { applyEdit } from "./editText.ts"
import { isUtf8 } from "../internal/text.ts"
import { takeBuffer } from "../internal/buffers.ts"

export interface ByteEdit {
  /** The file's new bytes. */
  readonly bytes: Uint8Array
  readonly diff: FileDiff
  readonly bom: boolean
  readonly strategy: StrategyName
  readonly matches: ReadonlyArray<LineRange>
  readonly reindented: boolean
  readonly unescaped: boolean
  readonly lineNumbersStripped: boolean
  readonly lineCompleted: boolean
}

interface BufferHost {
  readonly Buffer?: {
    readonly from: (buffer: ArrayBufferLike, offset: number, length: number) => { indexOf(value: Uint8Array, from: number): number }
  }
}
const NativeBuffer = (globalThis as BufferHost).Buffer

// More occurrences of the anchor than this, and the decoded file is cheaper to search.
const MAX_OCCURRENCES = 4
// Lines kept around the quote's possible extent, so the diff's context and the matcher's view of
// the neighbouring lines are the file's.
const MARGIN = 8
// Strategies whose every candidate contains each of oldString's lines trimmed.
const LINE_STRATEGIES: ReadonlySet<StrategyName> = new Set(["exact", "multi-occurrence", "indentation-flexible", "line-trimmed"])

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

const NL = 10

/** Start of the line `lines` lines before the one holding byte `i`. */
const back = (bytes: Uint8Array, i: number, lines: number, floor: number): number => {
  let p = i
  for (let k = 0; k <= lines; k++) {
    if (p <= floor) return floor
    p = bytes.lastIndexOf(NL, p - 1)
    if (p < floor) return floor
  }
  return p + 1
}

/** Just past the newline ending the line `lines` lines after the one holding byte `i` (or the end). */
const forward = (bytes: Uint8Array, i: number, lines: number): number => {
  let p = i
  for (let k = 0; k <= lines; k++) {
    const nl = bytes.indexOf(NL, p)
    if (nl === -1) return bytes.length
    p = nl + 1
  }
  return p
}

/** Newlines in bytes [0, to): four bytes at a time where aligned (a byte equal to 10 is a zero byte of w ^ 0x0a0a0a0a). */
export const countNewlines = (bytes: Uint8Array, to: number): number => {
  let n = 0
  let i = 0
  const head = Math.min(to, (4 - (bytes.byteOffset & 3)) & 3)
  for (; i < head; i++) if (bytes[i] === NL) n++
  const words = (to - i) >>> 2
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words)
    for (let w = 0; w < words; w++) {
      const x = view[w]! ^ 0x0a0a0a0a
      // High bit of each byte of `zero` set exactly where that byte of x is zero.
      const zero = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) & 0x80808080
      if (zero !== 0) n += Math.imul(zero >>> 7, 0x01010101) >>> 24
    }
    i += words * 4
  }
  for (; i < to; i++) if (bytes[i] === NL) n++
  return n
}

/** Every occurrence of `needle` in `haystack`, or undefined past `limit` of them. */
const occurrences = (
  haystack: { indexOf(value: Uint8Array, from: number): number },
  needle: Uint8Array,
  from: number,
  limit: number
): Array<number> | undefined => {
  const out: Array<number> = []
  for (let p = haystack.indexOf(needle, from); p !== -1; p = haystack.indexOf(needle, p + 1)) {
    if (out.length === limit) return undefined
    out.push(p)
  }
  return out
}

/** Whether `line` occurs as a whole line of the file in bytes [start, end), outside bytes [from, to). */
const wholeLineOutside = (
  bytes: Uint8Array,
  view: { indexOf(value: Uint8Array, from: number): number },
  line: Uint8Array,
  from: number,
  to: number,
  start: number,
  end: number
): boolean => {
  for (let p = view.indexOf(line, start); p !== -1 && p < end; p = view.indexOf(line, p + 1)) {
    if (p >= from && p < to) continue
    const after = p + line.length
    const atStart = p === start || bytes[p - 1] === NL
    const atEnd = after === bytes.length || bytes[after] === NL || (bytes[after] === 13 && (after + 1 === bytes.length || bytes[after + 1] === NL))
    if (atStart && atEnd) return true
  }
  return false
}

/**
 * `bytes` with [start, end) replaced by `middle`, in a buffer of the transactions' reused ones
 * (`bytes` stay as they are: the file as read is compared with the file again before the write).
 */
const splice = (bytes: Uint8Array, start: number, end: number, middle: Uint8Array): Uint8Array => {
  const length = bytes.length - (end - start) + middle.length
  const out = takeBuffer(length).subarray(0, length)
  out.set(bytes.subarray(0, start))
  out.set(middle, start)
  out.set(bytes.subarray(end), start + middle.length)
  return out
}

/** The edit on the file's `bytes`, or undefined when only the decoded file can decide it. */
export const editBytes = (
  shown: string,
  bytes: Uint8Array,
  oldString: string,
  newString: string,
  replaceAll: boolean
): ByteEdit | undefined => {
  if (NativeBuffer === undefined) return undefined
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  const start = bom ? 3 : 0
  if (!bom && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) return undefined
  const quote = oldString.replaceAll("\r\n", "\n").split("\n")
  const first = quote.find((l) => l.trim().length > 0)
  if (first === undefined || !isUtf8(bytes)) return undefined
  const byLength = [...new Set(quote.map((l) => l.trim()).filter((l) => l.length > 0))].sort((a, b) => b.length - a.length)
  const keys = [first.trim(), ...byLength.filter((k) => k !== first.trim())]
  const view = NativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  // The anchor: the first line, else the longest of a few lines, that occurs only a few times.
  let found: Array<number> | undefined
  let anchor = ""
  for (const key of keys.slice(0, MAX_PROBES)) {
    found = occurrences(view, encoder.encode(key), start, MAX_OCCURRENCES)
    anchor = key
    if (found !== undefined) break
  }
  if (found === undefined || found.length === 0) return undefined
  // A candidate holds the anchor on one of its quote.length lines: that many lines either side
  // of every occurrence, plus the margin, hold every candidate and its context.
  const reach = quote.length + MARGIN
  const from = back(bytes, found[0]!, reach, start)
  const to = forward(bytes, found[found.length - 1]!, reach)
  const windowBytes = bytes.subarray(from, to)
  const text = decoder.decode(windowBytes)
  const outcome = applyEdit(text, oldString, newString, replaceAll)
  // Quotes that only matched without the read tool's line numbers were retried after nothing
  // matched in the window, which says nothing of the rest of the file.
  if (outcome._tag !== "Edited" || !LINE_STRATEGIES.has(outcome.strategy) || outcome.lineNumbersStripped) return undefined
  const ascii = windowBytes.length === text.length
  const byteAt = (offset: number) => from + (ascii ? offset : encoder.encode(text.slice(0, offset)).length)
  const spliceStart = byteAt(outcome.span.start)
  const spliceEnd = byteAt(outcome.span.end)
  // A re-indented match is ambiguous when the quote's first line, as quoted, is a whole line
  // elsewhere (another scope): the whole cascade decides and explains that. When the first line is
  // the anchor, all its occurrences are in the window, and only the window is searched.
  if (
    outcome.strategy !== "exact" && outcome.strategy !== "multi-occurrence" &&
    wholeLineOutside(bytes, view, encoder.encode(first), spliceStart, spliceEnd, anchor === first.trim() ? from : start, anchor === first.trim() ? to : bytes.length)
  ) {
    return undefined
  }
  const firstLine = countNewlines(bytes, from)
  return {
    bytes: splice(bytes, spliceStart, spliceEnd, encoder.encode(outcome.span.text)),
    diff: spanDiff(shown, text, outcome.span, firstLine),
    bom,
    strategy: outcome.strategy,
    matches: outcome.matches.map((m) => ({ startLine: m.startLine + firstLine, endLine: m.endLine + firstLine })),
    reindented: outcome.reindented,
    unescaped: outcome.unescaped,
    lineNumbersStripped: false,
    lineCompleted: outcome.lineCompleted
  }
}
