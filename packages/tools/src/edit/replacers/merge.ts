/**
 * The replacement for a line match is a three-way merge, not newString pasted over the block:
 * base = oldString's lines, ours = newString's lines, theirs = the file's matched lines.
 * - A line the edit keeps (equal in oldString and newString) is written as the FILE has it, so a
 *   fuzzy match never replaces text outside what the model actually changed.
 * - A line the edit removes or rewrites must equal its file line up to whitespace; otherwise the
 *   model changed a line it misremembered, and the edit is refused (Conflict) rather than guessed.
 * - Added lines written at oldString's indentation are re-indented to the file's (tabs vs
 *   spaces, a block quoted one level off); written at the file's indentation already, they stay.
 * - A blank line newString adds where the file has one the quote left out is written once.
 */
import { type Candidate, type Find, looseKey } from "./doc.ts"
import { similarity } from "../../internal/similarity.ts"

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

const isBlank = (s: string) => s.trim().length === 0

/**
 * Which indentation newString is written in. A model that quoted oldString at the wrong depth
 * usually writes newString at that same depth ("quote": added lines are moved to the file's
 * depth), but sometimes writes newString at the file's real depth ("file": written as given).
 * Decided by the lines the edit keeps: on each kept line whose quoted indentation differs from
 * the file's, newString's indentation votes for the one it equals. Without such a line, the first
 * non-blank line of newString decides against its counterpart in oldString.
 */
const frameOf = (
  oldLines: ReadonlyArray<string>,
  fileOf: (i: number) => string | undefined,
  fresh: ReadonlyArray<string>
): "quote" | "file" => {
  let quote = 0
  let file = 0
  const trimmedOps = lineOps(oldLines.map((l) => l.trim()), fresh.map((l) => l.trim()))
  for (const step of trimmedOps) {
    if (step.op !== "=") continue
    const o = oldLines[step.o]!
    const f = fileOf(step.o)
    if (f === undefined || isBlank(o)) continue
    const oi = indentOf(o)
    const fi = indentOf(f)
    if (oi === fi) continue
    const ni = indentOf(fresh[step.n]!)
    if (ni === oi) quote++
    else if (ni === fi) file++
  }
  if (quote > 0 || file > 0) return file > quote ? "file" : "quote"
  const firstOld = oldLines.findIndex((l, i) => !isBlank(l) && fileOf(i) !== undefined)
  const firstNew = fresh.find((l) => !isBlank(l))
  if (firstOld < 0 || firstNew === undefined) return "quote"
  const oi = indentOf(oldLines[firstOld]!)
  const fi = indentOf(fileOf(firstOld)!)
  return oi !== fi && indentOf(firstNew) === fi ? "file" : "quote"
}

/**
 * Indentation of an added line from the line it replaces (or sits next to): the file's
 * indentation of that line, shifted by how much deeper or shallower newString's line is than
 * oldString's, converted between tabs and spaces. Used when the quote's indentation is not a
 * consistent shift of the file's (a block quoted flat, whose lines sit at different depths in the
 * file), where one mapping for the whole block cannot exist.
 */
const shiftFrom = (ref: readonly [string, string], tabs: { readonly quoteUnit: number; readonly fileUnit: number }) =>
(line: string): string => {
  const [o, f] = ref
  const ni = indentOf(line)
  const oi = indentOf(o)
  const fi = indentOf(f)
  const fileTabs = fi.includes("\t")
  const toFile = (extra: string) =>
    fileTabs
      ? extra.replace(new RegExp(` {1,${tabs.quoteUnit}}`, "g"), "\t")
      : extra.replaceAll("\t", " ".repeat(tabs.fileUnit))
  if (ni.startsWith(oi)) return fi + toFile(ni.slice(oi.length)) + line.slice(ni.length)
  if (oi.startsWith(ni)) {
    const less = toFile(oi.slice(ni.length))
    const base = fi.endsWith(less) ? fi.slice(0, fi.length - less.length) : fi.slice(0, Math.max(0, fi.length - less.length))
    return base + line.slice(ni.length)
  }
  return fi + line.slice(ni.length)
}

/**
 * The additions (op indexes) that are insertions rather than the new text of a removed line: in
 * each run of changes, those after the added line most like the last removed one (all of them
 * when nothing is removed). An insertion attaches to the kept line after it.
 */
const insertionsOf = (ops: ReadonlyArray<Op>, oldLines: ReadonlyArray<string>, newLines: ReadonlyArray<string>): Set<number> => {
  const out = new Set<number>()
  let lastRemoved: string | undefined
  let added: Array<number> = []
  const close = () => {
    let from = 0
    if (lastRemoved !== undefined) {
      const key = looseKey(lastRemoved)
      let best = -1
      added.forEach((s, i) => {
        const sim = similarity(key, looseKey(newLines[(ops[s] as { n: number }).n]!))
        if (sim > best) [best, from] = [sim, i + 1]
      })
    }
    for (const s of added.slice(from)) out.add(s)
    lastRemoved = undefined
    added = []
  }
  ops.forEach((step, s) => {
    if (step.op === "=") close()
    else if (step.op === "-") {
      if (oldLines[step.o]!.trim().length > 0) lastRemoved = oldLines[step.o]!
    } else added.push(s)
  })
  close()
  return out
}

type Item = { readonly text: string; readonly kind: "line" | "file-blank" | "added-blank" }

/**
 * Whether newString, like the quote, leaves out a blank line the file has: two lines the edit
 * keeps follow each other in newString, while the file has a blank line between them.
 */
