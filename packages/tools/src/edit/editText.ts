/**
 * One edit on a file's decoded text, line endings preserved: match on the LF view, splice into the
 * original at the mapped offsets, and write newString with the ending of the line it lands on. So
 * a CRLF file stays CRLF, a mixed file keeps every untouched ending, a lone CR survives.
 */
import { plan, type LineRange, type ReplaceError, type StrategyName } from "./replacers/index.ts"
import { lfView, localEol, toOriginal, withEol } from "../internal/text.ts"

export interface EditOutcome {
  readonly _tag: "Edited"
  readonly text: string
  /** What changed: `text` is the input with [start, end) replaced by `span.text`. */
  readonly span: { readonly start: number; readonly end: number; readonly text: string }
  readonly strategy: StrategyName
  readonly matches: ReadonlyArray<LineRange>
  readonly reindented: boolean
  readonly unescaped: boolean
  readonly lineNumbersStripped: boolean
  /** The match was taken to the end of the line oldString stopped in. */
  readonly lineCompleted: boolean
}

export const applyEdit = (
  text: string,
  oldString: string,
  newString: string,
  replaceAll: boolean
): EditOutcome | ReplaceError => {
  const view = lfView(text)
  const p = plan(view.text, oldString.replaceAll("\r\n", "\n"), newString.replaceAll("\r\n", "\n"), replaceAll)
  if (p._tag !== "Plan") return p
  // The splices in the original's offsets, with the ending of the line each lands on.
  const crlf = view.crlfAt.length > 0
  const splices = p.splices.map((s) => {
    const start = crlf ? toOriginal(view, s.start) : s.start
    return { start, end: crlf ? toOriginal(view, s.end) : s.end, text: crlf ? withEol(s.text, localEol(text, start)) : s.text }
  })
  let out = ""
  let middle = ""
  let from = 0
  splices.forEach((s, i) => {
    out += text.slice(from, s.start) + s.text
    if (i > 0) middle += text.slice(from, s.start)
    middle += s.text
    from = s.end
  })
  out += text.slice(from)
  const first = splices[0]!
  return {
    _tag: "Edited",
    text: out,
    span: { start: first.start, end: from, text: middle },
    strategy: p.strategy,
    get matches() {
      return p.matches // line numbers are counted only when asked for
    },
    reindented: p.reindented,
    unescaped: p.unescaped,
    lineNumbersStripped: p.lineNumbersStripped === true,
    lineCompleted: p.lineCompleted === true
  }
}
