/**
 * The exact and line-normalising strategies: exact, indentation-flexible, line-trimmed and
 * whitespace-normalized. Each returns every candidate region (never just the first), so the
 * cascade can refuse an ambiguous match with the line numbers of all of them.
 *
 * Candidates are found from an anchor with native `indexOf`, not by splitting the file: every
 * exact occurrence and every trimmed window contains the anchor (one of oldString's trimmed lines)
 * verbatim, so the anchor's occurrences are the only places worth looking at.
 */
import { type Candidate, type Doc, type Find, identity, lineEnd, lineRegion, lineStart, looseKey, occurrences } from "./doc.ts"

// Lines of oldString tried as the anchor before settling for a frequent one.
export const MAX_PROBES = 6


interface Window {
  readonly start: number
  readonly lines: ReadonlyArray<string>
}

/**
 * Windows of `keys.length` lines whose keys equal `keys`, among those that contain one of
 * `positions` in a line whose key occurs in `keys`. Walks lines outward from each position.
 */
const windowsAround = (
  text: string,
  positions: ReadonlyArray<number>,
  keys: ReadonlyArray<string>,
  key: (line: string) => string
): Array<Window> => {
  const k = keys.length
  const out: Array<Window> = []
  const seen = new Set<number>()
  let lastLine = -1
  for (const p of positions) {
    const s0 = lineStart(text, p)
    if (s0 === lastLine) continue // several positions on one line
    lastLine = s0
    const e0 = lineEnd(text, p)
    const line = text.slice(s0, e0)
    const lineKey = key(line)
    for (let j0 = 0; j0 < k; j0++) {
      if (keys[j0] !== lineKey) continue
      const lines = new Array<string>(k)
      lines[j0] = line
      let s = s0
      let ok = true
      for (let j = j0 - 1; j >= 0 && ok; j--) {
        if (s === 0) ok = false
        else {
          const ps = lineStart(text, s - 1)
          lines[j] = text.slice(ps, s - 1)
          ok = key(lines[j]!) === keys[j]
          s = ps
        }
      }
      let e = e0
      for (let j = j0 + 1; j < k && ok; j++) {
        if (e >= text.length) ok = false
        else {
          const ne = lineEnd(text, e + 1)
          lines[j] = text.slice(e + 1, ne)
          ok = key(lines[j]!) === keys[j]
          e = ne
        }
      }
      if (ok && !seen.has(s)) {
        seen.add(s)
        out.push({ start: s, lines })
      }
    }
  }
  return out.sort((a, b) => a.start - b.start)
}

const allOccurrences = (text: string, needle: string): Array<number> => {
  const out: Array<number> = []
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) out.push(i)
  return out
}

export interface Anchored {
  readonly exact: Array<Candidate>
  /** Windows whose lines equal oldString's lines after trimming. */
  readonly trimmed: Array<Window>
  /** Trimmed oldString lines known to occur at most once in the file. */
  readonly rare: ReadonlySet<string>
}

/** Exact occurrences and trimmed windows, from one anchor search. */
export const anchored = (doc: Doc, find: Find): Anchored => {
  const text = doc.text
  const keys = find.lines.map((l) => l.trim())
  const distinct = [...new Set(keys.filter((k) => k.length > 0))].sort((a, b) => b.length - a.length)
  const rare = new Set<string>()
  if (distinct.length === 0) return { exact: occurrences(doc, find.raw, "verbatim"), trimmed: [], rare }
  // The longest lines are tried first; one that occurs at most once ends the probing.
  let anchor: string | undefined
  let positions: Array<number> = []
  let best: { key: string; second: number } | undefined
  for (const key of distinct.slice(0, MAX_PROBES)) {
    const first = text.indexOf(key)
    if (first === -1) {
      rare.add(key)
      return { exact: [], trimmed: [], rare } // a line that is nowhere: no exact or trimmed match
    }
    const second = text.indexOf(key, first + 1)
    if (second === -1) {
      anchor = key
      positions = [first]
      rare.add(key)
      break
    }
    if (best === undefined || second > best.second) best = { key, second }
  }
  if (anchor === undefined) {
    anchor = best!.key
    positions = allOccurrences(text, anchor)
  }
  const d = find.raw.indexOf(anchor)
  const exact: Array<Candidate> = []
  for (const p of positions) {
    const s = p - d
    if (s >= 0 && text.startsWith(find.raw, s)) exact.push({ start: s, end: s + find.raw.length, transform: "verbatim" })
  }
  return { exact, trimmed: windowsAround(text, positions, keys, (l) => l.trim()), rare }
}

