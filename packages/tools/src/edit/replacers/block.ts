/**
 * The similarity strategies: block-anchor (first and last lines equal after trimming, the lines in
 * between similar) and context-aware (the lines in between mostly equal, the anchors only similar).
 * Blank lines are ignored when lining the block up ("missing blank lines" is a common model slip),
 * so a candidate has exactly as many non-blank lines as oldString: a block never grows or shrinks
 * past what the model quoted (opencode's "dangling tail" writes).
 */
import { type Candidate, looseKey, type Doc, type Find, lineEnd, lineRegion, lineStart } from "./doc.ts"
import { similarity } from "../../internal/similarity.ts"

/**
 * Every aligned line that is not equal (whitespace collapsed) must be at least this similar
 * (1 − Levenshtein / length). Chosen from these cases:
 * - `y := 2` in the file, `y := 99` in oldString → 0.71: must be refused, the
 *   model believes a value the file does not hold;
 * - a one-character value change on a short line (`x = 1` / `x = 2`) → 0.80: refused for the same
 *   reason;
 * - a typo, a quote-style slip or a dropped trailing comma on an ordinary code line (15+ chars)
 *   → 0.87–0.95: accepted, it is the same line.
 * opencode's 0.0 / 0.3 (snapshot A) and 0.65 averaged with an early exit (L) accept whole blocks
 * whose middle the model never saw. Here even an accepted line is not overwritten with the model's
 * version unless the edit changes it, and then only if it was equal (merge.ts): the threshold
 * decides where the edit goes, the merge decides what is written.
 */
export const LINE_SIMILARITY = 0.85

/**
 * Lines whose numbers differ are never similar, however long: `timeout: 3000` and `timeout: 5000`
 * are 0.93 alike by edit distance but a different value, not a typo (so are `y := 2` and `y := 99`).
 */
const numbers = (s: string) => s.match(/\d+/g)?.join(",") ?? ""

/** How alike two words must be to be one word misspelt (`retries` / `retrys` 0.86, `owner` / `admin` 0). */
const WORD_TYPO = 0.6

const words = (s: string) => s.match(/[A-Za-z_$][\w$]*/g) ?? []

/**
 * The words one line has and the other lacks pair up as typos of each other (a leftover
 * one-letter word, like the `s` of `user's`, is allowed). A different identifier on a long line
 * is only a few characters of edit distance, but a different line: `{ where: { owner: id } }` is
 * not `{ where: { admin: id } }`.
 */
const sameWords = (a: string, b: string): boolean => {
  const left = new Map<string, number>()
  for (const w of words(a)) left.set(w, (left.get(w) ?? 0) + 1)
  const onlyB: Array<string> = []
  for (const w of words(b)) {
    const n = left.get(w) ?? 0
    if (n > 0) left.set(w, n - 1)
    else onlyB.push(w)
  }
  const onlyA = [...left].flatMap(([w, n]) => Array<string>(n).fill(w))
  const unpaired = (ws: ReadonlyArray<string>, from: number) => ws.slice(from).every((w) => w.length <= 1)
  const pairs = Math.min(onlyA.length, onlyB.length)
  for (let i = 0; i < pairs; i++) if (similarity(onlyA[i]!, onlyB[i]!, WORD_TYPO) < WORD_TYPO) return false
  return unpaired(onlyA, pairs) && unpaired(onlyB, pairs)
}

export const lineSimilarity = (a: string, b: string): number => similarLines(a, numbers(a), b, numbers(b))

/** lineSimilarity with the lines' numbers already extracted; the costly word check runs last. */
const similarLines = (a: string, aNumbers: string, b: string, bNumbers: string): number => {
  if (aNumbers !== bNumbers) return 0
  const s = similarity(a, b, LINE_SIMILARITY)
  return s >= LINE_SIMILARITY && !sameWords(a, b) ? 0 : s
}

/** Share of the middle lines context-aware needs equal (opencode's ContextAware rule). */
const CONTEXT_EQUAL_SHARE = 0.5

/** A block that lined up but failed the similarity test: reported when nothing matches. */
export interface NearMiss {
  /** 0-based file lines of the block. */
  readonly firstLine: number
  readonly lastLine: number
  /** The worst line: 0-based file line, its text, oldString's text, and their similarity. */
  readonly line: number
  readonly fileText: string
  readonly oldText: string
  readonly similarity: number
}

interface NonBlank {
  readonly index: number
  readonly trimmed: string
  readonly key: string
  readonly numbers: string
}

const nonBlank = (find: Find): Array<NonBlank> =>
  find.lines.flatMap((l, index) => {
    const trimmed = l.trim()
    if (trimmed.length === 0) return []
    const key = looseKey(l)
    return [{ index, trimmed, key, numbers: numbers(key) }]
  })

