/**
 * The edit cascade: opencode's nine replacers, reordered strictest-first and made safe.
 *
 * exact → indentation-flexible → line-trimmed → whitespace-normalized → escape-normalized →
 * trimmed-boundary → quote-normalized → block-anchor → context-aware; `multi-occurrence` is what an exact
 * `replaceAll` over several copies is reported as.
 *
 * Differences from opencode:
 * - each strategy returns ALL its candidates; two or more is an error naming their lines, fuzzy
 *   strategies included (opencode only rejects an exact text that occurs twice);
 * - the first strategy with a candidate decides: a later, looser one never overrides it;
 * - line matches are merged, not pasted (merge.ts), so untouched lines keep the file's bytes;
 * - a block found only after re-indenting is ambiguous when the file also has a block at the
 *   quoted indentation with the quote's first and last lines (a block in another scope);
 * - the similarity strategies need every differing line ≥ 0.85 alike and never accept a changed
 *   number (block.ts), and even then the merge refuses to rewrite a line the model misremembered;
 * - an oldString of only whitespace is matched exactly or not at all;
 * - the read tool's `N: ` line prefixes are removed when nothing matches as written;
 * - whitespace next to punctuation does not count (`myFunc( a, b )` is `myFunc(a, b)`), a
 *   different word on a line is never a typo, and of several similar blocks the one equal to the
 *   quote on every line is taken;
 * - newString is unescaped only when it is escaped like oldString, and a placeholder comment
 *   (`// ... existing code ...`) standing in for lines oldString has is refused;
 * - typographic quotes (“ ” ‘ ’) match straight ones and the reverse (quote-normalized), and the
 *   file keeps its own quote characters wherever newString repeats oldString;
 * - an oldString that stops inside a line, with a newString whose last line ends like that whole
 *   line, replaces the line to its end (the model meant the line, not a prefix of it);
 * - the result names the strategy and the matched lines.
 *
 * Works on the LF view of the text; the edit tool maps offsets back to the file's bytes. The early
 * strategies find candidates with native indexOf from an anchor line and never split the file, so
 * a drifted 30-line quote in a 20k-line file costs about one scan (bench/edit.bench.ts).
 */
import { escapeNormalized, trimLike, trimmedBoundary, unescape, unescapeLf } from "./boundary.ts"
import { blockAnchor, contextAware, type NearMiss } from "./block.ts"
import { type Candidate, type Doc, type Find, looseKey, makeDoc, makeFind, type StrategyName } from "./doc.ts"
import { type Anchored, anchored, indentationFlexible, lineTrimmed, whitespaceNormalized } from "./lines.ts"
import { merge } from "./merge.ts"
import { placeholderIn } from "./placeholder.ts"
import { quoteNormalized, withFileQuotes } from "./quotes.ts"

export type { NearMiss } from "./block.ts"
export { describe } from "./messages.ts"
export type { StrategyName } from "./doc.ts"

export interface Splice {
  /** Offsets in the LF view. */
  readonly start: number
  readonly end: number
  /** Replacement text, LF line endings. */
  readonly text: string
}

export interface LineRange {
  /** 1-based, inclusive. */
  readonly startLine: number
  readonly endLine: number
}

export interface Plan {
  readonly _tag: "Plan"
  readonly strategy: StrategyName
  /** Sorted, non-overlapping. */
  readonly splices: ReadonlyArray<Splice>
  readonly matches: ReadonlyArray<LineRange>
  /** Added lines were re-indented to the file's indentation. */
  readonly reindented: boolean
  /** newString was unescaped like oldString had to be. */
  readonly unescaped: boolean
  /** The read tool's `N: ` line prefixes were removed from oldString (and newString). */
  readonly lineNumbersStripped?: boolean | undefined
  /** oldString stopped inside a line and the match was taken to that line's end (see `toLineEnd`). */
  readonly lineCompleted?: boolean | undefined
}

