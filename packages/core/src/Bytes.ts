/** Byte buffers joined: chunks of a stream, a held-back partial character and the next chunk. */

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
