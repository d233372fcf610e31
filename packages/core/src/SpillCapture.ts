/**
 * Follows a spill that a child process writes into directly (`SpillStorage.direct`): the file is
 * read back by position as it grows, lines are counted with a native byte search, and only the
 * bytes a preview can show are kept (both ends, or everything while it is short). The output
 * itself never becomes a string; only the preview's ends are decoded.
 *
 * Past `COUNT_LIMIT` bytes the file is no longer read through: only its size is followed and its
 * newest bytes read, so a huge output costs the call no pass over the whole file (which, on a busy
 * machine, slows the command that writes it). Its lines are then not counted, and the notice says so.
 *
 * The store's per-spill cap is applied by cutting the file back to it whenever the process has
 * written a slack past it, so a runaway command cannot fill the disk; at the end the copy is cut
 * to the cap and gets the store's `[spill truncated at N bytes]` trailer. Totals count what was
 * read before each cut.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as LineWindow from "./LineWindow.ts"
import type { DirectSpill, SpillError } from "./SpillStorage.ts"
import type { Limits } from "./Truncate.ts"
import * as Bytes from "./Bytes.ts"
import { ByteRing } from "./ByteRing.ts"
import * as Utf8 from "./Utf8.ts"

export const { countNewlines } = Utf8

/** Bytes read per positional read: large reads keep the round trips few. */
const CHUNK = 2 * 1024 * 1024
/** How far past the cap the file may grow before it is cut back. */
const CAP_SLACK = 64 * 1024 * 1024
/** Lines are counted, and the file read through, while the output is at most this long. */
export const COUNT_LIMIT = 64 * 1024 * 1024
/**
 * Past `COUNT_LIMIT`, how often (ms) a poll looks at the file's end: the live preview and the cap
 * need no more, and the command writing the file gets the CPU (every look is a stat and a read).
 */
const END_INTERVAL = 50
/** Kept beyond a budget so a line reaching the edge of what is kept can never fit it (a cut char backs off ≤ 3). */
const MARGIN = 8

/** The parts as one buffer; a single part is used as it is. */
const joined = (parts: ReadonlyArray<Uint8Array>): Uint8Array => parts.length === 1 ? parts[0]! : Bytes.concat(parts)

/** `bytes` decoded, starting at the first character boundary (a tail may begin inside one). */
const decodeFrom = (bytes: Uint8Array, decoder: { readonly decode: (b: Uint8Array) => string }): { readonly text: string; readonly skipped: number } => {
  let start = 0
  while (start < Math.min(3, bytes.length) && (bytes[start]! & 0xc0) === 0x80) start++
  return { text: decoder.decode(bytes.subarray(start)), skipped: start }
}

/** How many bytes at each end `windowOfEnds` needs: the head's budget and the tail's, each with a margin. */
export const endBytes = (limits: Limits) => ({
  head: LineWindow.headBudget(limits).bytes + MARGIN,
  tail: limits.direction === "head" ? 0 : limits.maxBytes + MARGIN
})

/**
 * The window of an output longer than `endBytes` at both ends together, from its first and last
 * bytes only: the same as `LineWindow.window` on the whole text (a walk from either end stops, at
 * the latest, on a line longer than the room left, and the margin makes any line reaching the edge
 * of the kept bytes such a line).
 */
export const windowOfEnds = (
  first: Uint8Array,
  last: Uint8Array,
  limits: Limits,
  totalLines: number | undefined
): LineWindow.Window => {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  const head = LineWindow.headSide(
    decoder.decode(first.subarray(0, first.length - Utf8.incompleteTail(first))),
    LineWindow.headBudget(limits)
  )
  if (limits.direction === "head") return { head, tail: { text: "", lines: 0, bytes: 0, size: 0, cut: false, edge: 0 } }
  const shown = head.lines - (head.cut ? 1 : 0)
  const tailText = decodeFrom(last, decoder).text
  // Without a count the output is far longer than both ends: they cannot share a line.
  const available = totalLines === undefined ? Infinity : totalLines - shown
  return { head, tail: LineWindow.tailSide(tailText, LineWindow.tailBudget(limits, head), 0, available) }
}

/** The totals of a followed output; `lines` undefined once it passed `COUNT_LIMIT`. */
export interface Totals {
  readonly lines: number | undefined
  readonly bytes: number
  readonly endsWithNewline: boolean
}

