/**
 * A job's recent output in memory: the last `size` bytes it printed, in a buffer allocated once,
 * with the count of every byte ever pushed and a read mark, so a read returns what arrived since
 * the previous one (and says how much of that no longer fitted).
 */
import { Bytes } from "@agent-tools/core"

export class Ring {
  private readonly data: Uint8Array
  private at = 0
  private filled = 0
  /** Every byte pushed so far. */
  total = 0
  /** `total` at the last read. */
  private readAt = 0

  constructor(size: number) {
    this.data = new Uint8Array(Math.max(0, size))
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length
    const size = this.data.length
    if (size === 0) return
    const part = chunk.length > size ? chunk.subarray(chunk.length - size) : chunk
    const first = Math.min(part.length, size - this.at)
    this.data.set(part.subarray(0, first), this.at)
    this.data.set(part.subarray(first), 0)
    this.at = (this.at + part.length) % size
    this.filled = Math.min(size, this.filled + part.length)
  }

  /** Counts `n` bytes that were printed but never kept (the ring would have dropped them anyway). */
  skip(n: number): void {
    this.total += n
    this.at = 0
    this.filled = 0
  }

  /** Whether bytes arrived since the last read. */
  get unread(): boolean {
    return this.total > this.readAt
  }

  /** The last `n` bytes kept (at most what is kept), in order. */
  last(n: number): Uint8Array {
    const size = this.data.length
    const k = Math.min(n, this.filled)
    if (k === 0) return new Uint8Array(0)
    const start = (this.at - k + size) % size
    if (start + k <= size) return this.data.slice(start, start + k)
    return Bytes.concat([this.data.subarray(start), this.data.subarray(0, k - (size - start))])
  }

  /** What arrived since the last read, and how many of those bytes were no longer kept; marks them read. */
  take(): { readonly bytes: Uint8Array; readonly omitted: number } {
    const fresh = this.total - this.readAt
    this.readAt = this.total
    const bytes = this.last(fresh)
    return { bytes, omitted: fresh - bytes.length }
  }
}
