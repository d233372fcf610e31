/**
 * UTF-8 byte accounting on JS strings and byte arrays: lengths, and cuts that never split a
 * character (a byte cut must not leave U+FFFD or exceed the limit).
 *
 * Strings count as `TextEncoder` encodes them: a lone surrogate is U+FFFD, 3 bytes.
 */
import { scanner } from "./Utf8Scan.ts"

interface ByteLengthHost {
  readonly Buffer?: { readonly byteLength: (s: string, encoding: "utf8") => number }
}
const nativeByteLength = (globalThis as ByteLengthHost).Buffer?.byteLength

/** Bytes of `s` in UTF-8, counted without encoding it (native where the runtime has Buffer). */
export const byteLength = (s: string): number =>
  nativeByteLength !== undefined ? nativeByteLength(s, "utf8") : scanByteLength(s)

const scanByteLength = (s: string): number => {
  let bytes = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && isLow(s.charCodeAt(i + 1))) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff

/** The longest prefix of `s` whose UTF-8 form fits in `maxBytes`; never splits a surrogate pair. */
export const prefix = (s: string, maxBytes: number): string => {
  let bytes = 0
  let i = 0
  while (i < s.length) {
    const c = s.charCodeAt(i)
    const pair = isHigh(c) && isLow(s.charCodeAt(i + 1))
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3
    if (bytes + size > maxBytes) break
    bytes += size
    i += pair ? 2 : 1
  }
  return s.slice(0, i)
}

/** The longest suffix of `s` whose UTF-8 form fits in `maxBytes`; never splits a surrogate pair. */
export const suffix = (s: string, maxBytes: number): string => {
  let bytes = 0
  let i = s.length
  while (i > 0) {
    const c = s.charCodeAt(i - 1)
    const pair = isLow(c) && i >= 2 && isHigh(s.charCodeAt(i - 2))
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3
    if (bytes + size > maxBytes) break
    bytes += size
    i -= pair ? 2 : 1
  }
  return s.slice(i)
}

const isContinuation = (b: number | undefined) => b !== undefined && (b & 0xc0) === 0x80

/**
 * How many trailing bytes of `bytes` are an incomplete UTF-8 sequence (0–3): a writer holds them
 * back so that a later cut can never fall inside a character split across two chunks.
 */
export const incompleteTail = (bytes: Uint8Array): number => {
  const n = bytes.length
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back]!
    if (isContinuation(b)) continue
    const need = b >= 0xf0 && b < 0xf8 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
    return need > back ? back : 0
  }
  return 0
}

/** The largest cut ≤ `index` that does not fall inside a character (backs off at most 3 bytes). */
export const boundary = (bytes: Uint8Array, index: number): number => {
  let cut = Math.min(index, bytes.length)
  for (let step = 0; step < 3 && cut > 0 && isContinuation(bytes[cut]); step++) cut--
  return cut
}

interface BufferHost {
  readonly Buffer?: { readonly from: (b: ArrayBufferLike, offset: number, length: number) => NodeBufferView }
}
interface NodeBufferView extends Uint8Array {
  readonly indexOf: (value: number, from?: number) => number
  readonly ucs2Write: (s: string) => number
}
const NodeBuffer = (globalThis as unknown as BufferHost).Buffer

/** Below this many bytes a byte search per newline is as cheap as copying into the scanner. */
const SCAN_MIN_BYTES = 64 * 1024

/**
 * Newlines in `bytes`: counted 16 bytes a step by the SIMD scanner (copied into its data area in
 * slices) for long inputs, with a byte search (`Buffer#indexOf` is a memchr) for short ones.
 */
export const countNewlines = (bytes: Uint8Array): number => {
  const scan = bytes.length >= SCAN_MIN_BYTES ? scanner() : undefined
  if (scan !== undefined) {
    let n = 0
    for (let at = 0; at < bytes.length; at += scan.data.length) {
      const part = bytes.subarray(at, at + scan.data.length)
      scan.data.set(part)
      n += scan.newlines(part.length)
    }
    return n
  }
  const view = NodeBuffer === undefined ? bytes : NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  let n = 0
  for (let i = view.indexOf(10); i !== -1; i = view.indexOf(10, i + 1)) n++
  return n
}

/** Units encoded per slice by `measureEncoded`: a reused buffer of 3 bytes a unit. */
const MEASURE_SLICE = 1 << 20

/**
 * UTF-8 bytes and newlines of a long `s` without encoding it: slices of its UTF-16 units are
 * copied into the SIMD scanner, which counts newlines and the bytes each unit takes; a slice
 * holding surrogates (a pair is 4 bytes, a lone one 3) is sized by `byteLength`. Where there is
 * no scanner (or no Buffer to copy the units with), `measureEncoded`.
 */
export const measureText = (s: string): { readonly bytes: number; readonly newlines: number } => {
  const scan = scanner()
  if (scan === undefined || NodeBuffer === undefined) return measureEncoded(s)
  const units = NodeBuffer.from(scan.data.buffer, scan.data.byteOffset, scan.data.length)
  const slice = scan.data.length >> 1
  let bytes = 0
  let newlines = 0
  for (let i = 0; i < s.length;) {
    let end = Math.min(s.length, i + slice)
    // A slice must not end between the halves of a surrogate pair: apart, each counts as 3 bytes.
    if (end < s.length && isHigh(s.charCodeAt(end - 1))) end--
    const part = s.slice(i, end)
    const m = scan.measure16(units.ucs2Write(part) >> 1)
    newlines += m.newlines
    bytes += m.surrogates > 0 ? byteLength(part) : m.bytes
    i = end
  }
  return { bytes, newlines }
}

/**
 * UTF-8 bytes and newlines of `s` in one pass over its encoding (slices encoded into one reused
 * buffer, newlines found with a byte search).
 */
export const measureEncoded = (s: string): { readonly bytes: number; readonly newlines: number } => {
  const encoder = new TextEncoder()
  const buffer = new Uint8Array(Math.min(s.length, MEASURE_SLICE) * 3)
  let bytes = 0
  let newlines = 0
  for (let i = 0; i < s.length;) {
    let end = Math.min(s.length, i + MEASURE_SLICE)
    // A slice must not end between the halves of a surrogate pair: each half alone encodes as U+FFFD.
    if (end < s.length && isHigh(s.charCodeAt(end - 1))) end--
    const { written } = encoder.encodeInto(s.slice(i, end), buffer)
    const part = buffer.subarray(0, written)
    bytes += written
    newlines += countNewlines(part)
    i = end
  }
  return { bytes, newlines }
}
