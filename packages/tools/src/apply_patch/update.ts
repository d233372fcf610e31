/**
 * Applying an Update hunk's chunks to a file's text (codex's derive_new_contents_from_chunks),
 * byte-exact: every line keeps its own ending, context lines keep the file's bytes (not the
 * patch's, which may only match after trimming), a rewritten line takes the ending of the line it
 * replaces and an inserted one the file's dominant ending (codex's CRLF cases in tool-cases.json).
 *
 * Two semantics:
 * - `atomic` (default): a missing final newline stays missing, a pure
 *   addition under an `@@ context` goes right after that context line, not to the end, and
 *   a chunk without an `@@` line whose lines occur more than once is refused, naming where;
 * - `sequential` (codex): the result always ends with a newline; pure additions go to the end; an
 *   unanchored chunk changes the first place its lines occur.
 */
import { dominantEol } from "../internal/text.ts"
import { MAX_LISTED } from "../internal/limits.ts"
import { dice } from "../internal/similarity.ts"
import type { Chunk, ChunkLine } from "./parser.ts"
import { otherMatches, seek, seekSequence } from "./seek.ts"

export type Semantics = "atomic" | "sequential"

/** A hunk that does not fit the file: its lines are not there (`no-match`) or there more than once (`ambiguous`). */
export class UpdateError extends Error {
  readonly reason: "no-match" | "ambiguous"
  constructor(message: string, reason: "no-match" | "ambiguous" = "no-match") {
    super(message)
    this.reason = reason
  }
}

interface Line {
  readonly text: string
  /** "" for a last line without a newline; undefined for a new line whose ending is decided later. */
  readonly eol: string | undefined
}

const splitLines = (text: string): Array<Line> => {
  const out: Array<Line> = []
  let from = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", from)) {
    const crlf = i > from && text.charCodeAt(i - 1) === 13
    out.push({ text: text.slice(from, crlf ? i - 1 : i), eol: crlf ? "\r\n" : "\n" })
    from = i + 1
  }
  if (from < text.length) out.push({ text: text.slice(from), eol: "" })
  return out
}

interface Replacement {
  readonly start: number
  readonly oldLength: number
  readonly ops: ReadonlyArray<ChunkLine>
}

/**
 * codex retries a chunk whose old lines end with an empty line without it (the empty line stands
 * for the file's final newline), dropping new's final empty line too when it has one.
 */
const dropTrailingEmpty = (ops: ReadonlyArray<ChunkLine>, newEndsEmpty: boolean): Array<ChunkLine> => {
  const lastOld = ops.findLastIndex((o) => o.op !== "+")
  const lastNew = newEndsEmpty ? ops.findLastIndex((o) => o.op !== "-") : -1
  return ops.flatMap((o, i): Array<ChunkLine> => {
    const inOld = o.op !== "+" && i !== lastOld
    const inNew = o.op !== "-" && i !== lastNew
    if (inOld && inNew) return [o]
    if (inOld) return [{ op: "-", text: o.text }]
    if (inNew) return [{ op: "+", text: o.text }]
    return []
  })
}

/** Where the first old line probably is, and whether the patch looks applied already. */
const hint = (texts: ReadonlyArray<string>, chunk: Chunk): string => {
  const notes: Array<string> = []
  const added = chunk.newLines.filter((l) => !chunk.oldLines.includes(l))
  if (added.length > 0 && seekSequence(texts, chunk.newLines, 0, false) !== undefined) {
    notes.push("The new lines of this chunk are already in the file: the patch may have been applied already.")
  }
  const first = chunk.oldLines.find((l) => l.trim().length > 0)?.trim()
  if (first !== undefined) {
    let best = -1
    let score = 0.5
    texts.forEach((t, i) => {
      const s = dice(t.trim(), first)
      if (s > score) [best, score] = [i, s]
    })
    if (best >= 0) notes.push(`The closest line to ${JSON.stringify(first)} is line ${best + 1}: ${JSON.stringify(texts[best])}.`)
  }
  return notes.length === 0 ? "" : "\n" + notes.join("\n")
}

