/**
 * How language-server diagnostics are shown to the model after a file change, in opencode's
 * format: errors only (severity 1), at most `MAX_PER_FILE` per file, 1-based positions, in a
 * `<diagnostics file="…">` block; the touched files first, then at most `MAX_OTHER_FILES` other
 * files the change broke.
 */
import type { Diagnostic } from "./Lsp.ts"

/** Most errors listed per file; the rest are counted. */
export const MAX_PER_FILE = 20
/** Most files besides the touched ones whose errors are listed. */
export const MAX_OTHER_FILES = 5

const isError = (d: Diagnostic) => d.severity === 1

/** `ERROR [line:col] message`, 1-based. */
export const pretty = (d: Diagnostic): string => `ERROR [${d.range.start.line + 1}:${d.range.start.character + 1}] ${d.message}`

/** The block of one file's errors, or "" when it has none. */
export const report = (file: string, diagnostics: ReadonlyArray<Diagnostic>): string => {
  const errors = diagnostics.filter(isError)
  if (errors.length === 0) return ""
  const shown = errors.slice(0, MAX_PER_FILE).map(pretty)
  const more = errors.length - MAX_PER_FILE
  const suffix = more > 0 ? `\n... and ${more} more` : ""
  return `<diagnostics file="${file}">\n${shown.join("\n")}${suffix}\n</diagnostics>`
}

export interface Touched {
  /** Absolute path (the diagnostics' key). */
  readonly real: string
  /** The path shown to the model. */
  readonly shown: string
}

/**
 * What to append to a file tool's output: each touched file's errors (`ownHeading` says how that
 * file is named: "this file" for a one-file tool, its path for apply_patch), then the errors of at
 * most `MAX_OTHER_FILES` other files, shown by `show(path)`. Empty when nothing has errors.
 */
export const append = (
  touched: ReadonlyArray<Touched>,
  diagnostics: ReadonlyMap<string, ReadonlyArray<Diagnostic>>,
  ownHeading: (file: Touched) => string,
  show: (path: string) => string
): string => {
  let out = ""
  const own = new Set(touched.map((t) => t.real))
  for (const file of touched) {
    const block = report(file.shown, diagnostics.get(file.real) ?? [])
    if (block !== "") out += `\n\nLSP errors detected in ${ownHeading(file)}, please fix:\n${block}`
  }
  let others = 0
  for (const [path, list] of diagnostics) {
    if (own.has(path)) continue
    if (others >= MAX_OTHER_FILES) break
    const block = report(show(path), list)
    if (block === "") continue
    others++
    out += `\n\nLSP errors detected in other files:\n${block}`
  }
  return out
}
