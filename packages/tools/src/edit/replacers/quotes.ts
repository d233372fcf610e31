/**
 * Typographic quotes: a model often writes “ ” ‘ ’ where the file has " and ' (or the reverse,
 * quoting a file that has them). The strategy compares with every quote folded to its ASCII form;
 * each fold is one UTF-16 unit for one, so offsets in the folded text are offsets in the file.
 * The replacement keeps the file's own quote characters wherever newString repeats oldString:
 * only what newString changes comes from newString.
 */
import type { Candidate, Doc, Find } from "./doc.ts"
import { lineOps } from "./merge.ts"

const FOLD: Record<string, string> = { "\u201C": '"', "\u201D": '"', "\u2018": "'", "\u2019": "'" }
const CURLY = /[\u201C\u201D\u2018\u2019]/g

export const foldQuotes = (s: string): string => s.replace(CURLY, (c) => FOLD[c]!)

/** Every place oldString occurs once quotes are folded, where it does not occur as written. */
export const quoteNormalized = (doc: Doc, find: Find): Array<Candidate> => {
  const old = find.raw
  const needle = foldQuotes(old)
  const folded = foldQuotes(doc.text)
  if (needle === old && folded === doc.text) return []
  const out: Array<Candidate> = []
  for (let p = folded.indexOf(needle); p !== -1; p = folded.indexOf(needle, p + 1)) {
    out.push({ start: p, end: p + needle.length, transform: "quotes" })
  }
  return out
}

/**
 * newString with the file's characters where it repeats oldString: lines newString keeps are the
 * file's lines, and in the lines it changes, the characters it keeps are the file's. `matched` is
 * the file's text that oldString matched (the same length as oldString).
 */
export const withFileQuotes = (oldString: string, matched: string, newString: string): string => {
  const oldLines = oldString.split("\n")
  const fileLines = matched.split("\n")
  const newLines = newString.split("\n")
  const out: Array<string> = []
  let removed: Array<number> = []
  let added: Array<number> = []
  const flush = () => {
    if (added.length > 0) {
      const o = removed.map((i) => oldLines[i]!).join("\n")
      const f = removed.map((i) => fileLines[i]!).join("\n")
      out.push(keepChars(o, f, added.map((i) => newLines[i]!).join("\n")))
    }
    removed = []
    added = []
  }
  for (const step of lineOps(oldLines, newLines)) {
    if (step.op === "=") {
      flush()
      out.push(fileLines[step.o]!)
    } else if (step.op === "-") removed.push(step.o)
    else added.push(step.n)
  }
  flush()
  return out.join("\n")
}

/** `next` with `file`'s character wherever a character of `next` is one `old` has at that place. */
const keepChars = (old: string, file: string, next: string): string => {
  if (old.length === 0) return next
  let out = ""
  for (const step of lineOps(old.split(""), next.split(""))) {
    if (step.op === "=") out += file[step.o]!
    else if (step.op === "+") out += next[step.n]!
  }
  return out
}