/** A run of file lines lined up with oldString's non-blank lines. */
interface Block {
  /** Offset of the first line. */
  readonly start: number
  /** Every line of the run, blank ones included. */
  readonly lines: ReadonlyArray<string>
  /** Index in `lines` of each non-blank line (as many as oldString has). */
  readonly idx: ReadonlyArray<number>
}

/**
 * oldString line → index in the block. Blank lines between two aligned lines pair up in order;
 * extra ones stay unaligned, as do leading and trailing blank oldString lines.
 */
const alignment = (find: Find, nb: ReadonlyArray<NonBlank>, idx: ReadonlyArray<number>): Array<number> => {
  const align = new Array<number>(find.lines.length).fill(-1)
  for (let j = 0; j < nb.length; j++) {
    align[nb[j]!.index] = idx[j]!
    if (j === 0) continue
    let f = idx[j - 1]! + 1
    for (let i = nb[j - 1]!.index + 1; i < nb[j]!.index && f < idx[j]!; i++, f++) align[i] = f
  }
  return align
}

/** The block of `count` non-blank lines starting at the line that starts at `start`, if the text has them. */
const walkFrom = (text: string, start: number, count: number): Block | undefined => {
  const lines: Array<string> = []
  const idx: Array<number> = []
  let from = start
  while (idx.length < count) {
    const e = lineEnd(text, from)
    const line = text.slice(from, e)
    if (line.trim().length > 0) idx.push(lines.length)
    lines.push(line)
    if (e >= text.length) break
    from = e + 1
  }
  return idx.length === count ? { start, lines, idx } : undefined
}

interface Check {
  readonly ok: boolean
  readonly worst?: { readonly j: number; readonly similarity: number } | undefined
  readonly equal: number
}

/**
 * Lines from..to-1 of oldString against the block: equal (trimmed, then up to whitespace) or
 * similar enough. `firstFailure` stops at the first line that is neither (a quick no), else the
 * worst line is found.
 */
const check = (nb: ReadonlyArray<NonBlank>, block: Block, from: number, to: number, firstFailure = false): Check => {
  let equal = 0
  let worst: Check["worst"]
  for (let j = from; j < to; j++) {
    const line = block.lines[block.idx[j]!]!
    if (line.trim() === nb[j]!.trimmed) {
      equal++
      continue
    }
    // Whitespace does not change a line's numbers: a different number fails before any key is made.
    const lineNumbers = numbers(line)
    if (lineNumbers !== nb[j]!.numbers) {
      if (worst === undefined || worst.similarity > 0) worst = { j, similarity: 0 }
      if (firstFailure) break
      continue
    }
    const b = looseKey(line)
    if (b === nb[j]!.key) {
      equal++
      continue
    }
    const s = similarLines(nb[j]!.key, nb[j]!.numbers, b, lineNumbers)
    if (worst === undefined || s < worst.similarity) worst = { j, similarity: s }
    if (firstFailure && s < LINE_SIMILARITY) break
  }
  return { ok: worst === undefined || worst.similarity >= LINE_SIMILARITY, worst, equal }
}

const candidate = (doc: Doc, find: Find, nb: ReadonlyArray<NonBlank>, block: Block): Candidate =>
  lineRegion(doc, find, block.start, block.lines, alignment(find, nb, block.idx))

const miss = (doc: Doc, find: Find, nb: ReadonlyArray<NonBlank>, block: Block, c: Check): NearMiss => {
  const j = c.worst!.j
  const firstLine = doc.lineOf(block.start)
  return {
    firstLine,
    lastLine: firstLine + block.lines.length - 1,
    line: firstLine + block.idx[j]!,
    fileText: block.lines[block.idx[j]!]!,
    oldText: find.lines[nb[j]!.index]!,
    similarity: c.worst!.similarity
  }
}

