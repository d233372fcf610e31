/**
 * Brace expansion, as bash does it before anything else: `{a,b}` and `{1..3}` / `{a..c}` /
 * `{01..10..2}` turn one word into several (`rm {y,../x}` is `rm y ../x`). Quoted and escaped
 * braces are literal. Works on the source text of a word; each result is a source text again, which
 * `wordFromText` reads (quote removal and `~`).
 */
import type { Word } from "./words.ts"

/** More words than this from one word is not analysed (a program would not write it either). */
export const MAX_BRACE_WORDS = 1024

/** One character of the source, or one quoted/escaped chunk that brace expansion leaves alone. */
interface Unit {
  readonly text: string
  /** An unquoted character that expansion may act on. */
  readonly bare: boolean
}

const units = (text: string): Array<Unit> | undefined => {
  const out: Array<Unit> = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === "\\") {
      out.push({ text: text.slice(i, i + 2), bare: false })
      i += 2
    } else if (c === "'" || c === "\"") {
      let j = i + 1
      while (j < text.length && text[j] !== c) j += c === "\"" && text[j] === "\\" ? 2 : 1
      if (j >= text.length) return undefined
      out.push({ text: text.slice(i, j + 1), bare: false })
      i = j + 1
    } else {
      out.push({ text: c, bare: true })
      i++
    }
  }
  return out
}

const SEQUENCE = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/

/** The words of a `{x..y[..step]}` body, or undefined when it is not a valid sequence. */
const sequence = (body: string, limit: number): Array<string> | "too many" | undefined => {
  const m = SEQUENCE.exec(body)
  if (m === null) return undefined
  const [, from, to, stepText] = m as unknown as [string, string, string, string | undefined]
  const numeric = /\d/.test(from)
  if (numeric !== /\d/.test(to)) return undefined
  const a = numeric ? Number(from) : from.charCodeAt(0)
  const b = numeric ? Number(to) : to.charCodeAt(0)
  const step = Math.abs(stepText === undefined ? 1 : Number(stepText)) || 1
  if (Math.floor(Math.abs(b - a) / step) + 1 > limit) return "too many"
  const width = numeric && (/^-?0\d/.test(from) || /^-?0\d/.test(to)) ? Math.max(from.length, to.length) : 0
  const out: Array<string> = []
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
    if (!numeric) out.push(String.fromCharCode(v))
    else {
      const digits = String(Math.abs(v)).padStart(width - (v < 0 ? 1 : 0), "0")
      out.push(v < 0 ? `-${digits}` : digits)
    }
  }
  return out
}

/** Expands the leftmost brace expression of `us`, recursively. */
const expand = (us: ReadonlyArray<Unit>, limit: number): Array<string> | "too many" => {
  for (let open = 0; open < us.length; open++) {
    if (!us[open]!.bare || us[open]!.text !== "{") continue
    // `${…}` is a parameter expansion, not a brace expression.
    if (open > 0 && us[open - 1]!.bare && us[open - 1]!.text === "$") continue
    let depth = 0
    const commas: Array<number> = []
    let close = -1
    for (let j = open + 1; j < us.length; j++) {
      const u = us[j]!
      if (!u.bare) continue
      if (u.text === "{") depth++
      else if (u.text === "}") {
        if (depth === 0) {
          close = j
          break
        }
        depth--
      } else if (u.text === "," && depth === 0) commas.push(j)
    }
    if (close < 0) return [us.map((u) => u.text).join("")] // no matching brace: literal
    const pre = us.slice(0, open)
    const post = us.slice(close + 1)
    let alternatives: Array<ReadonlyArray<Unit>>
    if (commas.length > 0) {
      const cuts = [open, ...commas, close]
      alternatives = cuts.slice(1).map((c, k) => us.slice(cuts[k]! + 1, c))
    } else {
      const body = us.slice(open + 1, close)
      const seq = body.every((u) => u.bare) ? sequence(body.map((u) => u.text).join(""), limit) : undefined
      if (seq === "too many") return seq
      if (seq === undefined) {
        // `{x}` or `{}` is literal: keep the braces and expand what follows.
        const rest = expand(post, limit)
        if (rest === "too many") return rest
        const head = us.slice(0, close + 1).map((u) => u.text).join("")
        return rest.map((r) => head + r)
      }
      alternatives = seq.map((t) => [{ text: t, bare: false }])
    }
    const out: Array<string> = []
    for (const alternative of alternatives) {
      const words = expand([...pre, ...alternative, ...post], limit - out.length)
      if (words === "too many") return words
      out.push(...words)
      if (out.length > limit) return "too many"
    }
    return out
  }
  return [us.map((u) => u.text).join("")]
}

/**
 * The source texts a word expands to; `[text]` when it has no brace expression, `"too many"` past
 * `MAX_BRACE_WORDS`.
 */
export const expandBraces = (text: string): ReadonlyArray<string> | "too many" => {
  if (!text.includes("{")) return [text]
  const us = units(text)
  return us === undefined ? [text] : expand(us, MAX_BRACE_WORDS)
}

const GLOB_CHAR = /[*?[]/

/**
 * A word from source text without expansions other than `~`: quotes removed, escapes resolved.
 * Undefined when it holds something only known at run time (`$`, backticks, `$'…'`).
 */
export const wordFromText = (text: string, home: string): Word | undefined => {
  const us = units(text)
  if (us === undefined) return undefined
  let value = ""
  let glob = false
  for (const [i, u] of us.entries()) {
    if (u.bare) {
      if (u.text === "$" || u.text === "`") return undefined
      if (u.text === "~" && i === 0) {
        const next = us[1]
        if (home === "" || (next !== undefined && !(next.bare && next.text === "/"))) return undefined
        value += home.replace(/\/+$/, "")
        continue
      }
      if (GLOB_CHAR.test(u.text)) glob = true
      value += u.text
    } else if (u.text.startsWith("\\")) value += u.text.slice(1)
    else if (u.text.startsWith("'")) value += u.text.slice(1, -1)
    else {
      const inner = u.text.slice(1, -1)
      if (/(?<!\\)[$`]/.test(inner)) return undefined
      value += inner.replace(/\\([\\"$`\n])/g, (_, c: string) => c === "\n" ? "" : c)
    }
  }
  return { text, value, dynamic: false, glob, fd: false }
}
