/**
 * The similarity strategies: block-anchor (first and last lines equal after trimming, the lines in
 * between similar) and context-aware (the lines in between mostly equal, the anchors only similar).
 * Blank lines are ignored when lining the block up ("missing blank lines" is a common model slip),
 * so a candidate has exactly as many non-blank lines as oldString: a block never grows or shrinks
 * past what the model quoted (opencode's R07/R30 "dangling tail" writes).
 */
import { type Candidate, looseKey, type Doc, type Find, lineEnd, lineRegion, lineStart } from "./doc.ts"
import { similarity } from "./similarity.ts"

/**
 * Every aligned line that is not equal (whitespace collapsed) must be at least this similar
 * (1 − Levenshtein / length). Chosen from these cases:
 * - field failure B12: `y := 2` in the file, `y := 99` in oldString → 0.71: must be refused, the
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
 * are 0.93 alike by edit distance but a different value, not a typo (B12's `y := 2` / `y := 99`).
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

export const lineSimilarity = (a: string, b: string): number =>
  numbers(a) !== numbers(b) || !sameWords(a, b) ? 0 : similarity(a, b, LINE_SIMILARITY)

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
  readonly key: string
}

const nonBlank = (find: Find): Array<NonBlank> =>
  find.lines.flatMap((l, index) => (l.trim().length === 0 ? [] : [{ index, key: looseKey(l) }]))

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

const check = (nb: ReadonlyArray<NonBlank>, block: Block, from: number, to: number): Check => {
  let equal = 0
  let worst: Check["worst"]
  for (let j = from; j < to; j++) {
    const a = nb[j]!.key
    const b = looseKey(block.lines[block.idx[j]!]!)
    if (a === b) {
      equal++
      continue
    }
    const s = lineSimilarity(a, b)
    if (worst === undefined || s < worst.similarity) worst = { j, similarity: s }
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

export const contextAware = (doc: Doc, find: Find, misses: Array<NearMiss>): Array<Candidate> => {
  const nb = nonBlank(find)
  if (nb.length < 3) return []
  const trimmed = doc.trimmed()
  // Middle lines equal after trimming locate the candidates (a collapsed-equal one still counts below).
  const middle = nb.slice(1, -1).map((x) => find.lines[x.index]!.trim())
  const wanted = new Set(middle)
  const positions = new Map<string, Array<number>>()
  trimmed.forEach((key, i) => {
    if (wanted.has(key)) positions.set(key, [...(positions.get(key) ?? []), i])
  })
  const seen = new Set<number>()
  const out: Array<Candidate> = []
  for (let j = 1; j < nb.length - 1; j++) {
    for (const p of positions.get(middle[j - 1]!) ?? []) {
      // Back from the matched middle line to where the block's first non-blank line is.
      let first = p
      for (let back = j; back > 0 && first > 0;) if (trimmed[--first]!.length > 0) back--
      if (trimmed[first]!.length === 0 || seen.has(first)) continue
      seen.add(first)
      const block = walkFrom(doc.text, doc.starts()[first]!, nb.length)
      if (block === undefined || block.idx[j] !== p - first) continue
      const all = check(nb, block, 0, nb.length)
      const enough = check(nb, block, 1, nb.length - 1).equal >= Math.ceil((nb.length - 2) * CONTEXT_EQUAL_SHARE)
      if (all.ok && enough) out.push(candidate(doc, find, nb, block))
      else if (!all.ok && enough) misses.push(miss(doc, find, nb, block, all))
    }
  }
  return out.sort((a, b) => a.start - b.start)
}
