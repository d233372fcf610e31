/**
 * One edit on a file's decoded text, line endings preserved: match on the LF view, splice into the
 * original at the mapped offsets, and write newString with the ending of the line it lands on. So
 * a CRLF file stays CRLF, a mixed file keeps every untouched ending, a lone CR survives.
 */
import { applyPlan, plan, type LineRange, type ReplaceError, type StrategyName } from "./replacers/index.ts"
import { lfView, localEol, toOriginal, withEol } from "./text.ts"

export interface EditOutcome {
  readonly _tag: "Edited"
  readonly text: string
  readonly strategy: StrategyName
  readonly matches: ReadonlyArray<LineRange>
  readonly reindented: boolean
  readonly unescaped: boolean
  readonly lineNumbersStripped: boolean
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
  let out: string
  if (view.crlfAt.length === 0) {
    out = applyPlan(text, p)
  } else {
    out = ""
    let from = 0
    for (const s of p.splices) {
      const start = toOriginal(view, s.start)
      out += text.slice(from, start) + withEol(s.text, localEol(text, start))
      from = toOriginal(view, s.end)
    }
    out += text.slice(from)
  }
  return {
    _tag: "Edited",
    text: out,
    strategy: p.strategy,
    get matches() {
      return p.matches // line numbers are counted only when asked for
    },
    reindented: p.reindented,
    unescaped: p.unescaped,
    lineNumbersStripped: p.lineNumbersStripped === true
  }
}
