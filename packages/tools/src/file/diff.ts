/**
 * Unified diffs for permission prompts and tool metadata: computed on the changed window only
 * (common leading and trailing lines are cut first, so a one-line edit in a 20k-line file costs
 * nothing), shown with LF endings and with the common indentation trimmed (opencode's trimDiff).
 */
import { formatPatch, structuredPatch, type StructuredPatchHunk } from "diff"

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

/** The unified diff of `before` → `after` for `file` (line endings shown as LF). */
export const unifiedDiff = (file: string, before: string, after: string): FileDiff => {
  const a = splitKeep(before.replaceAll("\r\n", "\n"))
  const b = splitKeep(after.replaceAll("\r\n", "\n"))
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const from = Math.max(0, head - CONTEXT)
  const oldWindow = a.slice(from, a.length - Math.max(0, tail - CONTEXT)).join("")
  const newWindow = b.slice(from, b.length - Math.max(0, tail - CONTEXT)).join("")
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