export type ReplaceError =
  | { readonly _tag: "Identical" }
  | { readonly _tag: "EmptyOldString" }
  | {
    readonly _tag: "NotFound"
    readonly tried: ReadonlyArray<StrategyName>
    readonly nearMiss: NearMiss | undefined
    readonly whitespaceOnly: boolean
  }
  | { readonly _tag: "Ambiguous"; readonly strategy: StrategyName; readonly matches: ReadonlyArray<LineRange>; readonly similarOnly: boolean }
  | {
    readonly _tag: "Conflict"
    readonly strategy: StrategyName
    readonly match: LineRange
    readonly line: number
    readonly fileText: string
    readonly oldText: string
  }
  | { readonly _tag: "NoChange"; readonly strategy: StrategyName }
  | { readonly _tag: "Placeholder"; readonly line: number; readonly text: string; readonly replaced: number }

interface Tier {
  readonly name: StrategyName
  readonly run: () => ReadonlyArray<Candidate>
  /** Candidates found by similarity only: replaceAll over several of them is refused. */
  readonly similar?: boolean
}

const tiers = (doc: Doc, find: Find, misses: Array<NearMiss>) => {
  let search: Anchored | undefined
  const anchor = () => (search ??= anchored(doc, find))
  const list: ReadonlyArray<Tier> = [
    { name: "exact", run: () => anchor().exact },
    { name: "indentation-flexible", run: () => indentationFlexible(doc, find, anchor().trimmed) },
    { name: "line-trimmed", run: () => lineTrimmed(doc, find, anchor().trimmed) },
    { name: "whitespace-normalized", run: () => whitespaceNormalized(doc, find) },
    { name: "escape-normalized", run: () => escapeNormalized(doc, find) },
    { name: "trimmed-boundary", run: () => trimmedBoundary(doc, find) },
    { name: "quote-normalized", run: () => quoteNormalized(doc, find) },
    { name: "block-anchor", run: () => blockAnchor(doc, find, misses), similar: true },
    { name: "context-aware", run: () => contextAware(doc, find, misses), similar: true }
  ]
  return { list, anchor }
}

const indentOf = (s: string) => s.slice(0, s.length - s.trimStart().length)

/**
 * A block matched only after re-indenting is not unique if the file also has a block at the
 * indentation oldString was quoted with, starting and ending with oldString's exact first and last
 * lines (the quote may belong to a different scope than the text it equals).
 */
const quotedIndentation = (doc: Doc, find: Find, match: Candidate, rare: ReadonlySet<string>): Array<Candidate> => {
  if (match.transform !== "lines") return []
  const nb = find.lines.filter((l) => l.trim().length > 0)
  const firstLine = match.lines!.find((l) => l.trim().length > 0)
  if (nb.length < 2 || firstLine === undefined || indentOf(firstLine) === indentOf(nb[0]!)) return []
  if (rare.has(nb[0]!.trim())) return [] // its text occurs once: in the match itself
  const text = doc.text
  const out: Array<Candidate> = []
  for (let p = text.indexOf(nb[0]!); p !== -1; p = text.indexOf(nb[0]!, p + 1)) {
    const atLineStart = p === 0 || text[p - 1] === "\n"
    const end = p + nb[0]!.length
    if (!atLineStart || (end < text.length && text[end] !== "\n") || (p >= match.start && p < match.end)) continue
    // Walk as many non-blank lines as oldString has; the last must be oldString's last, exactly.
    const lines: Array<string> = []
    let seen = 0
    let from = p
    while (from <= text.length && seen < nb.length) {
      const e = text.indexOf("\n", from)
      const line = text.slice(from, e === -1 ? text.length : e)
      lines.push(line)
      if (line.trim().length > 0) seen++
      if (e === -1) break
      from = e + 1
    }
    if (seen === nb.length && lines[lines.length - 1] === nb[nb.length - 1]) {
      out.push({ start: p, end: p + lines.join("\n").length, transform: "lines", lines })
    }
  }
  return out
}

/**
 * Among blocks found by similarity, the one whose every non-blank line equals oldString's up to
 * whitespace, when exactly one is: the others differ by a word, it does not. Otherwise all of
 * them (the call is ambiguous).
 */
const clearlyBest = (find: Find, found: ReadonlyArray<Candidate>): ReadonlyArray<Candidate> => {
  const equal = found.filter((c) =>
    find.lines.every((l, i) => {
      const t = c.align![i]!
      return l.trim().length === 0 || (t >= 0 && looseKey(l) === looseKey(c.lines![t]!))
    })
  )
  return equal.length === 1 ? equal : found
}

