/**
 * The last `size` bytes pushed, in a buffer allocated once (no garbage per chunk): the tail of an
 * output kept in bounded memory, however much of it goes by.
 */
import * as Bytes from "./Bytes.ts"

export class ByteRing {
  private readonly data: Uint8Array
  private at = 0
  private filled = 0

  constructor(size: number) {
    this.data = new Uint8Array(Math.max(0, size))
  }

  push(chunk: Uint8Array): void {
    const size = this.data.length
    if (size === 0) return
    const part = chunk.length > size ? chunk.subarray(chunk.length - size) : chunk
    const first = Math.min(part.length, size - this.at)
    this.data.set(part.subarray(0, first), this.at)
    this.data.set(part.subarray(first), 0)
    this.at = (this.at + part.length) % size
    this.filled = Math.min(size, this.filled + part.length)
  }

  /** Forgets what is kept. */
  clear(): void {
    this.at = 0
    this.filled = 0
  }

  /** The last `n` bytes (at most what is kept), in order. */
  last(n: number): Uint8Array {
    const size = this.data.length
    const k = Math.min(n, this.filled)
    if (k === 0) return new Uint8Array(0)
    const start = (this.at - k + size) % size
    if (start + k <= size) return this.data.slice(start, start + k)
    return Bytes.concat([this.data.subarray(start), this.data.subarray(0, k - (size - start))])
  }
}