/** A chunk whose lines occur more than once and nothing says which (no `@@` line). */
const ambiguous = (file: string, chunk: Chunk, length: number, at: ReadonlyArray<number>): string => {
  const ranges = at.slice(0, MAX_LISTED).map((i) => (length > 1 ? `${i + 1}-${i + length}` : `${i + 1}`))
  const more = at.length > MAX_LISTED ? ` and ${at.length - MAX_LISTED} more` : ""
  return `The lines to change occur ${at.length} times in ${file}, at lines ${ranges.join(", ")}${more}:\n` +
    `${chunk.oldLines.join("\n")}\n` +
    "Add an `@@` line naming the function or class they are in (for example `@@ def handler`), or more context lines, " +
    "so they match one place only."
}

const apply = (lines: ReadonlyArray<Line>, r: Replacement): Array<Line> => {
  const out: Array<Line> = []
  let f = r.start
  let removed: Array<string | undefined> = []
  let added = 0
  for (const o of r.ops) {
    if (o.op === " ") {
      out.push(lines[f++]!)
      removed = []
      added = 0
    } else if (o.op === "-") {
      removed.push(lines[f++]!.eol)
    } else {
      const eol = removed[added++]
      out.push({ text: o.text, eol: eol === "" ? undefined : eol })
    }
  }
  return out
}

/** The file's new text after the chunks; throws UpdateError with codex's messages. */
export const deriveUpdate = (text: string, chunks: ReadonlyArray<Chunk>, file: string, semantics: Semantics): string => {
  const lines = splitLines(text)
  const texts = lines.map((l) => l.text)
  const replacements: Array<Replacement> = []
  let cursor = 0
  for (const chunk of chunks) {
    if (chunk.changeContext !== undefined) {
      const at = seekSequence(texts, [chunk.changeContext], cursor, false)
      if (at === undefined) throw new UpdateError(`Failed to find context '${chunk.changeContext}' in ${file}`)
      cursor = at + 1
    }
    if (chunk.oldLines.length === 0) {
      const atEnd = texts.length > 0 && texts[texts.length - 1] === "" ? texts.length - 1 : texts.length
      const at = semantics === "atomic" && chunk.changeContext !== undefined ? cursor : atEnd
      replacements.push({ start: at, oldLength: 0, ops: chunk.lines })
      continue
    }
    let pattern = chunk.oldLines
    let ops = chunk.lines
    let sought = seek(texts, pattern, cursor, chunk.isEndOfFile)
    if (sought === undefined && pattern[pattern.length - 1] === "") {
      pattern = pattern.slice(0, -1)
      ops = dropTrailingEmpty(ops, chunk.newLines[chunk.newLines.length - 1] === "")
      sought = seek(texts, pattern, cursor, chunk.isEndOfFile)
    }
    if (sought === undefined) {
      throw new UpdateError(
        `Failed to find expected lines in ${file}:\n${chunk.oldLines.join("\n")}` + (semantics === "atomic" ? hint(texts, chunk) : "")
      )
    }
    const found = sought.at
    if (semantics === "atomic" && chunk.changeContext === undefined && !chunk.isEndOfFile) {
      const others = otherMatches(texts, pattern, sought)
      if (others.length > 0) throw new UpdateError(ambiguous(file, chunk, pattern.length, [found, ...others]), "ambiguous")
    }
    replacements.push({ start: found, oldLength: pattern.length, ops })
    cursor = found + pattern.length
  }
  replacements.sort((a, b) => a.start - b.start)
  const result: Array<Line> = []
  let pos = 0
  for (const r of replacements) {
    while (pos < r.start) result.push(lines[pos++]!)
    result.push(...apply(lines, r))
    pos = Math.max(pos, r.start + r.oldLength)
  }
  while (pos < lines.length) result.push(lines[pos++]!)

  const dominant = dominantEol(text)
  const keepUnterminated = semantics === "atomic" && text.length > 0 && !text.endsWith("\n")
  let out = ""
  result.forEach((l, i) => {
    const last = i === result.length - 1
    const eol = last && keepUnterminated ? "" : l.eol === undefined || l.eol === "" ? dominant : l.eol
    out += l.text + eol
  })
  return out
}