const dropsFileBlanks = (ops: ReadonlyArray<Op>, align: ReadonlyArray<number>, lines: ReadonlyArray<string>): boolean => {
  let previous = -1
  for (const step of ops) {
    if (step.op !== "=") {
      previous = -1
      continue
    }
    const t = align[step.o]!
    if (t < 0) continue
    for (let f = previous + 1; previous >= 0 && f < t; f++) if (isBlank(lines[f]!)) return true
    previous = t
  }
  return false
}

/** The merged replacement for a line candidate; a Conflict's `line` is relative to the candidate. */
export const merge = (find: Find, cand: Candidate, newString: string): MergeResult => {
  const align = cand.align!
  const lines = cand.lines!
  const fresh = splitNew(newString)
  const aligned = new Set(align.filter((t) => t >= 0))
  const fileOf = (i: number) => (align[i]! >= 0 ? lines[align[i]!]! : undefined)
  const pairs = find.lines.flatMap((o, i) => (align[i]! >= 0 ? [[o, lines[align[i]!]!] as const] : []))
  const drifted = pairs.some(([o, f]) => !isBlank(o) && indentOf(o) !== indentOf(f))
  const frame = drifted ? frameOf(find.lines, fileOf, fresh.lines) : "file"
  // In the file's frame, a kept line is one newString repeats at the file's indentation.
  const oldKeys = frame === "file"
    ? find.lines.map((o, i) => {
      const f = fileOf(i)
      return f === undefined ? o : indentOf(f) + o.slice(indentOf(o).length)
    })
    : find.lines
  const uniform = frame === "quote" ? makeReindent(pairs) : undefined
  const units = {
    quoteUnit: unitOf(pairs.map(([o]) => indentOf(o)).filter((i) => !i.includes("\t")), 4),
    fileUnit: unitOf(pairs.map(([, f]) => indentOf(f)).filter((i) => !i.includes("\t")), 4)
  }
  const ops = lineOps(oldKeys, fresh.lines)
  const blanksDropped = dropsFileBlanks(ops, align, lines)
  const out: Array<Item> = []
  let hunkStart = 0
  let reindented = false
  /**
   * Where newString adds a blank line right beside a blank line of the file that the quote left
   * out (only blank lines between them), it is that same blank line, written once: unless
   * newString, like the quote, leaves out the file's blank lines elsewhere, so its blank lines are
   * new ones.
   */
  const closeHunk = () => {
    if (blanksDropped) return
    let k = hunkStart
    while (k < out.length) {
      if (!out[k]!.kind.endsWith("blank")) {
        k++
        continue
      }
      let end = k
      let added = 0
      while (end < out.length && out[end]!.kind.endsWith("blank")) if (out[end++]!.kind === "added-blank") added++
      for (let j = k; j < end && added > 0; j++) {
        if (out[j]!.kind === "file-blank") {
          out.splice(j--, 1)
          end--
          added--
        }
      }
      k = end
    }
  }
  let f = 0
  const flushUntil = (target: number) => {
    for (; f < target; f++) if (!aligned.has(f)) out.push({ text: lines[f]!, kind: isBlank(lines[f]!) ? "file-blank" : "line" })
  }
  // The line an added line is placed against: the k-th removed line of its hunk, else the last
  // removed one, else the kept line before it (after it, at the start of the block).
  let removed: Array<number> = []
  let added = 0
  let lastKept = -1
  const refFor = (k: number, at: number): number => {
    const real = removed.filter((i) => fileOf(i) !== undefined && !isBlank(find.lines[i]!))
    if (real.length > 0) return real[Math.min(k, real.length - 1)]!
    if (lastKept >= 0) return lastKept
    for (let s = at; s < ops.length; s++) {
      const step = ops[s]!
      if (step.op !== "+" && fileOf(step.o) !== undefined && !isBlank(find.lines[step.o]!)) return step.o
    }
    return -1
  }
  const insertions = insertionsOf(ops, oldKeys, fresh.lines)
  for (let s = 0; s < ops.length; s++) {
    const step = ops[s]!
    if (step.op === "+") {
      const line = fresh.lines[step.n]!
      // Lines added between two kept ones attach to the line after them: blank lines the quote
      // left out come first. Lines that replace removed ones take their place instead.
      if (insertions.has(s)) while (f < lines.length && !aligned.has(f)) flushUntil(f + 1)
      if (isBlank(line)) {
        out.push({ text: line, kind: "added-blank" })
        continue
      }
      let text = line
      if (frame === "quote") {
        if (uniform !== undefined) text = uniform(line)
        else {
          const ref = refFor(added, s)
          if (ref >= 0) text = shiftFrom([find.lines[ref]!, fileOf(ref)!], units)(line)
        }
      }
      added++
      reindented ||= text !== line
      out.push({ text, kind: "line" })
      continue
    }
    const t = align[step.o]!
    if (step.op === "=") {
      if (t >= 0) {
        flushUntil(t)
        closeHunk()
        out.push({ text: lines[t]!, kind: "line" })
        f = t + 1
        hunkStart = out.length
        if (!isBlank(find.lines[step.o]!)) lastKept = step.o
      }
      removed = []
      added = 0
      continue
    }
    if (t < 0) continue
    if (looseKey(find.lines[step.o]!) !== looseKey(lines[t]!)) {
      return { _tag: "Conflict", line: t, fileText: lines[t]!, oldText: find.lines[step.o]! }
    }
    flushUntil(t)
    f = t + 1
    removed.push(step.o)
  }
  flushUntil(lines.length)
  closeHunk()
  const regionHasNewline = cand.end > cand.start + lines.reduce((n, l) => n + l.length + 1, -1)
  const trailing = fresh.trailingNewline && (regionHasNewline || !find.wholeLines)
  return { _tag: "Merged", text: out.map((i) => i.text).join("\n") + (trailing ? "\n" : ""), reindented }
}
