/**
 * The codex `*** Begin Patch` format, parsed with codex's grammar, leniencies and error texts
 * (codex-rs/apply-patch/src/parser.rs; the cases in corpora/codex-apply-patch/parser-cases.json):
 * markers padded with whitespace, hunk headers with leading spaces, a `<<EOF` heredoc wrapper
 * (lenient mode), a first chunk without `@@`, blank lines between chunks, `*** End of File`.
 *
 * Unlike opencode's parser nothing is silently dropped: an unknown header, an Update
 * without chunks or a line that is not ` `/`+`/`-` is an error with its line number (line 1 is the
 * `*** Begin Patch` line).
 */

export interface ChunkLine {
  readonly op: " " | "-" | "+"
  readonly text: string
}

export interface Chunk {
  /** The text after `@@ `, used to find the chunk's place. */
  readonly changeContext: string | undefined
  readonly oldLines: ReadonlyArray<string>
  readonly newLines: ReadonlyArray<string>
  /** The chunk is anchored at the end of the file (`*** End of File`). */
  readonly isEndOfFile: boolean
  /** The lines in patch order, so context lines can keep the file's own bytes. */
  readonly lines: ReadonlyArray<ChunkLine>
  /** Line of the patch where the chunk starts. */
  readonly line: number
}

export type Hunk =
  | { readonly type: "add"; readonly path: string; readonly contents: string; readonly line: number }
  | { readonly type: "delete"; readonly path: string; readonly line: number }
  | {
    readonly type: "update"
    readonly path: string
    readonly movePath: string | undefined
    readonly chunks: ReadonlyArray<Chunk>
    readonly line: number
  }

export class PatchParseError extends Error {
  readonly kind: "InvalidPatchError" | "InvalidHunkError"
  readonly detail: string
  /** 1-based patch line, for hunk errors. */
  readonly lineNumber: number | undefined

  constructor(kind: "InvalidPatchError" | "InvalidHunkError", detail: string, lineNumber?: number | undefined) {
    super(kind === "InvalidHunkError" ? `Invalid patch hunk on line ${lineNumber}: ${detail}` : `Invalid patch: ${detail}`)
    this.kind = kind
    this.detail = detail
    this.lineNumber = lineNumber
  }
}

export type ParseMode = "strict" | "lenient"

const BEGIN = "*** Begin Patch"
const END = "*** End Patch"
const ADD = "*** Add File: "
const DELETE = "*** Delete File: "
const UPDATE = "*** Update File: "
const MOVE = "*** Move to: "
const EOF_MARKER = "*** End of File"
const CONTEXT = "@@ "
const EMPTY_CONTEXT = "@@"

/** Rust's `str::lines`: split on LF, drop one trailing CR per line, no empty last line. */
const rustLines = (text: string): Array<string> => {
  if (text.length === 0) return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
}

const checkBoundaries = (lines: ReadonlyArray<string>): PatchParseError | undefined => {
  const first = lines[0]?.trim()
  const last = lines[lines.length - 1]?.trim()
  if (first === BEGIN && last === END && lines.length >= 2) return undefined
  if (first !== BEGIN) return new PatchParseError("InvalidPatchError", "The first line of the patch must be '*** Begin Patch'")
  return new PatchParseError("InvalidPatchError", "The last line of the patch must be '*** End Patch'")
}

// GPT models sometimes wrap the patch in the heredoc they would give a shell; `cat <<EOF` too.
const HEREDOC_OPEN = /^(?:cat\s+)?<<(EOF|'EOF'|"EOF")$/

const unwrapHeredoc = (lines: ReadonlyArray<string>, error: PatchParseError): ReadonlyArray<string> => {
  if (lines.length >= 4 && HEREDOC_OPEN.test(lines[0]!) && lines[lines.length - 1]!.endsWith("EOF")) {
    const inner = lines.slice(1, -1)
    const innerError = checkBoundaries(inner)
    if (innerError !== undefined) throw innerError
    return inner
  }
  throw error
}

const unexpectedLine = (line: string) =>
  `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`