/** Anchored on the first line with `indexOf`: the file is never split. */
export const blockAnchor = (doc: Doc, find: Find, misses: Array<NearMiss>): Array<Candidate> => {
  const nb = nonBlank(find)
  // Two lines have no middle: both must equal the file's, only blank lines in between may differ.
  if (nb.length < 2) return []
  const text = doc.text
  const first = find.lines[nb[0]!.index]!.trim()
  const last = find.lines[nb[nb.length - 1]!.index]!.trim()
  const out: Array<Candidate> = []
  let previous = -1
  for (let p = text.indexOf(first); p !== -1; p = text.indexOf(first, p + 1)) {
    const s = lineStart(text, p)
    if (s === previous || text.slice(s, lineEnd(text, p)).trim() !== first) continue
    previous = s
    const block = walkFrom(text, s, nb.length)
    if (block === undefined) break
    if (block.lines[block.lines.length - 1]!.trim() !== last) continue
    const c = check(nb, block, 1, nb.length - 1)
    if (c.ok) out.push(candidate(doc, find, nb, block))
    else misses.push(miss(doc, find, nb, block, c))
  }
  return out
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff

// Per non-blank line of the text: its start, trimmed start and end, and line number, and the
// votes for a block starting there. Kept from one call to the next and grown as needed: a large
// file's arrays would otherwise be made on every call, after a pass that counts its lines.
let lineArrays = { starts: new Int32Array(0), from: new Int32Array(0), to: new Int32Array(0), lineNo: new Int32Array(0), votes: new Int32Array(0) }

const arraysFor = (capacity: number, keep: number) => {
  const old = lineArrays
  if (capacity <= old.starts.length) return old
  const size = Math.max(capacity, old.starts.length * 2, 1024)
  const grown = (a: Int32Array) => {
    const b = new Int32Array(size)
    b.set(a.subarray(0, keep))
    return b
  }
  lineArrays = { starts: grown(old.starts), from: grown(old.from), to: grown(old.to), lineNo: grown(old.lineNo), votes: grown(old.votes) }
  return lineArrays
}

/**
 * Whether text[from, to) holds exactly the numbers `expected` (as `numbers` writes them), read in
 * place: this runs for every line of every candidate block, and a match array per line was most
 * of the memory the strategy allocated.
 */
const numbersAre = (text: string, from: number, to: number, expected: string): boolean => {
  let k = 0
  let inRun = false
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) {
      if (!inRun && k > 0 && expected.charCodeAt(k++) !== 44) return false
      if (expected.charCodeAt(k++) !== c) return false
      inRun = true
    } else if (inRun) {
      inRun = false
      // The run ended: so must the expected number.
      if (k < expected.length && expected.charCodeAt(k) !== 44) return false
    }
  }
  return k === expected.length
}

/** Above this many lines holding the anchor's numbers, the whole text is scanned instead. */
const MAX_ANCHOR_LINES = 64

const isDigit = (c: number) => c >= 48 && c <= 57

/** Trimmed bounds of the line text[from, to), as the scan below trims. */
const trimmedBounds = (text: string, from: number, to: number): readonly [number, number] => {
  let a = from
  let b = to
  while (a < b && isSpace(text.charCodeAt(a))) a++
  while (b > a && isSpace(text.charCodeAt(b - 1))) b--
  return [a, b]
}

/**
 * The starts `contextAware` would check, found from one line instead of a pass over every line,
 * when a near miss is already reported (then a start some line rules out is skipped, and every
 * start left has, at oldString's line with the longest first number, a line holding exactly that
 * line's numbers: those lines are found with `indexOf`). Undefined when no line has a number of
 * two digits or more, or too many lines hold it: the caller scans the whole text.
 */
const anchoredStarts = (text: string, nb: ReadonlyArray<NonBlank>): Array<number> | undefined => {
  let anchor = -1
  let first = ""
  for (let j = 0; j < nb.length; j++) {
    const head = nb[j]!.numbers.split(",")[0]!
    if (head.length > first.length) [anchor, first] = [j, head]
  }
  if (anchor === -1 || first.length < 2) return undefined
  const starts: Array<number> = []
  let lastLine = -1
  for (let p = text.indexOf(first); p !== -1; p = text.indexOf(first, p + 1)) {
    if ((p > 0 && isDigit(text.charCodeAt(p - 1))) || isDigit(text.charCodeAt(p + first.length))) continue
    const line = lineStart(text, p)
    if (line === lastLine) continue
    lastLine = line
    const [a, b] = trimmedBounds(text, line, lineEnd(text, p))
    if (!numbersAre(text, a, b, nb[anchor]!.numbers)) continue
    // The block's first line: `anchor` non-blank lines up.
    let start = line
    for (let k = 0; k < anchor && start !== -1;) {
      if (start === 0) start = -1
      else {
        start = lineStart(text, start - 1)
        const [f, e] = trimmedBounds(text, start, lineEnd(text, start))
        if (e > f) k++
      }
    }
    if (start === -1) continue
    if (starts.length === MAX_ANCHOR_LINES) return undefined
    starts.push(start)
  }
  return starts
}