export class Follower {
  private readonly buffer = new Uint8Array(CHUNK)
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  private readonly prefixCap: number
  private readonly tailCap: number
  private readonly wholeCap: number
  /** Bytes of the file taken so far (its current end, as far as known). */
  private offset = 0
  /** Whether the file is still read through (and its lines counted): until it passes `COUNT_LIMIT`. */
  private counting = true
  /** When the file's end was last looked at (ms), past `COUNT_LIMIT`. */
  private endAt = -Infinity
  /** Bytes cut off the file past the cap (they were counted when read). */
  private dropped = 0
  private newlines = 0
  private lastByte = -1
  /** Every chunk, while the output is short enough to keep whole. */
  private whole: Array<Uint8Array> | undefined = []
  private head: Array<Uint8Array> = []
  private headBytes = 0
  private readonly tail: ByteRing
  /** Where the cap cuts the file (at a character boundary), once the output passed it. */
  private capCut: number | undefined
  private changed = false
  failure: SpillError | undefined

  private readonly spill: DirectSpill
  private readonly limits: Limits
  private readonly maxBytes: number | undefined

  constructor(spill: DirectSpill, limits: Limits, maxBytes: number | undefined, previewBytes: number) {
    this.spill = spill
    this.limits = limits
    this.maxBytes = maxBytes
    const ends = endBytes(limits)
    this.prefixCap = ends.head
    const suffix = ends.tail
    this.wholeCap = this.prefixCap + suffix
    this.tailCap = Math.max(suffix, previewBytes)
    this.tail = new ByteRing(this.tailCap)
  }

  get path(): string {
    return this.spill.path
  }

  /** Bytes the process wrote, as far as read. */
  get bytes(): number {
    return this.dropped + this.offset
  }

  private take(chunk: Uint8Array): void {
    const start = this.bytes
    this.newlines += Utf8.countNewlines(chunk)
    this.lastByte = chunk[chunk.length - 1]!
    this.changed = true
    if (this.whole !== undefined) {
      if (start + chunk.length <= this.wholeCap) this.whole.push(chunk.slice())
      else this.whole = undefined
    }
    if (this.headBytes < this.prefixCap) {
      const part = chunk.slice(0, this.prefixCap - this.headBytes)
      this.head.push(part)
      this.headBytes += part.length
    }
    this.tail.push(chunk)
    if (this.maxBytes !== undefined && this.capCut === undefined && start + chunk.length > this.maxBytes) {
      this.capCut = this.offset + Utf8.boundary(chunk, this.maxBytes - start)
    }
  }

  /**
   * Reads what the process appended since the last call (past `COUNT_LIMIT`, only its newest bytes,
   * and at most every `END_INTERVAL` ms).
   */
  readonly poll: Effect.Effect<void> = Effect.suspend(() => this.read(false))

  /** `poll` without the interval: everything written so far is taken (the process has ended). */
  readonly drain: Effect.Effect<void> = Effect.suspend(() => this.read(true))

  private read(all: boolean): Effect.Effect<void> {
    if (this.failure !== undefined) return Effect.void
    const self = this
    return Effect.gen(function*() {
      while (self.counting) {
        const n = yield* self.spill.read(self.buffer, self.offset)
        // Cut only at the end of what was written: bytes past what was read would go uncounted.
        if (n === 0) return yield* self.cutBack
        self.take(self.buffer.subarray(0, n))
        self.offset += n
        if (self.bytes > COUNT_LIMIT) self.counting = false
      }
      const now = yield* Clock.currentTimeMillis
      if (!all && now - self.endAt < END_INTERVAL) return
      self.endAt = now
      yield* self.followEnd
    }).pipe(Effect.catch((e) => Effect.sync(() => void (self.failure = e))))
  }

  /** Cuts the file back to the cap once the process has written a slack past it. */
  private readonly cutBack: Effect.Effect<void, SpillError> = Effect.suspend(() => {
    const cut = this.capCut
    if (cut === undefined || this.offset <= cut + CAP_SLACK) return Effect.void
    return Effect.map(this.spill.truncate(cut), () => {
      this.dropped += this.offset - cut
      this.offset = cut
    })
  })

