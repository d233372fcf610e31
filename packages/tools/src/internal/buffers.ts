/**
 * The file-sized buffers a file transaction reads into and builds the new file in, reused from
 * one call to the next. A new buffer per call of a large file costs more than the rest of an
 * edit: fresh memory the kernel maps and zeroes, and external memory whose growth drives V8 into
 * full collections. A buffer comes back once nothing holds the bytes in it any more (FileTime lets
 * go of a write's bytes when the file is written again), and only buffers made here come back.
 */

// Smaller buffers are cheap to make: not worth keeping.
const MIN_KEPT = 64 * 1024
// An edit has up to three file-sized buffers in hand at once (the plan's read, the new file, the
// check's read): that many spares make a series of edits allocate nothing. Their total is capped
// so that idle spares never hold much memory.
const MAX_SPARES = 3
const MAX_SPARE_BYTES = 32 * 1024 * 1024

// The buffers made here (never a runtime's shared pool slab or a caller's memory).
const made = new WeakSet<ArrayBufferLike>()
// The spare buffers, each handed back since it was last taken.
const spares: Array<ArrayBuffer> = []

/**
 * A buffer of at least `length` bytes, of undefined content: the smallest spare one that fits
 * without wasting more than the request, else a new one.
 */
export const takeBuffer = (length: number): Uint8Array => {
  let best = -1
  for (let i = 0; i < spares.length; i++) {
    const size = spares[i]!.byteLength
    if (size >= length && size <= 2 * length && (best === -1 || size < spares[best]!.byteLength)) best = i
  }
  if (best !== -1) return new Uint8Array(spares.splice(best, 1)[0]!)
  if (length < MIN_KEPT) return new Uint8Array(length)
  // Room to spare, so the same file grown a little still fits next time.
  const fresh = new Uint8Array(length + (length >>> 4))
  made.add(fresh.buffer)
  return fresh
}

/** Hands back the buffer under `bytes`: nothing may use any of it afterwards. */
export const giveBack = (bytes: Uint8Array): void => {
  const buffer = bytes.buffer
  if (!made.has(buffer) || !(buffer instanceof ArrayBuffer) || spares.includes(buffer)) return
  spares.push(buffer)
  // Over the limits, the smallest spares go first (the largest fits the most requests).
  spares.sort((a, b) => b.byteLength - a.byteLength)
  let total = 0
  for (let i = 0; i < spares.length; i++) {
    total += spares[i]!.byteLength
    if (i >= MAX_SPARES || total > MAX_SPARE_BYTES) {
      spares.length = i
      break
    }
  }
}