export const contextAware = (doc: Doc, find: Find, misses: Array<NearMiss>): Array<Candidate> => {
  const nb = nonBlank(find)
  if (nb.length < 3) return []
  const anchored = misses.length > 0 ? anchoredStarts(doc.text, nb) : undefined
  if (anchored !== undefined) return contextAt(doc, find, nb, anchored)
  // Middle lines equal after trimming locate the candidates: each such line votes for the block
  // start it implies (counted in non-blank lines), and only starts with enough votes are checked.
  // One pass over the text without splitting it: a line is cut out only when its trimmed length
  // is that of a middle line.
  const middle = new Map<string, Array<number>>()
  for (let j = 1; j < nb.length - 1; j++) {
    const js = middle.get(nb[j]!.trimmed)
    if (js === undefined) middle.set(nb[j]!.trimmed, [j])
    else js.push(j)
  }
  const lengths = new Set([...middle.keys()].map((k) => k.length))
  const text = doc.text
  let arrays = arraysFor(1024, 0)
  let count = 0
  for (let start = 0, n = 0; start <= text.length; n++) {
    let end = text.indexOf("\n", start)
    if (end === -1) end = text.length
    let a = start
    let b = end
    while (a < b && isSpace(text.charCodeAt(a))) a++
    while (b > a && isSpace(text.charCodeAt(b - 1))) b--
    if (b > a) {
      if (count === arrays.starts.length) arrays = arraysFor(count + 1, count)
      const votes = arrays.votes
      if (lengths.has(b - a)) {
        const js = middle.get(text.slice(a, b))
        if (js !== undefined) for (const j of js) if (count >= j) votes[count - j]!++
      }
      // Votes only ever go to earlier lines' starts: this one's count begins now.
      votes[count] = 0
      arrays.starts[count] = start
      arrays.from[count] = a
      arrays.to[count] = b
      arrays.lineNo[count++] = n
    }
    start = end + 1
  }
  const { starts, from, to, lineNo, votes } = arrays
  const needed = Math.ceil((nb.length - 2) * CONTEXT_EQUAL_SHARE)
  const out: Array<Candidate> = []
  for (let s = 0; s + nb.length <= count; s++) {
    if (votes[s]! < needed) continue
    // A line neither equal after trimming nor holding the same numbers rules the block out at once.
    let ruledOut = false
    for (let j = 0; j < nb.length && !ruledOut; j++) {
      const f = from[s + j]!
      const e = to[s + j]!
      const equal = e - f === nb[j]!.trimmed.length && text.slice(f, e) === nb[j]!.trimmed
      ruledOut = !equal && !numbersAre(text, f, e, nb[j]!.numbers)
    }
    if (ruledOut && misses.length > 0) continue // only the first near miss is reported
    const last = s + nb.length - 1
    const block: Block = {
      start: starts[s]!,
      lines: text.slice(starts[s]!, to[last]! + (text.indexOf("\n", to[last]!) === -1 ? text.length : text.indexOf("\n", to[last]!)) - to[last]!).split("\n"),
      idx: Array.from({ length: nb.length }, (_, j) => lineNo[s + j]! - lineNo[s]!)
    }
    const all = check(nb, block, 0, nb.length, true)
    if (all.ok) out.push(candidate(doc, find, nb, block))
    else if (misses.length === 0) misses.push(miss(doc, find, nb, block, all))
  }
  return out
}

/**
 * `contextAware` at the given line starts only (ascending, each the start of a non-blank line),
 * with a near miss already reported: the same votes, the same quick rule and the same check.
 */
const contextAt = (doc: Doc, find: Find, nb: ReadonlyArray<NonBlank>, starts: ReadonlyArray<number>): Array<Candidate> => {
  const text = doc.text
  const needed = Math.ceil((nb.length - 2) * CONTEXT_EQUAL_SHARE)
  const out: Array<Candidate> = []
  const from = new Int32Array(nb.length)
  const to = new Int32Array(nb.length)
  const lineNo = new Int32Array(nb.length)
  for (const start of starts) {
    // The block's non-blank lines, walked down from its start.
    let count = 0
    let at = start
    for (let n = 0; count < nb.length && at <= text.length; n++) {
      let end = text.indexOf("\n", at)
      if (end === -1) end = text.length
      const [a, b] = trimmedBounds(text, at, end)
      if (b > a) {
        from[count] = a
        to[count] = b
        lineNo[count++] = n
      }
      at = end + 1
    }
    if (count < nb.length) continue
    let votes = 0
    for (let j = 1; j < nb.length - 1; j++) {
      if (to[j]! - from[j]! === nb[j]!.trimmed.length && text.slice(from[j]!, to[j]!) === nb[j]!.trimmed) votes++
    }
    if (votes < needed) continue
    let ruledOut = false
    for (let j = 0; j < nb.length && !ruledOut; j++) {
      const equal = to[j]! - from[j]! === nb[j]!.trimmed.length && text.slice(from[j]!, to[j]!) === nb[j]!.trimmed
      ruledOut = !equal && !numbersAre(text, from[j]!, to[j]!, nb[j]!.numbers)
    }
    if (ruledOut) continue
    const last = nb.length - 1
    const eol = text.indexOf("\n", to[last]!)
    const block: Block = {
      start,
      lines: text.slice(start, eol === -1 ? text.length : eol).split("\n"),
      idx: Array.from({ length: nb.length }, (_, j) => lineNo[j]! - lineNo[0]!)
    }
    if (check(nb, block, 0, nb.length, true).ok) out.push(candidate(doc, find, nb, block))
  }
  return out
}
