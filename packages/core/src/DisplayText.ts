/**
 * Text made safe to show a person: every front end that puts tool-supplied text in front of the
 * user (the CLI's terminal prompts, the MCP elicitation message, the AI SDK approval reason) passes
 * it through here first. A command, its description, a path or a pattern is written by the model
 * or found in the workspace, so it may carry terminal escape codes, carriage returns, backspaces
 * or bidirectional overrides that repaint or reorder the prompt around it (a command that hides
 * itself, or fakes an "always allowed" line).
 *
 * Every control character (C0, DEL, C1), every invisible format character (bidi embeddings,
 * overrides and isolates, the LRM/RLM/ALM marks, zero-width characters, tag characters), the line
 * and paragraph separators and lone surrogates are shown as a visible escape: `\t`, `\n`, `\r` by
 * name, other code points below U+0100 as `\xNN`, the rest as `\uNNNN` (`\u{NNNNN}` above
 * U+FFFF). Backslashes are left alone, so a literal `\x1b` typed in a command looks like an
 * escaped ESC; that is ambiguous but harmless, and escaping every backslash would make commands
 * and regular expressions hard to read.
 *
 * Newlines: `line` shows them as `\n`, for values that are one line in the prompt (patterns,
 * paths, descriptions, question labels). `block` keeps them for text that is multi-line by nature
 * (a command with a heredoc, a diff), but starts every line after the first with a gutter the
 * caller gives, so no line of the value can pass for a line of the prompt itself.
 */

// Control (Cc), format (Cf) and surrogate (Cs) code points, plus the line and paragraph separators.
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu

const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" }

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")

/** The visible escape of one unsafe character. */
export const escapeChar = (char: string): string => {
  const named = NAMED[char]
  if (named !== undefined) return named
  const code = char.codePointAt(0)!
  if (code < 0x100) return `\\x${hex(code, 2)}`
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${hex(code, 4)}`
}

/** Whether `text` holds nothing that `line` would escape. */
export const isSafe = (text: string): boolean => !new RegExp(UNSAFE.source, "u").test(text)

/** One line: every control and format character escaped, newlines included (as `\n`). */
export const line = (text: string): string => text.replace(UNSAFE, escapeChar)

/**
 * Several lines: controls escaped, newlines kept (a CRLF counts as one newline; a lone `\r` is
 * escaped), tabs kept, and every line after the first starts with `gutter`.
 */
export const block = (text: string, gutter: string): string =>
  text.split(/\r?\n/).map((l) => l.replace(UNSAFE, (c) => c === "\t" ? c : escapeChar(c))).join(`\n${gutter}`)

/** The most of a long detail (a diff, a heredoc) a prompt shows: the user can still reject and ask for a smaller change. */
export const MAX_DETAIL = 8000

/** `text` cut to `MAX_DETAIL` characters, saying how many more there were. */
export const clip = (text: string): string =>
  text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL)}\n… (${text.length - MAX_DETAIL} more characters)`