  /**
   * Past `COUNT_LIMIT`: takes only the newest bytes the tail can show from what was appended (the
   * kept tail starts over when more than it holds arrived), and finds the cap's cut by reading the
   * few bytes around it.
   */
  private readonly followEnd: Effect.Effect<void, SpillError> = Effect.gen({ self: this }, function*() {
    const size = yield* this.spill.size
    if (size <= this.offset) return
    const from = Math.max(this.offset, size - this.tailCap)
    if (from > this.offset) this.tail.clear()
    const start = this.bytes
    for (let at = from; at < size;) {
      const n = yield* this.spill.read(this.buffer.subarray(0, Math.min(CHUNK, size - at)), at)
      if (n === 0) break
      this.tail.push(this.buffer.subarray(0, n))
      this.lastByte = this.buffer[n - 1]!
      at += n
    }
    this.changed = true
    if (this.maxBytes !== undefined && this.capCut === undefined && start + (size - this.offset) > this.maxBytes) {
      const at = this.maxBytes - this.dropped
      const probe = this.buffer.subarray(0, Math.min(3, at) + 1)
      const n = yield* this.spill.read(probe, at - (probe.length - 1))
      this.capCut = at - (probe.length - 1) + Utf8.boundary(probe.subarray(0, n), probe.length - 1)
    }
    this.offset = size
    yield* this.cutBack
  })

  /** Appends bytes that came through a pipe (read back by the next poll). */
  append(bytes: Uint8Array): Effect.Effect<void> {
    return this.spill.append(bytes).pipe(Effect.catch((e) => Effect.sync(() => void (this.failure = e))))
  }

  /** The last `chars` characters, when something arrived since the last call (`…` marks a cut). */
  preview(chars: number): string | undefined {
    if (!this.changed) return undefined
    this.changed = false
    const bytes = this.tail.last(chars * 4)
    const { skipped, text } = decodeFrom(bytes, this.decoder)
    const cut = bytes.length < this.bytes || skipped > 0 || text.length > chars
    return cut ? `…\n${text.slice(-chars)}` : text
  }

  measure(): Totals {
    const endsWithNewline = this.lastByte === 10
    const lines = this.counting ? this.newlines + (this.bytes > 0 && !endsWithNewline ? 1 : 0) : undefined
    return { lines, bytes: this.bytes, endsWithNewline }
  }

  /** The whole output as text, while it was short enough to keep. */
  text(): string | undefined {
    return this.whole === undefined ? undefined : this.decoder.decode(joined(this.whole))
  }

  /** The whole output and its measure, while it was short enough to keep (its lines are then counted). */
  kept(): { readonly text: string; readonly measure: LineWindow.Measure } | undefined {
    const text = this.text()
    const m = this.measure()
    return text === undefined || m.lines === undefined ? undefined : { text, measure: { ...m, lines: m.lines } }
  }

  /** The whole output read back from the file (for a tool whose truncation is disabled). */
  readonly readAll: Effect.Effect<string, SpillError> = Effect.suspend(() => {
    const whole = this.text()
    if (whole !== undefined) return Effect.succeed(whole)
    const self = this
    return Effect.gen(function*() {
    const parts: Array<string> = []
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
    for (let at = 0;;) {
      const n = yield* self.spill.read(self.buffer, at)
      if (n === 0) break
      parts.push(decoder.decode(self.buffer.subarray(0, n), { stream: true }))
      at += n
    }
    parts.push(decoder.decode())
    return parts.join("")
    })
  })

  /** The preview window of an output too long to keep whole: from the kept head and tail bytes. */
  window(): LineWindow.Window {
    const whole = this.kept()
    if (whole !== undefined) return LineWindow.window(whole.text, this.limits, whole.measure.lines)
    return windowOfEnds(joined(this.head), this.tail.last(this.limits.maxBytes + MARGIN), this.limits, this.measure().lines)
  }

  /** Makes the spill visible under its final name, cut to the cap with the trailer when it passed it. */
  readonly commit: Effect.Effect<string, SpillError> = Effect.suspend(() => {
    if (this.failure !== undefined) return Effect.fail(this.failure)
    const cut = this.capCut
    if (cut === undefined || this.bytes <= (this.maxBytes ?? Infinity)) return this.spill.commit()
    return this.spill.truncate(cut).pipe(
      Effect.andThen(this.spill.commit(new TextEncoder().encode(`\n[spill truncated at ${cut} bytes]\n`)))
    )
  })
}
