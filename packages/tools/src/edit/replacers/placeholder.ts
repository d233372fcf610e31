/**
 * Placeholders: a newString line such as `// ... rest of code ...`, `# ... existing code ...` or a
 * bare `...` (`…`, `[...]`) standing for lines the model did not write out. Written as code, it deletes the real lines
 * oldString quoted, so an edit that puts one where oldString had real lines is refused.
 */
import { lineOps } from "./merge.ts"

/** Words a placeholder comment is made of, besides the ellipsis. */
const WORDS = new Set([
  "rest", "of", "the", "a", "existing", "code", "unchanged", "remaining", "remains", "same", "as", "before",
  "other", "previous", "omitted", "more", "lines", "line", "methods", "method", "functions", "function",
  "implementation", "here", "keep", "kept", "etc", "file", "body", "logic", "content", "contents", "is", "are",
  "stays", "stay", "left", "elided", "snip", "fields", "imports", "cases", "tests", "properties", "items",
  "entries", "above", "below", "unmodified", "untouched", "continues", "and", "so", "on", "your", "original"
])

const COMMENT = /^(?:\/\/+|#+|\/\*+|<!--|--|;+|\{\s*\/\*+)\s*(.*?)\s*(?:\*+\/\s*\}?|-->)?$/

// A line that is only an ellipsis, maybe bracketed: Python's `...` body looks the same, so a bare
// one counts only where it replaces more than a `pass` (see `placeholderIn`).
// `\u2026` is `…`, escaped: code outside comments stays ASCII, so the bundles load as one-byte text.
const BARE = /^[[({<]?\s*(?:\.\.\.|\u2026)\s*[\])}>]?[,;]?$/

export const isBarePlaceholder = (line: string): boolean => BARE.test(line.trim())

/** A comment line whose only content is an ellipsis and placeholder words, or a bare ellipsis line. */
export const isPlaceholder = (line: string): boolean => {
  if (isBarePlaceholder(line)) return true
  const m = COMMENT.exec(line.trim())
  if (m === null) return false
  const body = m[1]!
  if (!body.includes("...") && !body.includes("…")) return false
  const words = body.toLowerCase().match(/[a-z]+/g) ?? []
  return words.every((w) => WORDS.has(w))
}

export interface PlaceholderLine {
  /** 1-based line of newString. */
  readonly line: number
  readonly text: string
  /** How many real oldString lines it stands in for (those removed beyond the lines written instead). */
  readonly replaced: number
}

/**
 * The first placeholder newString adds where oldString has real (non-blank, non-placeholder)
 * lines that the edit removes; undefined when there is none.
 */
export const placeholderIn = (oldLines: ReadonlyArray<string>, newLines: ReadonlyArray<string>): PlaceholderLine | undefined => {
  if (!newLines.some(isPlaceholder)) return undefined
  const ops = lineOps(oldLines.map((l) => l.trim()), newLines.map((l) => l.trim()))
  let removed = 0
  let written = 0
  // Removed lines that a bare `...` may stand for as code (a Python stub body written as `...`).
  let trivial = true
  let placeholder: number | undefined
  for (const step of [...ops, { op: "=" as const, o: -1, n: -1 }]) {
    if (step.op === "=") {
      const bare = placeholder !== undefined && isBarePlaceholder(newLines[placeholder]!)
      if (placeholder !== undefined && removed > 0 && !(bare && trivial)) {
        return { line: placeholder + 1, text: newLines[placeholder]!, replaced: Math.max(1, removed - written) }
      }
      removed = 0
      written = 0
      trivial = true
      placeholder = undefined
    } else if (step.op === "-") {
      const l = oldLines[step.o]!
      if (l.trim().length > 0 && !isPlaceholder(l)) {
        removed++
        trivial &&= l.trim() === "pass"
      }
    } else if (isPlaceholder(newLines[step.n]!)) placeholder ??= step.n
    else if (newLines[step.n]!.trim().length > 0) written++
  }
  return undefined
}
