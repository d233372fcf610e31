/** Byte buffers joined (chunks of a stream, a held-back partial character and the next chunk) and compared. */

/** `chunks` one after the other in one new buffer; `size` is their total length when the caller counted it. */
export const concat = (chunks: ReadonlyArray<Uint8Array>, size = chunks.reduce((n, c) => n + c.length, 0)): Uint8Array => {
  const out = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}

// A native comparison where the runtime has one (Node, Bun, Deno): a byte loop in JS takes
// milliseconds on a file of a few hundred KB.
interface CompareHost {
  readonly Buffer?: { readonly compare: (a: Uint8Array, b: Uint8Array) => number }
}
const nativeCompare = (globalThis as CompareHost).Buffer?.compare

/** Byte equality: native where the runtime has Buffer, else four bytes at a time where aligned. */
export const equal = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  if (nativeCompare !== undefined) return nativeCompare(a, b) === 0
  let i = 0
  if ((a.byteOffset & 3) === 0 && (b.byteOffset & 3) === 0) {
    const words = a.length >>> 2
    const wa = new Int32Array(a.buffer, a.byteOffset, words)
    const wb = new Int32Array(b.buffer, b.byteOffset, words)
    for (let w = 0; w < words; w++) if (wa[w] !== wb[w]) return false
    i = words * 4
  }
  for (; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