/** One chunk of an Update hunk; returns the chunk and the number of lines it used. */
export const parseChunk = (
  lines: ReadonlyArray<string>,
  lineNumber: number,
  allowMissingContext: boolean
): readonly [Chunk, number] => {
  if (lines.length === 0) throw new PatchParseError("InvalidHunkError", "Update hunk does not contain any lines", lineNumber)
  let changeContext: string | undefined
  let start = 0
  if (lines[0] === EMPTY_CONTEXT) start = 1
  else if (lines[0]!.startsWith(CONTEXT)) {
    changeContext = lines[0]!.slice(CONTEXT.length)
    start = 1
  } else if (!allowMissingContext) {
    throw new PatchParseError(
      "InvalidHunkError",
      `Expected update hunk to start with a @@ context marker, got: '${lines[0]}'`,
      lineNumber
    )
  }
  if (start >= lines.length) throw new PatchParseError("InvalidHunkError", "Update hunk does not contain any lines", lineNumber + 1)
  const oldLines: Array<string> = []
  const newLines: Array<string> = []
  const body: Array<ChunkLine> = []
  let isEndOfFile = false
  let parsed = 0
  for (const line of lines.slice(start)) {
    if (line === EOF_MARKER) {
      if (parsed === 0) throw new PatchParseError("InvalidHunkError", "Update hunk does not contain any lines", lineNumber + 1)
      isEndOfFile = true
      parsed++
      break
    }
    const op = line[0]
    if (op === undefined || op === " ") {
      // An empty line is an empty context line (editors strip the lone space).
      const text = line.slice(1)
      oldLines.push(text)
      newLines.push(text)
      body.push({ op: " ", text })
    } else if (op === "+") {
      newLines.push(line.slice(1))
      body.push({ op: "+", text: line.slice(1) })
    } else if (op === "-") {
      oldLines.push(line.slice(1))
      body.push({ op: "-", text: line.slice(1) })
    } else {
      if (parsed === 0) throw new PatchParseError("InvalidHunkError", unexpectedLine(line), lineNumber + 1)
      break // the next hunk or chunk header
    }
    parsed++
  }
  return [{ changeContext, oldLines, newLines, isEndOfFile, lines: body, line: lineNumber }, parsed + start]
}

/** One hunk from its header line on; returns the hunk and the number of lines it used. */
export const parseHunk = (lines: ReadonlyArray<string>, lineNumber: number): readonly [Hunk, number] => {
  const first = lines[0]!.trim()
  if (first.startsWith(ADD)) {
    let contents = ""
    let used = 1
    for (const line of lines.slice(1)) {
      if (!line.startsWith("+")) break
      contents += line.slice(1) + "\n"
      used++
    }
    return [{ type: "add", path: first.slice(ADD.length), contents, line: lineNumber }, used]
  }
  if (first.startsWith(DELETE)) return [{ type: "delete", path: first.slice(DELETE.length), line: lineNumber }, 1]
  if (first.startsWith(UPDATE)) {
    const path = first.slice(UPDATE.length)
    let rest = lines.slice(1)
    let used = 1
    const movePath = rest[0]?.startsWith(MOVE) === true ? rest[0].slice(MOVE.length) : undefined
    if (movePath !== undefined) {
      rest = rest.slice(1)
      used++
    }
    const chunks: Array<Chunk> = []
    while (rest.length > 0) {
      if (rest[0]!.trim().length === 0) {
        rest = rest.slice(1)
        used++
        continue
      }
      if (rest[0]!.startsWith("***")) break
      const [chunk, n] = parseChunk(rest, lineNumber + used, chunks.length === 0)
      chunks.push(chunk)
      used += n
      rest = rest.slice(n)
    }
    // A move without chunks is a pure rename.
    if (chunks.length === 0 && movePath === undefined) {
      throw new PatchParseError("InvalidHunkError", `Update file hunk for path '${path}' is empty`, lineNumber)
    }
    return [{ type: "update", path, movePath, chunks, line: lineNumber }, used]
  }
  throw new PatchParseError(
    "InvalidHunkError",
    `'${first}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
    lineNumber
  )
}

/** Parses a patch; throws PatchParseError with codex's message and line number. */
export const parsePatch = (text: string, mode: ParseMode = "lenient"): ReadonlyArray<Hunk> => {
  let lines: ReadonlyArray<string> = rustLines(text.trim())
  const error = checkBoundaries(lines)
  if (error !== undefined) {
    if (mode === "strict") throw error
    lines = unwrapHeredoc(lines, error)
  }
  const hunks: Array<Hunk> = []
  let rest = lines.slice(1, -1)
  let lineNumber = 2
  while (rest.length > 0) {
    const [hunk, used] = parseHunk(rest, lineNumber)
    hunks.push(hunk)
    lineNumber += used
    rest = rest.slice(used)
  }
  return hunks
}
