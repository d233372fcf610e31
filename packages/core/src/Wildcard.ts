/**
 * Wildcard patterns for permission rules, with opencode's semantics (`util/wildcard.ts`):
 *
 * - `*` matches any run of characters, `/` and newlines included (no path-segment semantics);
 *   `?` matches exactly one character. Every other character is literal (`[abc]` is not a class).
 * - A pattern ending in `" *"` makes the arguments optional: `ls *` matches `ls` and `ls -la`,
 *   never `lstmeval`.
 * - Backslashes become `/` in both the string and the pattern, so Windows paths match `/` patterns.
 * - Anchored at both ends; case-insensitive only on Windows (`platform: "win32"`).
 *
 * Compiled patterns are cached (bounded), so evaluating many rules does not rebuild a RegExp per
 * call (opencode rebuilt one on every `match`).
 */

export interface Options {
  /** `"win32"` matches case-insensitively; anything else (default `"posix"`) is case-sensitive. */
  readonly platform?: string | undefined
}

const MAX_CACHED = 4096
const cache = new Map<string, RegExp>()

const SPECIALS = /[.+^${}()|[\]\\]/g

const normalize = (s: string) => s.replaceAll("\\", "/")

const build = (pattern: string, flags: string): RegExp => {
  let source = normalize(pattern)
    .replace(SPECIALS, "\\$&")
    .replaceAll("*", ".*")
    .replaceAll("?", ".")
  // "cmd *" also matches a bare "cmd", but not "cmdfoo": the space plus arguments are optional.
  if (source.endsWith(" .*")) source = source.slice(0, -3) + "( .*)?"
  return new RegExp(`^${source}$`, flags)
}

/** The anchored RegExp for `pattern`, compiled once and cached. */
export const compile = (pattern: string, options?: Options): RegExp => {
  const flags = options?.platform === "win32" ? "si" : "s"
  const key = `${flags}\u0000${pattern}`
  const hit = cache.get(key)
  if (hit !== undefined) {
    // Refresh recency: Map keeps insertion order, so the first key is the least recently used.
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  const regex = build(pattern, flags)
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next()
    if (oldest.done !== true) cache.delete(oldest.value)
  }
  cache.set(key, regex)
  return regex
}

/** True when `str` matches `pattern` (see the module docs for the syntax). */
export const match = (str: string, pattern: string, options?: Options): boolean =>
  // The compiled regexes have no `g` flag, so `test` keeps no state between calls.
  compile(pattern, options).test(normalize(str))

/** True when `pattern` contains a wildcard (`*` or `?`). */
export const hasWildcard = (pattern: string): boolean => pattern.includes("*") || pattern.includes("?")
