/**
 * The replacement for a line match is a three-way merge, not newString pasted over the block:
 * base = oldString's lines, ours = newString's lines, theirs = the file's matched lines.
 * - A line the edit keeps (equal in oldString and newString) is written as the FILE has it, so a
 *   fuzzy match never replaces text outside what the model actually changed (field failure B12).
 * - A line the edit removes or rewrites must equal its file line up to whitespace; otherwise the
 *   model changed a line it misremembered, and the edit is refused (Conflict) rather than guessed.
 * - Added lines are re-indented from oldString's indentation to the file's (B19: tabs vs spaces,
 *   a block quoted one level off).
 */
import { collapse, type Candidate, type Find } from "./doc.ts"

export type MergeResult =
  | { readonly _tag: "Merged"; readonly text: string; readonly reindented: boolean }
  | { readonly _tag: "Conflict"; readonly line: number; readonly fileText: string; readonly oldText: string }

type Op = { readonly op: "=" ; readonly o: number; readonly n: number } | { readonly op: "-"; readonly o: number } | {
  readonly op: "+"
  readonly n: number
}

// Above this many DP cells the middle is treated as replaced wholesale (oldString and newString are
// model-written, so this only bounds a pathological call).
const MAX_LCS_CELLS = 4_000_000

/** Line diff of a → b: common prefix and suffix, then LCS on what is left. */
export const lineOps = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<Op> => {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const ops: Array<Op> = []
  for (let i = 0; i < head; i++) ops.push({ op: "=", o: i, n: i })
  const n = a.length - head - tail
  const m = b.length - head - tail
  if (n * m > MAX_LCS_CELLS) {
    for (let i = 0; i < n; i++) ops.push({ op: "-", o: head + i })
    for (let j = 0; j < m; j++) ops.push({ op: "+", n: head + j })
  } else {
    // lcs[i][j] = LCS length of a[head+i..] and b[head+j..]
    const w = m + 1
    const lcs = new Int32Array((n + 1) * w)
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = a[head + i] === b[head + j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!)
      }
    }
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && a[head + i] === b[head + j]) ops.push({ op: "=", o: head + i++, n: head + j++ })
      // Removals before additions, so a replaced line's new text lands where the old one was.
      else if (i < n && (j === m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) ops.push({ op: "-", o: head + i++ })
      else ops.push({ op: "+", n: head + j++ })
    }
  }
  for (let i = tail; i > 0; i--) ops.push({ op: "=", o: a.length - i, n: b.length - i })
  return ops
}

const indentOf = (s: string): string => /^[ \t]*/.exec(s)![0]

/** The smallest step between distinct indentation widths (the indent unit), or `fallback`. */
const unitOf = (indents: Iterable<string>, fallback: number): number => {
  const widths = [...new Set([...indents].map((i) => i.length))].sort((x, y) => x - y)
  let unit = Infinity
  for (let k = 1; k < widths.length; k++) unit = Math.min(unit, widths[k]! - widths[k - 1]!)
  if (unit === Infinity && widths.length === 1 && widths[0]! > 0) unit = widths[0]!
  return unit === Infinity || unit === 0 ? fallback : unit
}

/**
 * Maps oldString's indentation to the file's, learnt from the matched line pairs. `undefined`
 * when nothing moves (or the pairs disagree, e.g. a block whose lines drifted differently).
 */
export const makeReindent = (pairs: ReadonlyArray<readonly [string, string]>): ((line: string) => string) | undefined => {
  const map = new Map<string, string>()
  for (const [o, f] of pairs) {
    if (o.trim().length === 0 || f.trim().length === 0) continue
    const oi = indentOf(o)
    const fi = indentOf(f)
    const known = map.get(oi)
    if (known !== undefined && known !== fi) return undefined
    map.set(oi, fi)
  }
  if ([...map].every(([o, f]) => o === f)) return undefined
  const fileTabs = [...map.values()].some((f) => f.includes("\t")) && [...map.values()].every((f) => !f.includes(" "))
  const oldTabs = [...map.keys()].some((o) => o.includes("\t")) && [...map.keys()].every((o) => !o.includes(" "))
  const oldUnit = unitOf(map.keys(), 4)
  const fileUnit = unitOf(map.values(), oldUnit)
  // Extra depth beyond a known indentation is converted into the file's style.
  const convert = (extra: string): string => {
    if (fileTabs && !oldTabs) return extra.replace(new RegExp(` {1,${oldUnit}}`, "g"), "\t")
    if (!fileTabs && oldTabs) return extra.replaceAll("\t", " ".repeat(fileUnit))
    return extra
  }
  const keys = [...map.keys()].sort((x, y) => y.length - x.length)
  return (line) => {
    if (line.trim().length === 0) return line
    const indent = indentOf(line)
    const exact = map.get(indent)
    if (exact !== undefined) return exact + line.slice(indent.length)
    const base = keys.find((k) => indent.startsWith(k))
    if (base === undefined) return line
    return map.get(base)! + convert(indent.slice(base.length)) + line.slice(indent.length)
  }
}

const splitNew = (s: string): { readonly lines: Array<string>; readonly trailingNewline: boolean } => {
  if (s.length === 0) return { lines: [], trailingNewline: false }
  const lines = s.split("\n")
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === ""
  if (trailingNewline) lines.pop()
  return { lines, trailingNewline }
}

/** The merged replacement for a line candidate; a Conflict's `line` is relative to the candidate. */
export const merge = (find: Find, cand: Candidate, newString: string): MergeResult => {
  const align = cand.align!
  const lines = cand.lines!
  const fresh = splitNew(newString)
  const aligned = new Set(align.filter((t) => t >= 0))
  const pairs = find.lines.flatMap((o, i) => (align[i]! >= 0 ? [[o, lines[align[i]!]!] as const] : []))
  const reindent = makeReindent(pairs)
  const out: Array<string> = []
  let f = 0
  const flushUntil = (target: number) => {
    for (; f < target; f++) if (!aligned.has(f)) out.push(lines[f]!)
  }
  for (const step of lineOps(find.lines, fresh.lines)) {
    if (step.op === "+") {
      const line = fresh.lines[step.n]!
      out.push(reindent === undefined ? line : reindent(line))
      continue
    }
    const t = align[step.o]!
    if (t < 0) continue
    if (step.op === "-" && collapse(find.lines[step.o]!) !== collapse(lines[t]!)) {
      return { _tag: "Conflict", line: t, fileText: lines[t]!, oldText: find.lines[step.o]! }
    }
    flushUntil(t)
    if (step.op === "=") out.push(lines[t]!)
    f = t + 1
  }
  flushUntil(lines.length)
  const regionHasNewline = cand.end > cand.start + lines.reduce((n, l) => n + l.length + 1, -1)
  const trailing = fresh.trailingNewline && (regionHasNewline || !find.wholeLines)
  return { _tag: "Merged", text: out.join("\n") + (trailing ? "\n" : ""), reindented: reindent !== undefined }
}
