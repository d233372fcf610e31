/**
 * codex's `seek_sequence`: find `pattern` in `lines` at or after `start`, trying exact, then
 * trailing-whitespace-insensitive, then trimmed, then with typographic punctuation folded to
 * ASCII (models write ’ “ — … where the file has ' " - ...). An end-of-file chunk is only looked
 * for at the very end.
 */

const PUNCTUATION: Record<string, string> = {
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
  "\u2018": "'", "\u2019": "'", "\u201A": "'", "\u201B": "'",
  "\u201C": '"', "\u201D": '"', "\u201E": '"', "\u201F": '"',
  "\u00A0": " ", "\u2002": " ", "\u2003": " ", "\u2004": " ", "\u2005": " ", "\u2006": " ", "\u2007": " ", "\u2008": " ",
  "\u2009": " ", "\u200A": " ", "\u202F": " ", "\u205F": " ", "\u3000": " ",
  "\u2026": "..."
}
const PUNCTUATION_RE = new RegExp(`[${Object.keys(PUNCTUATION).join("")}]`, "g")

export const normalizePunctuation = (s: string): string => s.trim().replace(PUNCTUATION_RE, (c) => PUNCTUATION[c]!)

const passes: ReadonlyArray<(s: string) => string> = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => s.trim(),
  normalizePunctuation
]

/** Where `pattern` is, and with which pass (0: exact … 3: punctuation folded) it was found. */
export interface Seek {
  readonly at: number
  readonly pass: number
}

const matchesAt = (lines: ReadonlyArray<string>, want: ReadonlyArray<string>, norm: (s: string) => string, i: number) => {
  for (let j = 0; j < want.length; j++) if (norm(lines[i + j]!) !== want[j]) return false
  return true
}

export const seek = (lines: ReadonlyArray<string>, pattern: ReadonlyArray<string>, start: number, eof: boolean): Seek | undefined => {
  if (pattern.length === 0) return { at: start, pass: 0 }
  if (pattern.length > lines.length) return undefined
  const from = eof ? lines.length - pattern.length : start
  const last = lines.length - pattern.length
  for (let pass = 0; pass < passes.length; pass++) {
    const norm = passes[pass]!
    const want = pattern.map(norm)
    for (let i = from; i <= last; i++) if (matchesAt(lines, want, norm, i)) return { at: i, pass }
  }
  return undefined
}

export const seekSequence = (
  lines: ReadonlyArray<string>,
  pattern: ReadonlyArray<string>,
  start: number,
  eof: boolean
): number | undefined => seek(lines, pattern, start, eof)?.at

/** Every later place `pattern` matches with the same pass as `found` (0-based line indexes). */
export const otherMatches = (lines: ReadonlyArray<string>, pattern: ReadonlyArray<string>, found: Seek): Array<number> => {
  const norm = passes[found.pass]!
  const want = pattern.map(norm)
  const out: Array<number> = []
  for (let i = found.at + 1; i <= lines.length - pattern.length; i++) if (matchesAt(lines, want, norm, i)) out.push(i)
  return out
}