const toRegion = (doc: Doc, find: Find) => (w: Window): Candidate => lineRegion(doc, find, w.start, w.lines, identity(w.lines.length))

export const lineTrimmed = (doc: Doc, find: Find, windows: ReadonlyArray<Window>): Array<Candidate> => windows.map(toRegion(doc, find))

const indentWidth = (l: string) => l.length - l.trimStart().length

/** Lines with the block's common indentation removed (blank lines count as empty). */
const dedent = (lines: ReadonlyArray<string>): string => {
  let min = Infinity
  for (const l of lines) if (l.trim().length > 0) min = Math.min(min, indentWidth(l))
  return lines.map((l) => (l.trim().length === 0 ? "" : l.slice(min === Infinity ? 0 : min))).join("\n")
}

/**
 * The same lines with the same relative indentation, shifted as a block: stricter than
 * line-trimmed, so it runs first and a uniquely re-indented block is reported as such.
 */
export const indentationFlexible = (doc: Doc, find: Find, windows: ReadonlyArray<Window>): Array<Candidate> => {
  const want = dedent(find.lines)
  return windows.filter((w) => dedent(w.lines) === want).map(toRegion(doc, find))
}

/** How many times `needle` occurs, counting no further than `limit`. */
const countUpTo = (text: string, needle: string, limit: number): number => {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1 && n < limit; i = text.indexOf(needle, i + 1)) n++
  return n
}

/**
 * Of the longest words, the one that occurs least (a word that occurs at most once ends the
 * search), and where it occurs.
 */
const rarest = (text: string, words: ReadonlyArray<string>): Array<number> => {
  const longest = [...new Set(words)].sort((a, b) => b.length - a.length).slice(0, MAX_PROBES)
  // The first word that occurs at most once is the answer: looked for first, each only until it
  // is seen twice (a frequent first word would otherwise be counted through the whole text).
  for (const w of longest) {
    const first = text.indexOf(w)
    if (first === -1) return []
    if (text.indexOf(w, first + 1) === -1) return [first]
  }
  let best = longest[0]!
  let fewest = Infinity
  for (const w of longest) {
    const n = countUpTo(text, w, fewest)
    if (n < fewest) [best, fewest] = [w, n]
  }
  return allOccurrences(text, best)
}

/** Regex-escaped. */
const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A pattern for one line of text up to whitespace: any run of spaces or tabs between two words,
 * any (or none) next to punctuation.
 */
const loosePattern = (line: string): RegExp | undefined => {
  const tokens = line.trim().match(/[\w$]+|[^\w\s$]/g)
  if (tokens === null || tokens.length < 2) return undefined
  let source = literal(tokens[0]!)
  for (let i = 1; i < tokens.length; i++) {
    const words = /^[\w$]/.test(tokens[i - 1]!) && /^[\w$]/.test(tokens[i]!)
    source += (words ? "[ \\t]+" : "[ \\t]*") + literal(tokens[i]!)
  }
  // A word at either end is a whole word: `myFunc(a)` is not found inside `notmyFunc(a)`.
  const word = /^[\w$]/
  if (word.test(tokens[0]!)) source = "(?<![\\w$])" + source
  if (word.test(tokens[tokens.length - 1]!)) source += "(?![\\w$])"
  return new RegExp(source, "g")
}

/**
 * Lines equal up to whitespace (runs collapsed, none needed next to punctuation: `looseKey`),
 * anchored on oldString's longest word (words survive whitespace normalisation verbatim). A
 * one-line oldString that matches no whole line may also match inside a line, the same way.
 */
export const whitespaceNormalized = (doc: Doc, find: Find): Array<Candidate> => {
  const keys = find.lines.map(looseKey)
  const words = find.raw.match(/[\w$]+/g)
  if (words === null) return []
  const whole = windowsAround(doc.text, rarest(doc.text, words), keys, looseKey).map(toRegion(doc, find))
  if (whole.length > 0 || find.lines.length !== 1) return whole
  const pattern = loosePattern(find.raw)
  if (pattern === undefined) return []
  return [...doc.text.matchAll(pattern)].map((m) => ({ start: m.index, end: m.index + m[0].length, transform: "trim-boundary" as const }))
}
