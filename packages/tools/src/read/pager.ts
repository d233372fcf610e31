/**
 * Line paging for the read tool: offset/limit, the per-line cut and the byte cap, fed either from a
 * whole decoded file or from a byte stream (big files, spills of non-file stores) that it stops as
 * soon as the page is full, with memory bounded even for a file that is one huge line.
 */
import { MAX_LINE_LENGTH, MAX_READ_BYTES } from "../internal/limits.ts"
import { kilobytes } from "../internal/size.ts"

export const LINE_SUFFIX = `... (line truncated to ${MAX_LINE_LENGTH} chars)`

const utf8Length = (s: string): number => {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

export class Pager {
  /** Lines seen so far (all of them, also those before the offset). */
  count = 0
  readonly kept: Array<string> = []
  /** There is at least one line after the page. */
  more = false
  /** The page stopped at the byte cap rather than at `limit`. */
  cut = false
  private bytes = 0
  readonly offset: number
  readonly limit: number
  /** Most bytes of the page as rendered (line numbers included). */
  readonly maxBytes: number
  /** The cap the footer names when the page stops at `maxBytes`. */
  readonly capLabel: string

  constructor(offset: number, limit: number, maxBytes = MAX_READ_BYTES, capLabel = kilobytes(MAX_READ_BYTES)) {
    this.offset = offset
    this.limit = limit
    this.maxBytes = maxBytes
    this.capLabel = capLabel
  }

  /** Takes the next line; false once the page is complete and reading can stop. */
  push(line: string): boolean {
    this.count++
    if (this.count < this.offset) return true
    if (this.kept.length >= this.limit) {
      this.more = true
      return false
    }
    const shown = line.length > MAX_LINE_LENGTH ? line.slice(0, MAX_LINE_LENGTH) + LINE_SUFFIX : line
    const number = String(this.offset + this.kept.length).length + 2 // "N: "
    const size = number + utf8Length(shown) + (this.kept.length > 0 ? 1 : 0)
    if (this.bytes + size > this.maxBytes) {
      this.cut = true
      this.more = true
      return false
    }
    this.kept.push(shown)
    this.bytes += size
    return true
  }

  get lastLine(): number {
    return this.offset + this.kept.length - 1
  }

  /** The footer; `total` is known when the whole file was read. */
  footer(total: number | undefined): string {
    const range = `${this.offset}-${this.lastLine}`
    if (this.cut) return `(Output capped at ${this.capLabel}. Showing lines ${range}. Use offset=${this.lastLine + 1} to continue.)`
    if (this.more) {
      return `(Showing lines ${range}${total === undefined ? "" : ` of ${total}`}. Use offset=${this.lastLine + 1} to continue.)`
    }
    return `(End of file - total ${total ?? this.count} lines)`
  }

  /** `Offset N is out of range` when the file has fewer lines than the offset. */
  outOfRange(total: number): string | undefined {
    return total < this.offset && !(total === 0 && this.offset === 1)
      ? `Offset ${this.offset} is out of range for this file (${total} lines)`
      : undefined
  }

  render(): string {
    return this.kept.map((l, i) => `${this.offset + i}: ${l}`).join("\n")
  }
}

/** The lines of a decoded text: CRLF and LF both end a line, a final newline adds none. */
export const textLines = (text: string): Array<string> => {
  if (text.length === 0) return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith("\r")) lines[i] = lines[i]!.slice(0, -1)
  return lines
}

/**
 * Splits a byte stream into lines for a pager. A line longer than the cut keeps only what the
 * page shows, so a 50 MB single-line file costs a few KB.
 */
export class StreamLines {
  private readonly decoder = new TextDecoder("utf-8")
  private carry = ""
  done = false
  private readonly pager: Pager

  constructor(pager: Pager) {
    this.pager = pager
  }

  private line(raw: string): boolean {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
    return this.pager.push(line)
  }

  /** Feeds a chunk; false once the pager needs nothing more. */
  feed(chunk: Uint8Array): boolean {
    if (this.done) return false
    const text = this.carry + this.decoder.decode(chunk, { stream: true })
    let from = 0
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", from)) {
      const ok = this.line(text.slice(from, i))
      from = i + 1
      if (!ok) {
        this.done = true
        return false
      }
    }
    this.carry = text.slice(from)
    // Enough of an over-long line to show it cut; the rest is dropped as it arrives.
    if (this.carry.length > MAX_LINE_LENGTH + 1) this.carry = this.carry.slice(0, MAX_LINE_LENGTH + 1)
    return true
  }

  end(): void {
    if (this.done) return
    const rest = this.carry + this.decoder.decode()
    if (rest.length > 0) this.line(rest)
    this.done = true
  }
}
