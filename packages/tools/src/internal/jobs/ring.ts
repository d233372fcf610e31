/**
 * A job's recent output in memory: the last `size` bytes it printed (`ByteRing`), with the count of
 * every byte ever pushed and a read mark, so a read returns what arrived since the previous one
 * (and says how much of that no longer fitted).
 */
import { ByteRing } from "@agent-tools/core"

export class Ring extends ByteRing.ByteRing {
  /** Every byte pushed so far. */
  total = 0
  /** `total` at the last read. */
  private readAt = 0

  override push(chunk: Uint8Array): void {
    this.total += chunk.length
    super.push(chunk)
  }

  /** Counts `n` bytes that were printed but never kept (the ring would have dropped them anyway). */
  skip(n: number): void {
    this.total += n
    this.clear()
  }

  /** Whether bytes arrived since the last read. */
  get unread(): boolean {
    return this.total > this.readAt
  }

  /** What arrived since the last read, and how many of those bytes were no longer kept; marks them read. */
  take(): { readonly bytes: Uint8Array; readonly omitted: number } {
    const fresh = this.total - this.readAt
    this.readAt = this.total
    const bytes = this.last(fresh)
    return { bytes, omitted: fresh - bytes.length }
  }
}
