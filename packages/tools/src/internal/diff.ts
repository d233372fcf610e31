/**
 * Unified diffs for permission prompts and tool metadata: computed on the changed window only
 * (common leading and trailing lines are cut first, so a one-line edit in a 20k-line file costs
 * nothing), shown with LF endings and with the common indentation trimmed (opencode's trimDiff).
 */
import { formatPatch, structuredPatch, type StructuredPatchHunk } from "diff"
import { MAX_EDIT_BYTES } from "./limits.ts"
import { megabytes } from "./size.ts"
import { commonPrefix, commonSuffix } from "./text.ts"

export interface FileDiff {
  /** The unified diff, common indentation trimmed. */
  readonly patch: string
  readonly additions: number
  readonly deletions: number
}

const CONTEXT = 3
// The diff of the changed window gives up after this long and shows it as replaced wholesale.
const DIFF_TIMEOUT_MS = 1000

/** Lines with their terminators, so "a" and "a\n" differ like they do in a file. */
const splitKeep = (text: string): Array<string> => {
  const out: Array<string> = []
  let from = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", from)) {
    out.push(text.slice(from, i + 1))
    from = i + 1
  }
  if (from < text.length) out.push(text.slice(from))
  return out
}

/** The hunk lines of a wholesale replacement (when the real diff timed out). */
const wholesale = (oldText: string, newText: string): StructuredPatchHunk => {
  const strip = (l: string) => (l.endsWith("\n") ? l.slice(0, -1) : l)
  const oldLines = splitKeep(oldText)
  const newLines = splitKeep(newText)
  return {
    oldStart: 1,
    oldLines: oldLines.length,
    newStart: 1,
    newLines: newLines.length,
    lines: [...oldLines.map((l) => "-" + strip(l)), ...newLines.map((l) => "+" + strip(l))]
  }
}

/**
 * Removes the indentation every content line shares, after the `+`/`-`/` ` prefix, so deeply
 * nested edits read well in a prompt.
 */
export const trimDiff = (patch: string): string => {
  const lines = patch.split("\n")
  const isContent = (l: string) =>
    (l.startsWith("+") || l.startsWith("-") || l.startsWith(" ")) && !l.startsWith("---") && !l.startsWith("+++")
  let min = Infinity
  for (const l of lines) {
    if (!isContent(l)) continue
    const body = l.slice(1)
    if (body.trim().length === 0) continue
    min = Math.min(min, body.length - body.trimStart().length)
  }
  if (min === Infinity || min === 0) return patch
  return lines.map((l) => (isContent(l) && l.slice(1).trim().length > 0 ? l[0] + l.slice(1 + min) : l)).join("\n")
}

/** Offset of the start of the line `lines` lines before the one containing `i`. */
const backLines = (text: string, i: number, lines: number): number => {
  let start = text.lastIndexOf("\n", i - 1) + 1
  for (let k = 0; k < lines && start > 0; k++) start = text.lastIndexOf("\n", start - 2) + 1
  return start
}

/** Offset just past the end (newline included) of the line `lines` lines after the one containing `i`. */
const forwardLines = (text: string, i: number, lines: number): number => {
  let end = i
  for (let k = 0; k <= lines && end < text.length; k++) {
    const nl = text.indexOf("\n", end)
    end = nl === -1 ? text.length : nl + 1
  }
  return end
}

const countNewlines = (text: string, to: number): number => {
  let n = 0
  for (let i = text.indexOf("\n"); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** A change of a text: `before[start, end)` becomes `text`. */
export interface Span {
  readonly start: number
  readonly end: number
  readonly text: string
}

/**
 * A change of a text over the edit size limit, by line counts only: the changed lines (between the
 * common head and tail) of each side, without their text, which would not fit in any result.
 */
const summary = (file: string, before: string, after: string, head: number, tail: number): FileDiff => {
  const lines = (text: string) => {
    const start = text.lastIndexOf("\n", head - 1) + 1
    const end = forwardLines(text, text.length - tail, 0)
    return end > start ? countNewlines(text.slice(start, end), end - start) + (text.slice(start, end).endsWith("\n") ? 0 : 1) : 0
  }
  const deletions = lines(before)
  const additions = lines(after)
  const patch = `${file}: ${deletions} line${deletions === 1 ? "" : "s"} replaced by ${additions} line${additions === 1 ? "" : "s"} ` +
    `(the diff is not shown: the file is over ${megabytes(MAX_EDIT_BYTES)})`
  return { patch, additions, deletions }
}

/**
 * The unified diff of `before` → `after` for `file` (line endings shown as LF). Only the window
 * around what changed is split and diffed: the common head and tail are found by comparing the
 * texts, so a one-line edit of a 20k-line file never splits it.
 */
export const unifiedDiff = (file: string, before: string, after: string): FileDiff => {
  const head = commonPrefix(before, after)
  const tail = commonSuffix(before, after, Math.min(before.length, after.length) - head)
  if (before.length > MAX_EDIT_BYTES || after.length > MAX_EDIT_BYTES) return summary(file, before, after, head, tail)
  return spanDiff(file, before, { start: head, end: before.length - tail, text: after.slice(head, after.length - tail) })
}

/**
 * The unified diff of a known change: nothing outside the window around it is looked at.
 * `firstLine` is how many lines of the file come before `before` when it is only a part of it.
 */
export const spanDiff = (file: string, before: string, span: Span, firstLine = 0): FileDiff => {
  // The window: from CONTEXT lines before the first changed line to CONTEXT lines after the last.
  const start = backLines(before, span.start, CONTEXT)
  const end = forwardLines(before, span.end, CONTEXT)
  const from = firstLine + countNewlines(before, start)
  const oldWindow = before.slice(start, end).replaceAll("\r\n", "\n")
  const newWindow = (before.slice(start, span.start) + span.text + before.slice(span.end, end)).replaceAll("\r\n", "\n")
  const computed = structuredPatch(file, file, oldWindow, newWindow, undefined, undefined, {
    context: CONTEXT,
    timeout: DIFF_TIMEOUT_MS
  })
  const hunks = (computed?.hunks ?? [wholesale(oldWindow, newWindow)]).map((h) => ({
    ...h,
    oldStart: h.oldStart + from,
    newStart: h.newStart + from
  }))
  let additions = 0
  let deletions = 0
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.startsWith("+")) additions++
      else if (l.startsWith("-")) deletions++
    }
  }
  const patch = formatPatch({ oldFileName: file, newFileName: file, oldHeader: undefined, newHeader: undefined, hunks })
  return { patch: trimDiff(patch), additions, deletions }
}
