/**
 * Re-basing an edit over a change made elsewhere in the file: the session read `base`, the file
 * is now `current` (another process or editor changed it), and the edit made `next` of `current`.
 * The edit stands when the lines changed since the read and the lines the edit changes are apart.
 * Compared as bytes (one span each: from the first to the last differing byte, taken to whole
 * lines), so two changes on one line, or a change between two edited places, count as overlapping;
 * like a merge, changes of adjacent lines do too (a line added after the one edited may belong to it).
 */

const NL = 10

const newlines = (b: Uint8Array, to: number): number => {
  let n = 0
  for (let i = b.indexOf(NL); i !== -1 && i < to; i = b.indexOf(NL, i + 1)) n++
  return n
}

/** The lines of `b` (0-based, inclusive) in the span where it differs from `a` (common head and tail cut). */
const changedLines = (a: Uint8Array, b: Uint8Array): { readonly first: number; readonly last: number } => {
  const min = Math.min(a.length, b.length)
  let head = 0
  while (head < min && a[head] === b[head]) head++
  let tail = 0
  while (tail < min - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const end = b.length - tail
  return { first: newlines(b, head), last: newlines(b, Math.max(head, end - 1)) }
}

/** Whether the change `base` → `current` and the edit `current` → `next` touch the same or adjacent lines of `current`. */
export const overlapping = (base: Uint8Array, current: Uint8Array, next: Uint8Array): boolean => {
  const since = changedLines(base, current)
  const edit = changedLines(next, current)
  return since.first <= edit.last + 1 && edit.first <= since.last + 1
}
