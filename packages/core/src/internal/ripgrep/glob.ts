/**
 * Gitignore-style globs as ripgrep reads them (the `ignore` and `globset` crates), compiled to
 * JavaScript regular expressions for the portable search layer. The same rules serve `.gitignore`,
 * `.ignore` and `.rgignore` lines and `--glob` overrides:
 *
 * - `#` starts a comment, `!` negates, `\#` and `\!` are literal; trailing spaces are trimmed
 *   unless escaped.
 * - A leading `/` or a `/` inside anchors the glob to its base directory; without one it matches
 *   a name at any depth (`**\/` is prepended). A trailing `/` matches directories only.
 * - `*` and `?` never cross `/`; `**` is a whole path component (`**\/x`, `x/**`, `a/**\/b`, `**`);
 *   `[...]` / `[!...]` classes; `{a,b}` alternatives (not nested); `\` escapes. Dotfiles are not
 *   special: `*` matches `.env`.
 */

export interface Rule {
  /** The line as written (after trimming), for messages. */
  readonly source: string
  readonly regex: RegExp
  /** A trailing `/`: the rule applies to directories only. */
  readonly dirOnly: boolean
  /** `!` in an ignore file (re-include); in a `--glob` override the meaning is inverted by the caller. */
  readonly negated: boolean
}

/** A glob that globset would reject (rg exits with "error parsing glob"). */
export class GlobSyntaxError extends Error {
  readonly glob: string
  readonly reason: string
  constructor(glob: string, reason: string) {
    super(`error parsing glob '${glob}': ${reason}`)
    this.glob = glob
    this.reason = reason
  }
}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/-]/g
const escapeRegex = (s: string): string => s.replace(REGEX_SPECIAL, "\\$&")

/** Translates one glob (no `!`, no anchoring decisions left) to a regex source. */
const translate = (glob: string, original: string): string => {
  let out = ""
  let i = 0
  let inAlternate = false
  const n = glob.length
  const atComponentStart = (at: number) => at === 0 || glob[at - 1] === "/" || (inAlternate && (glob[at - 1] === "{" || glob[at - 1] === ","))
  while (i < n) {
    const c = glob[i]!
    if (c === "\\") {
      if (i + 1 < n) {
        out += escapeRegex(glob[i + 1]!)
        i += 2
      } else {
        throw new GlobSyntaxError(original, "dangling '\\'")
      }
      continue
    }
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const start = atComponentStart(i)
        const end = i + 2 === n || glob[i + 2] === "/" || (inAlternate && (glob[i + 2] === "}" || glob[i + 2] === ","))
        if (!start || !end) {
          out += "[^/]*" // not a whole component: globset reads it as "*"
          i += 2
        } else if (i === 0 && glob[i + 2] === "/") {
          out += "(?:.*/)?" // **/ prefix: zero or more directories
          i += 3
        } else if (glob[i + 2] === "/") {
          // a/**/b: the preceding "/" is already emitted; match zero or more directories
          out += "(?:.*/)?"
          i += 3
        } else if (i > 0 && glob[i - 1] === "/") {
          out += ".*" // a/** suffix: everything under
          i += 2
        } else {
          out += ".*"
          i += 2
        }
      } else {
        out += "[^/]*"
        i += 1
      }
      continue
    }
    if (c === "?") {
      out += "[^/]"
      i += 1
      continue
    }
    if (c === "[") {
      let j = i + 1
      let negate = false
      if (glob[j] === "!" || glob[j] === "^") {
        negate = true
        j++
      }
      let cls = ""
      // A "]" right after "[" or "[!" is a member.
      if (glob[j] === "]") {
        cls += "\\]"
        j++
      }
      while (j < n && glob[j] !== "]") {
        const ch = glob[j]!
        if (ch === "-" && cls !== "" && glob[j + 1] !== "]" && j + 1 < n) cls += "-"
        else cls += ch === "\\" || ch === "]" || ch === "[" || ch === "^" || ch === "-" ? `\\${ch}` : ch
        j++
      }
      if (j >= n) throw new GlobSyntaxError(original, "unclosed character class; missing ']'")
      out += negate ? `[^/${cls}]` : `[${cls}]`
      i = j + 1
      continue
    }
    if (c === "{") {
      if (inAlternate) throw new GlobSyntaxError(original, "nested alternate groups are not allowed")
      inAlternate = true
      out += "(?:"
      i += 1
      continue
    }
    if (c === "}" && inAlternate) {
      inAlternate = false
      out += ")"
      i += 1
      continue
    }
    if (c === "," && inAlternate) {
      out += "|"
      i += 1
      continue
    }
    out += escapeRegex(c)
    i += 1
  }
  if (inAlternate) {
    throw new GlobSyntaxError(original, "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
  }
  return out
}

/**
 * Parses one ignore-file line (or `--glob` value). Returns `undefined` for blank lines and
 * comments; throws `GlobSyntaxError` for a glob ripgrep would reject.
 */
export const parseLine = (raw: string, options: { readonly caseInsensitive?: boolean | undefined } = {}): Rule | undefined => {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
  if (line.startsWith("#")) return undefined
  if (!line.endsWith("\\ ")) line = line.trimEnd()
  if (line === "") return undefined
  const source = line
  let negated = false
  if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1)
  else if (line.startsWith("!")) {
    negated = true
    line = line.slice(1)
  }
  let anchored = false
  if (line.startsWith("/")) {
    anchored = true
    line = line.slice(1)
  }
  let dirOnly = false
  if (line.endsWith("/") && line.length > 0) {
    dirOnly = true
    line = line.slice(0, -1)
  }
  if (line === "") return undefined
  let glob = line
  if (!anchored && !line.includes("/") && !line.startsWith("**/")) glob = `**/${line}`
  if (glob.endsWith("/**")) glob = `${glob}/*`
  const source_ = translate(glob, source)
  return { source, regex: new RegExp(`^${source_}$`, options.caseInsensitive ? "is" : "s"), dirOnly, negated }
}

/** Rules from an ignore file's text, in file order. Bad lines are skipped (rg warns and goes on). */
export const parseFile = (text: string): ReadonlyArray<Rule> => {
  const rules: Array<Rule> = []
  for (const line of text.split("\n")) {
    try {
      const rule = parseLine(line)
      if (rule !== undefined) rules.push(rule)
    } catch {
      // ripgrep reports an unparsable ignore line on stderr and keeps the rest of the file
    }
  }
  return rules
}

/**
 * The last rule matching `path` (relative to the rules' base, `/`-separated) decides:
 * `"ignore"`, `"whitelist"` (a `!` rule), or `undefined` when none matches.
 */
export const matchRules = (rules: ReadonlyArray<Rule>, path: string, isDir: boolean): "ignore" | "whitelist" | undefined => {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!
    if (rule.dirOnly && !isDir) continue
    if (rule.regex.test(path)) return rule.negated ? "whitelist" : "ignore"
  }
  return undefined
}
