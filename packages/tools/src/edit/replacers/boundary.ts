/**
 * The two substring strategies that repair how oldString was written rather than how the file
 * drifted: escape-normalized (the model double-escaped `\n`, `\t`, quotes …) and trimmed-boundary
 * (stray whitespace or blank lines around an otherwise exact oldString).
 */
import { type Candidate, type Doc, type Find, occurrences } from "./doc.ts"

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "'": "'", '"': '"', "`": "`", "\\": "\\", "\n": "\n", $: "$" }

/** `\n`, `\t`, `\r`, `\'`, `\"`, `` \` ``, `\\`, `\<newline>`, `\$` → the characters themselves. */
export const unescape = (s: string): string => s.replace(/\\([ntr'"`\\\n$])/g, (_, c: string) => ESCAPES[c]!)

/** Unescaped, with the CRLFs an escaped `\r\n` gives turned into the LF of the text matched on. */
export const unescapeLf = (s: string): string => unescape(s).replaceAll("\r\n", "\n")

export const escapeNormalized = (doc: Doc, find: Find): Array<Candidate> => {
  const unescaped = unescapeLf(find.raw)
  return unescaped === find.raw ? [] : occurrences(doc, unescaped, "unescape")
}

export const trimmedBoundary = (doc: Doc, find: Find): Array<Candidate> => {
  const trimmed = find.raw.trim()
  return trimmed === find.raw || trimmed.length === 0 ? [] : occurrences(doc, trimmed, "trim-boundary")
}

/**
 * newString for a trimmed match: drop the leading/trailing whitespace oldString had outside the
 * matched text when newString has the same, so the file's own surroundings stay as they are.
 */
export const trimLike = (oldString: string, newString: string): string => {
  const lead = oldString.slice(0, oldString.length - oldString.trimStart().length)
  const trail = oldString.slice(oldString.trimEnd().length)
  let out = newString
  if (lead.length > 0 && out.startsWith(lead)) out = out.slice(lead.length)
  if (trail.length > 0 && out.endsWith(trail)) out = out.slice(0, out.length - trail.length)
  return out
}
