/**
 * What a terminal printed, as plain text for a model: escape sequences (colours, cursor moves,
 * titles, bracketed paste) removed, `\r\n` as `\n`, a carriage return that redraws a line (a
 * progress bar, a prompt's echo) keeping only what is left visible on it, backspaces applied.
 * Full-screen programs that move the cursor around need the rendered screen instead
 * (`Terminal.Process.screen`); this is for line-oriented output: REPLs, prompts, builds.
 */

/** CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`), DCS/SOS/PM/APC strings, and two-character escapes. */
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[ -/]*[0-~]|\u009b[0-?]*[ -/]*[@-~]/g

/** Control characters other than tab, newline, carriage return and backspace. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0007\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f]/g

/** One line as a terminal would leave it: `\r` returns to its start, `\b` steps back one cell. */
const settle = (line: string): string => {
  if (!line.includes("\r") && !line.includes("\b")) return line
  const cells: Array<string> = []
  let at = 0
  for (const ch of line) {
    if (ch === "\r") at = 0
    else if (ch === "\b") at = Math.max(0, at - 1)
    else {
      cells[at] = ch
      at++
    }
  }
  return cells.join("")
}

/** `text` without escape sequences, each line as left on screen. */
export const plain = (text: string): string =>
  text
    .replace(ESCAPES, "")
    .replace(CONTROLS, "")
    .replace(/\r+\n/g, "\n")
    .split("\n")
    .map(settle)
    .join("\n")
