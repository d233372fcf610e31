/**
 * The `json` truncation strategy: a JSON array or object that does not fit the limits is reduced
 * to a smaller value of the same shape, so the preview is still valid JSON a program or a model
 * can parse. A cut array stays an array whose dropped items are replaced by one string counting
 * them; an object keeps all its keys (when their names fit) with reduced values; a long string
 * keeps its head and/or tail with the count of characters left out. The notice goes inside the
 * value: the first item of an array, or the first key (`[output truncated]`) of an object.
 *
 * Which end is kept follows `direction`, as for lines. The input's indentation is kept (compact
 * stays compact). Text that is not a JSON array or object is handed to the `lines` strategy.
 */
import * as LineWindow from "./LineWindow.ts"
import type { Direction, Limits } from "./Truncate.ts"
import { lines, type Notice, type Preview, type TruncationStrategy } from "./TruncationStrategy.ts"
import * as Utf8 from "./Utf8.ts"

/** The key an object's notice is stored under. */
export const NOTICE_KEY = "[output truncated]"

interface Dropped {
  items: number
  keys: number
  chars: number
}

const sizeOf = (value: unknown): number => Utf8.byteLength(JSON.stringify(value) ?? "null")

// Room kept for the strings that say what was dropped ("[… 123456 more items]").
const NOTE_BYTES = 32

const cutString = (s: string, budget: number, direction: Direction, dropped: Dropped): string => {
  const room = Math.max(0, budget - 2 - NOTE_BYTES)
  const head = direction === "head" ? room : direction === "tail" ? 0 : Math.floor(room * LineWindow.HEAD_SHARE)
  const first = Utf8.prefix(s.slice(0, head), head)
  const last = Utf8.suffix(s.slice(Math.max(first.length, s.length - (room - head))), room - head)
  const removed = s.length - first.length - last.length
  dropped.chars += removed
  const note = `[${removed} more characters]`
  return direction === "head" ? `${first}… ${note}` : direction === "tail" ? `${note} …${last}` : `${first}… ${note} …${last}`
}

/** Items from one end while they fit; the first one is reduced to fit when none would. */
const takeItems = (
  items: ReadonlyArray<unknown>,
  sizes: ReadonlyArray<number>,
  budget: number,
  direction: Direction,
  dropped: Dropped
): Array<unknown> => {
  const kept: Array<unknown> = []
  let used = 0
  for (const i of items.keys()) {
    const size = sizes[i]! + (kept.length > 0 ? 1 : 0)
    if (used + size <= budget) {
      kept.push(items[i])
      used += size
      continue
    }
    if (kept.length === 0 && budget > NOTE_BYTES) kept.push(shrink(items[i], budget, direction, dropped))
    break
  }
  return kept
}

const shrinkArray = (value: ReadonlyArray<unknown>, budget: number, direction: Direction, dropped: Dropped): Array<unknown> => {
  const sizes = value.map(sizeOf)
  const room = Math.max(0, budget - 2 - NOTE_BYTES)
  const headRoom = direction === "head" ? room : direction === "tail" ? 0 : Math.floor(room * LineWindow.HEAD_SHARE)
  const head = headRoom > 0 ? takeItems(value, sizes, headRoom, direction, dropped) : []
  const headUsed = head.reduce<number>((n, item) => n + sizeOf(item) + 1, 0)
  const rest = value.slice(head.length).toReversed()
  const tail = direction === "head"
    ? []
    : takeItems(rest, sizes.slice(head.length).toReversed(), room - headUsed, direction, dropped).toReversed()
  const removed = value.length - head.length - tail.length
  if (removed === 0) return [...head, ...tail]
  dropped.items += removed
  return [...head, `[… ${removed} more items]`, ...tail]
}

