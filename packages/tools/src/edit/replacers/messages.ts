/**
 * What the model reads when an edit cannot be applied (say what was tried, point
 * at the nearest text, never just "not found"; when the text matches more than once, list the lines of every match).
 */
import type { Tool } from "@agent-tools/core"
import type { LineRange, ReplaceError } from "./index.ts"
import { MAX_LISTED } from "../../internal/limits.ts"
import { dice } from "../../internal/similarity.ts"

const MAX_QUOTE = 160

const quote = (s: string): string => JSON.stringify(s.length > MAX_QUOTE ? s.slice(0, MAX_QUOTE) + "…" : s)

export const formatRange = (r: LineRange): string => (r.startLine === r.endLine ? `${r.startLine}` : `${r.startLine}-${r.endLine}`)

const formatRanges = (rs: ReadonlyArray<LineRange>): string => {
  const shown = rs.slice(0, MAX_LISTED).map(formatRange).join(", ")
  return rs.length > MAX_LISTED ? `${shown} and ${rs.length - MAX_LISTED} more` : shown
}

/** The file line most like oldString's first non-blank line, and where they first differ. */
const closest = (content: string, oldString: string): string | undefined => {
  const target = oldString.split("\n").find((l) => l.trim().length > 0)?.trim()
  if (target === undefined) return undefined
  const lines = content.split("\n")
  let best = -1
  let score = 0
  for (let i = 0; i < lines.length; i++) {
    const s = dice(lines[i]!.trim(), target)
    if (s > score) {
      score = s
      best = i
    }
  }
  if (best < 0 || score < 0.5) return undefined
  const line = lines[best]!.trim()
  let col = 0
  while (col < line.length && col < target.length && line[col] === target[col]) col++
  return `The closest line in the file is line ${best + 1}: ${quote(lines[best]!)}; oldString's line ${quote(target)} ` +
    `differs from it at character ${col + 1} (after indentation).`
}

/** The reason of the tool error for an edit that cannot be applied. */
export const reasonOf = (error: ReplaceError): Tool.ToolErrorReason => {
  switch (error._tag) {
    case "NotFound":
    case "Conflict":
      return "no-match"
    case "Ambiguous":
      return "ambiguous"
    default:
      return "invalid"
  }
}

export const describe = (error: ReplaceError, file: string, content: string, oldString: string): string => {
  switch (error._tag) {
    case "Identical":
      return "No changes to apply: oldString and newString are identical."
    case "EmptyOldString":
      return `oldString cannot be empty when editing an existing file (${file}). Provide the exact text to replace, ` +
        "or use the write tool to replace the whole file."
    case "NoChange":
      return `The edit would not change ${file}: the matched text (${error.strategy} match) already reads like newString.`
    case "Placeholder":
      return `newString line ${error.line} is a placeholder, ${quote(error.text.trim())}, where oldString has ` +
        `${error.replaced} real line${error.replaced === 1 ? "" : "s"}: the edit replaces text literally, so those lines ` +
        `would be deleted from ${file}. Spell those lines out in newString (quote only the lines you change in ` +
        "oldString to keep it short); do not abbreviate with \"...\" or comments like \"... rest of code ...\"."
    case "Ambiguous":
      return `Found ${error.matches.length} matches for oldString in ${file} (${error.strategy} match) at lines ` +
        `${formatRanges(error.matches)}. ` +
        (error.similarOnly
          ? "replaceAll only applies to exact or whitespace-insensitive matches; these blocks only look similar. "
          : "") +
        "Include more surrounding lines in oldString to pick one, or set replaceAll to true to change every occurrence."
    case "Conflict":
      return `oldString matched lines ${formatRange(error.match)} of ${file} only approximately (${error.strategy} match), ` +
        `and the edit changes line ${error.line}, which reads ${quote(error.fileText)} in the file but ` +
        `${quote(error.oldText)} in oldString. Read the file again and retry with its current text.`
    case "NotFound": {
      const tried = `Tried ${error.tried.join(", ")} matching.`
      if (error.whitespaceOnly) {
        return `Could not find oldString in ${file}: it is only whitespace and does not occur exactly. ${tried}`
      }
      const near = error.nearMiss
      const hint = near !== undefined
        ? `Lines ${near.firstLine + 1}-${near.lastLine + 1} line up with oldString except line ${near.line + 1}, which reads ` +
          `${quote(near.fileText)} in the file but ${quote(near.oldText)} in oldString (too different to be the same line).`
        : closest(content, oldString)
      const prefixed = oldString.split("\n").filter((l) => l.trim().length > 0).every((l) => /^\s*\d+: /.test(l))
      return [
        `Could not find oldString in ${file}. ${tried}`,
        hint,
        prefixed ? "oldString seems to include the `N: ` line-number prefixes of the read output; leave them out." : undefined,
        "Read the file again and copy the text to replace exactly, or use fewer lines."
      ].filter((x) => x !== undefined).join("\n")
    }
  }
}

/** A one-line account of a fuzzy match, for the tool output. */
export const matchedNote = (
  strategy: string,
  matches: ReadonlyArray<LineRange>,
  reindented: boolean,
  lineNumbersStripped = false,
  lineCompleted = false
): string => {
  const notes = [
    ...(reindented ? ["added lines re-indented to the file's indentation"] : []),
    ...(lineCompleted
      ? ["oldString stopped inside a line and newString's last line ends like it, so the whole line was replaced"]
      : []),
    ...(lineNumbersStripped ? ["the `N: ` line numbers of the read output were removed from your strings"] : [])
  ]
  if ((strategy === "exact" || strategy === "multi-occurrence") && notes.length === 0) return ""
  const plural = matches.length === 1 && matches[0]!.startLine === matches[0]!.endLine ? "" : "s"
  return ` (${strategy} match at line${plural} ${formatRanges(matches)}${notes.map((n) => `; ${n}`).join("")})`
}

