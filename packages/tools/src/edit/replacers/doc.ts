/**
 * What the replacers work on: the file's LF view, split into lines only when a strategy needs
 * every line (the early strategies find their candidates with native `indexOf` and never split a
 * 20k-line file), and the oldString split into lines.
 */

export type StrategyName =
  | "exact"
  | "multi-occurrence"
  | "indentation-flexible"
  | "line-trimmed"
  | "whitespace-normalized"
  | "escape-normalized"
  | "trimmed-boundary"
  | "quote-normalized"
  | "block-anchor"
  | "context-aware"

/** How a candidate's replacement text is made from newString. */
export type Transform =
  /** newString as given. */
  | "verbatim"
  /** newString without the leading/trailing whitespace oldString had and the match lacks. */
  | "trim-boundary"
  /** newString unescaped the way oldString had to be. */
  | "unescape"
  /** newString with the file's quote characters where it repeats oldString (quotes.ts). */
  | "quotes"
  /** Whole lines: a three-way merge of oldString → newString onto the file's lines (see merge.ts). */
  | "lines"

export interface Candidate {
  /** Offsets in the LF view: the region that is replaced. */
  readonly start: number
  readonly end: number
  readonly transform: Transform
  /** For `lines`: the file's lines of the region. */
  readonly lines?: ReadonlyArray<string> | undefined
  /** For `lines`: per oldString line, the index in `lines` it is aligned with (-1: a blank line the file lacks). */
  readonly align?: ReadonlyArray<number> | undefined
}

export interface Doc {
  readonly text: string
  /** Every line (computed on first use). */
  readonly lines: () => ReadonlyArray<string>
  /** Offset of each line's first character (computed with `lines`). */
  readonly starts: () => ReadonlyArray<number>
  readonly trimmed: () => ReadonlyArray<string>
  /** 0-based line of an offset. */
  readonly lineOf: (offset: number) => number
}

/** Whitespace runs collapsed to one space, ends trimmed. */
export const collapse = (s: string): string => s.replace(/\s+/g, " ").trim()

/**
 * A line's text up to whitespace: runs collapsed, and none kept next to punctuation, so
 * `function  myFunc( a, b )` and `function myFunc(a, b)` have the same key. Whitespace between
 * two words stays (one space), so `return x` never equals `returnx`.
 */
export const looseKey = (s: string): string => collapse(s).replace(/ ?([^\w\s$]) ?/g, "$1")

export const makeDoc = (text: string): Doc => {
  let lines: Array<string> | undefined
  let starts: Array<number> | undefined
  let trimmed: ReadonlyArray<string> | undefined
  const split = () => {
    if (lines !== undefined) return
    lines = text.split("\n")
    starts = new Array(lines.length)
    let offset = 0
    for (let i = 0; i < lines.length; i++) {
      starts[i] = offset
      offset += lines[i]!.length + 1
    }
  }
  return {
    text,
    lines: () => (split(), lines!),
    starts: () => (split(), starts!),
    trimmed: () => (trimmed ??= (split(), lines!.map((l) => l.trim()))),
    lineOf: (off) => {
      if (starts === undefined) {
        // A few lookups (the matched lines) are cheaper counted than a whole split.
        let n = 0
        for (let i = text.indexOf("\n"); i !== -1 && i < off; i = text.indexOf("\n", i + 1)) n++
        return n
      }
      let lo = 0
      let hi = starts.length - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1
        if (starts[mid]! <= off) lo = mid
        else hi = mid - 1
      }
      return lo
    }
  }
}

/** Start of the line that contains offset `i`. */
export const lineStart = (text: string, i: number): number => (i <= 0 ? 0 : text.lastIndexOf("\n", i - 1) + 1)

/** End (the newline's offset, or the text's length) of the line that contains offset `i`. */
export const lineEnd = (text: string, i: number): number => {
  const e = text.indexOf("\n", i)
  return e === -1 ? text.length : e
}

export interface Find {
  /** oldString in its LF form. */
  readonly raw: string
  /** Its lines, without the empty one after a final newline. */
  readonly lines: ReadonlyArray<string>
  /** oldString ended with a newline: line matches then include the last line's terminator. */
  readonly wholeLines: boolean
}

export const makeFind = (raw: string): Find => {
  const lines = raw.split("\n")
  const wholeLines = lines.length > 1 && lines[lines.length - 1] === ""
  if (wholeLines) lines.pop()
  return { raw, lines, wholeLines }
}

/**
 * A region of whole lines from `start` (a line start) over `lines`, with the last terminator
 * when oldString had one and the file has it.
 */
export const lineRegion = (
  doc: Doc,
  find: Find,
  start: number,
  lines: ReadonlyArray<string>,
  align: ReadonlyArray<number>
): Candidate => {
  let end = start
  for (let i = 0; i < lines.length; i++) end += lines[i]!.length + (i < lines.length - 1 ? 1 : 0)
  return { start, end: find.wholeLines && end < doc.text.length ? end + 1 : end, transform: "lines", lines, align }
}

/** Every occurrence of `needle`, overlapping ones included (`foo\nfoo\n` twice in `foo\nfoo\nfoo\n`). */
export const occurrences = (doc: Doc, needle: string, transform: Transform): Array<Candidate> => {
  const out: Array<Candidate> = []
  if (needle.length === 0) return out
  for (let i = doc.text.indexOf(needle); i !== -1; i = doc.text.indexOf(needle, i + 1)) {
    out.push({ start: i, end: i + needle.length, transform })
  }
  return out
}

export const identity = (n: number): Array<number> => Array.from({ length: n }, (_, i) => i)