/** Every key kept while the names fit; the room left is shared out, small values first. */
const shrinkObject = (
  value: Readonly<Record<string, unknown>>,
  budget: number,
  direction: Direction,
  dropped: Dropped
): Record<string, unknown> => {
  const entries = Object.entries(value)
  let room = budget - 2 - NOTE_BYTES
  const keys: Array<[string, unknown]> = []
  for (const entry of entries) {
    const cost = sizeOf(entry[0]) + 2
    if (cost > room) break
    keys.push(entry)
    room -= cost
  }
  // Water-filling: a value smaller than an equal share keeps its size, the others share the rest.
  const order = keys.map(([, v], i) => ({ i, size: sizeOf(v) })).sort((a, b) => a.size - b.size)
  const allowance = new Array<number>(keys.length)
  let left = Math.max(0, room)
  order.forEach((entry, n) => {
    const share = Math.floor(left / (order.length - n))
    allowance[entry.i] = Math.min(entry.size, share)
    left -= allowance[entry.i]!
  })
  const out: Record<string, unknown> = {}
  keys.forEach(([k, v], i) => {
    out[k] = sizeOf(v) <= allowance[i]! ? v : shrink(v, allowance[i]!, direction, dropped)
  })
  const removed = entries.length - keys.length
  if (removed > 0) {
    dropped.keys += removed
    out["[…]"] = `${removed} more keys`
  }
  return out
}

/** `value` reduced so that its compact JSON takes about `budget` bytes at most. */
const shrink = (value: unknown, budget: number, direction: Direction, dropped: Dropped): unknown => {
  if (sizeOf(value) <= budget) return value
  if (typeof value === "string") return cutString(value, budget, direction, dropped)
  if (Array.isArray(value)) return shrinkArray(value, budget, direction, dropped)
  if (value !== null && typeof value === "object") return shrinkObject(value as Record<string, unknown>, budget, direction, dropped)
  return value // a number, boolean or null cannot be cut
}

/** The indentation of pretty-printed JSON (`undefined`: compact). */
const indentOf = (text: string): string | undefined => /\n([ \t]+)\S/.exec(text.trim())?.[1]?.slice(0, 10)

const describe = (d: Dropped): string => {
  const parts = [
    d.items > 0 ? `${d.items} array items` : "",
    d.keys > 0 ? `${d.keys} object keys` : "",
    d.chars > 0 ? `${d.chars} characters of strings` : ""
  ].filter((p) => p !== "")
  return `a valid JSON preview${parts.length > 0 ? ` (left out: ${parts.join(", ")})` : ""}`
}

const fits = (text: string, limits: Limits) => LineWindow.fits(LineWindow.measure(text), limits)

const MAX_ATTEMPTS = 12

export const json: TruncationStrategy = {
  name: "json",
  preview: (text, limits, notice): Preview => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return lines.preview(text, limits, notice)
    }
    if (value === null || typeof value !== "object") return lines.preview(text, limits, notice)
    const indent = indentOf(text)
    const render = (v: unknown) => JSON.stringify(v, null, indent)
    // The budget is in compact bytes; indentation and the line limit are met by shrinking it
    // in proportion to the overshoot until the rendering fits.
    let budget = limits.maxBytes
    let reduced: unknown = Array.isArray(value) ? [] : {}
    // Until a candidate fits: an empty array or object, with everything counted as left out.
    let dropped: Dropped = Array.isArray(value)
      ? { items: value.length, keys: 0, chars: 0 }
      : { items: 0, keys: Object.keys(value).length, chars: 0 }
    for (let attempt = 0; attempt < MAX_ATTEMPTS && budget > 2; attempt++) {
      const d: Dropped = { items: 0, keys: 0, chars: 0 }
      const candidate = shrink(value, budget, limits.direction, d)
      const shown = render(candidate)
      if (fits(shown, limits)) {
        reduced = candidate
        dropped = d
        break
      }
      const m = LineWindow.measure(shown)
      budget = Math.floor(budget * Math.min(limits.maxBytes / m.bytes, limits.maxLines / m.lines) * 0.9)
    }
    return withNotice(reduced, render, dropped, notice)
  }
}

/** The notice as the first array item or the first object key; the rest is `reduced` as rendered. */
const withNotice = (reduced: unknown, render: (v: unknown) => string, dropped: Dropped, notice: Notice): Preview => {
  const shown = render(reduced)
  const m = LineWindow.measure(shown)
  const removed = {
    lines: notice.totalLines === undefined ? undefined : Math.max(0, notice.totalLines - m.lines),
    bytes: Math.max(0, notice.totalBytes - m.bytes)
  }
  const text = `${notice.marker(removed, describe(dropped))}\n${notice.hint}`
  const content = Array.isArray(reduced)
    ? render([text, ...reduced])
    : render({ [NOTICE_KEY]: text, ...(reduced as Record<string, unknown>) })
  return { content, removedLines: removed.lines, removedBytes: removed.bytes }
}