/**
 * Characters a JSON- or string-escaped oldString had to write as escapes (`\n`, `\t`, quotes).
 * newString is escaped the same way when it has an escape and writes none of those characters raw.
 */
const ESCAPED_CHARS: ReadonlyArray<readonly [string, string]> = [["\n", "\\n"], ["\t", "\\t"], ['"', '\\"'], ["'", "\\'"], ["`", "\\`"]]

export const escapedLike = (oldString: string, newString: string): boolean => {
  if (unescape(newString) === newString) return false
  return ESCAPED_CHARS.every(([raw, escaped]) => !(oldString.includes(escaped) && !oldString.includes(raw) && newString.includes(raw)))
}

const range = (doc: Doc) => (c: Candidate): LineRange => {
  const startLine = doc.lineOf(c.start) + 1
  return { startLine, endLine: startLine + (c.end > c.start ? countNewlines(doc.text, c.start, c.end - 1) : 0) }
}

const countNewlines = (text: string, from: number, to: number): number => {
  let n = 0
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** Leftmost non-overlapping candidates (replaceAll), like String.replaceAll. */
const disjoint = (cands: ReadonlyArray<Candidate>): Array<Candidate> => {
  const out: Array<Candidate> = []
  for (const c of [...cands].sort((a, b) => a.start - b.start)) {
    const prev = out[out.length - 1]
    if (prev === undefined || c.start >= prev.end) out.push(c)
  }
  return out
}

// The read tool's `N: ` line prefix (an empty line may have lost its trailing space).
const READ_PREFIX = /^(\d+):(?: |$)/

/**
 * The text without read-output line prefixes, when every non-empty line has one and the numbers
 * run in sequence; undefined otherwise.
 */
export const stripReadPrefixes = (s: string): string | undefined => {
  let next: number | undefined
  const out: Array<string> = []
  for (const line of s.split("\n")) {
    if (line.length === 0) {
      out.push(line)
      continue
    }
    const m = READ_PREFIX.exec(line)
    if (m === null || (next !== undefined && Number(m[1]) !== next)) return undefined
    next = Number(m[1]) + 1
    out.push(line.slice(m[0].length))
  }
  return next === undefined ? undefined : out.join("\n")
}

/**
 * Where and what to replace, or why not. Pure: the content is the LF view of the file. When
 * nothing matches as written and oldString carries read-output line numbers, they are removed
 * (from newString too, if it has them) and the cascade runs once more.
 */
export const plan = (content: string, oldString: string, newString: string, replaceAll = false): Plan | ReplaceError => {
  if (oldString !== newString && oldString.length > 0) {
    const placeholder = placeholderIn(oldString.split("\n"), newString.split("\n"))
    if (placeholder !== undefined) return { _tag: "Placeholder", ...placeholder }
  }
  const direct = planOnce(content, oldString, newString, replaceAll)
  if (direct._tag !== "NotFound") return direct
  const old = stripReadPrefixes(oldString)
  if (old === undefined) return direct
  const retry = planOnce(content, old, stripReadPrefixes(newString) ?? newString, replaceAll)
  if (retry._tag === "NotFound") return direct
  return retry._tag === "Plan" ? { ...retry, lineNumbersStripped: true } : retry
}

const planOnce = (content: string, oldString: string, newString: string, replaceAll: boolean): Plan | ReplaceError => {
  if (oldString === newString) return { _tag: "Identical" }
  if (oldString.length === 0) return { _tag: "EmptyOldString" }
  const doc = makeDoc(content)
  const find = makeFind(oldString)
  const ranges = range(doc)
  const whitespaceOnly = oldString.trim().length === 0
  const misses: Array<NearMiss> = []
  const tried: Array<StrategyName> = []
  const { list, anchor } = tiers(doc, find, misses)
  for (const tier of list) {
    if (whitespaceOnly && tier.name !== "exact") break
    tried.push(tier.name)
    let found = tier.run()
    if (found.length === 0) continue
    if (found.length > 1 && !replaceAll && tier.similar === true) found = clearlyBest(find, found)
    if (found.length > 1 && (!replaceAll || tier.similar === true)) {
      return { _tag: "Ambiguous", strategy: tier.name, matches: found.map(ranges), similarOnly: replaceAll }
    }
    const elsewhere = found.length === 1 ? quotedIndentation(doc, find, found[0]!, anchor().rare) : []
    if (elsewhere.length > 0) {
      return { _tag: "Ambiguous", strategy: tier.name, matches: [found[0]!, ...elsewhere].map(ranges), similarOnly: false }
    }
    let lineCompleted = false
    const chosen = disjoint(found).map((c) => {
      const whole = toLineEnd(content, c, oldString, newString)
      lineCompleted ||= whole !== c
      return whole
    })
    const splices: Array<Splice> = []
    let reindented = false
    for (const c of chosen) {
      if (c.transform === "lines") {
        const merged = merge(find, c, newString)
        if (merged._tag === "Conflict") {
          const match = ranges(c)
          return { _tag: "Conflict", strategy: tier.name, match, line: match.startLine + merged.line, fileText: merged.fileText, oldText: merged.oldText }
        }
        reindented ||= merged.reindented
        splices.push({ start: c.start, end: c.end, text: merged.text })
      } else {
        const text = c.transform === "unescape"
          ? (escapedLike(oldString, newString) ? unescapeLf(newString) : newString)
          : c.transform === "trim-boundary"
          ? trimLike(oldString, newString)
          : c.transform === "quotes"
          ? withFileQuotes(oldString, content.slice(c.start, c.start + oldString.length), newString)
          : newString
        splices.push({ start: c.start, end: c.end, text })
      }
    }
    if (splices.every((s) => content.slice(s.start, s.end) === s.text)) return { _tag: "NoChange", strategy: tier.name }
    let matches: ReadonlyArray<LineRange> | undefined
    return {
      _tag: "Plan",
      strategy: tier.name === "exact" && chosen.length > 1 ? "multi-occurrence" : tier.name,
      splices,
      // Line numbers cost a count over the text before the match: only when someone asks.
      get matches() {
        return (matches ??= chosen.map(ranges))
      },
      reindented,
      unescaped: tier.name === "escape-normalized" && escapedLike(oldString, newString) && unescape(newString) !== newString,
      ...(lineCompleted ? { lineCompleted } : {})
    }
  }
  return { _tag: "NotFound", tried, nearMiss: misses[0], whitespaceOnly }
}

/**
 * A match that ends inside a line of the file, taken to the line's end when newString's last line
 * ends with the rest of that line: the model quoted the line cut off but wrote it whole (or edited)
 * in newString, and replacing only the prefix would leave the tail twice (`x = f(); = f();`).
 */
const toLineEnd = (content: string, c: Candidate, oldString: string, newString: string): Candidate => {
  if (c.transform !== "verbatim" && c.transform !== "quotes") return c
  if (oldString.endsWith("\n") || c.end >= content.length || content[c.end] === "\n") return c
  const eol = content.indexOf("\n", c.end)
  const end = eol === -1 ? content.length : eol
  const rest = content.slice(c.end, end)
  const lastNew = newString.slice(newString.lastIndexOf("\n") + 1)
  if (rest.trim().length === 0 || !lastNew.endsWith(rest) || lastNew.length <= rest.length) return c
  // `f(g(x)` → `f(g(h(x))` in `f(g(x))` adds a call, not the line's tail: the whole line written
  // in newString nests its brackets like the file's line does.
  const lineFrom = Math.max(c.start, content.lastIndexOf("\n", c.end - 1) + 1)
  if (nesting(lastNew) !== nesting(content.slice(lineFrom, end))) return c
  return { ...c, end }
}

/** Opening minus closing brackets. */
const nesting = (s: string): number => {
  let n = 0
  for (const ch of s) {
    if (ch === "(" || ch === "[" || ch === "{") n++
    else if (ch === ")" || ch === "]" || ch === "}") n--
  }
  return n
}

/** Applies a plan's splices to the content they were planned on. */
export const applyPlan = (content: string, p: Plan): string => {
  let out = ""
  let from = 0
  for (const s of p.splices) {
    out += content.slice(from, s.start) + s.text
    from = s.end
  }
  return out + content.slice(from)
}

/** plan + apply: the new content, or why not (the benchmark's entry point). */
export const replace = (content: string, oldString: string, newString: string, replaceAll = false): string | ReplaceError => {
  const p = plan(content, oldString, newString, replaceAll)
  return p._tag === "Plan" ? applyPlan(content, p) : p
}
