/**
 * The file-sized buffers a file transaction reads into, reused from one call to the next. A new
 * buffer per call of a large file costs more than the rest of an edit: fresh memory the kernel
 * maps and zeroes, and external memory whose growth drives V8 into full collections. A buffer
 * comes back once nothing holds the bytes in it any more (FileTime lets go of a write's bytes
 * when the file is written again), and only buffers made here come back.
 */

// Smaller buffers are cheap to make: not worth keeping.
const MIN_KEPT = 64 * 1024

// The buffers made here (never a runtime's shared pool slab or a caller's memory).
const made = new WeakSet<ArrayBufferLike>()
// The one spare buffer: the largest handed back since it was last taken.
let spare: ArrayBuffer | undefined

/**
 * A buffer of at least `length` bytes, of undefined content: the spare one when it fits without
 * wasting more than the request, else a new one.
 */
export const takeBuffer = (length: number): Uint8Array => {
  if (spare !== undefined && spare.byteLength >= length && spare.byteLength <= 2 * length) {
    const buffer = spare
    spare = undefined
    return new Uint8Array(buffer)
  }
  if (length < MIN_KEPT) return new Uint8Array(length)
  // Room to spare, so the same file grown a little still fits next time.
  const fresh = new Uint8Array(length + (length >>> 4))
  made.add(fresh.buffer)
  return fresh
}

/** Hands back the buffer under `bytes`: nothing may use any of it afterwards. */
export const giveBack = (bytes: Uint8Array): void => {
  const buffer = bytes.buffer
  if (!made.has(buffer) || !(buffer instanceof ArrayBuffer)) return
  if (spare === undefined || buffer.byteLength > spare.byteLength) spare = buffer
}
