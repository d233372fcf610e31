/**
 * Byte-exact text handling for the file tools: encoding detection (UTF-8 with or without BOM,
 * UTF-16 with BOM, anything else as Latin-1 so every byte round-trips), line-ending detection and
 * the LF-normalised view that matching works on, binary sniffing and image/PDF magic numbers.
 *
 * A decode must never turn bytes into U+FFFD, so a file that is not valid
 * UTF-8 is decoded one byte per code point (Latin-1) and re-encoded the same way; a character that
 * Latin-1 cannot hold makes the edit fail instead of silently changing the file's encoding.
 */

export type Encoding = "utf-8" | "latin1" | "utf-16le" | "utf-16be"

export interface Decoded {
  /** The text without its BOM. */
  readonly text: string
  readonly encoding: Encoding
  readonly bom: boolean
}

const utf8Fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const utf16leFatal = new TextDecoder("utf-16le", { fatal: true, ignoreBOM: true })
const utf16beFatal = new TextDecoder("utf-16be", { fatal: true, ignoreBOM: true })
const utf8Encoder = new TextEncoder()

const tryDecode = (decoder: InstanceType<typeof TextDecoder>, bytes: Uint8Array): string | undefined => {
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}

/** One code point per byte; `TextDecoder("latin1")` is really windows-1252 and would not round-trip. */
export const decodeLatin1 = (bytes: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as Array<number>)
  }
  return out
}

export const decode = (bytes: Uint8Array): Decoded => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    const text = tryDecode(utf8Fatal, bytes.subarray(3))
    if (text !== undefined) return { text, encoding: "utf-8", bom: true }
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    const text = tryDecode(utf16leFatal, bytes.subarray(2))
    if (text !== undefined) return { text, encoding: "utf-16le", bom: true }
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const text = tryDecode(utf16beFatal, bytes.subarray(2))
    if (text !== undefined) return { text, encoding: "utf-16be", bom: true }
  } else {
    const text = tryDecode(utf8Fatal, bytes)
    if (text !== undefined) return { text, encoding: "utf-8", bom: false }
  }
  return { text: decodeLatin1(bytes), encoding: "latin1", bom: false }
}

/**
 * Whether `bytes` are valid UTF-8 (what a fatal `TextDecoder` accepts: no overlong forms, no
 * surrogates, nothing above U+10FFFF), without making a string: Node's own check where the
 * runtime offers it, else `scanUtf8`. Either costs a fraction of decoding a large file.
 */
export const isUtf8 = (bytes: Uint8Array): boolean => (nativeIsUtf8 !== undefined ? nativeIsUtf8(bytes) : scanUtf8(bytes))

interface BuiltinHost {
  readonly process?: { readonly getBuiltinModule?: (id: string) => { readonly isUtf8?: (b: Uint8Array) => boolean } | undefined }
}
const nativeIsUtf8 = (globalThis as BuiltinHost).process?.getBuiltinModule?.("node:buffer")?.isUtf8

/** The UTF-8 check in plain JavaScript: ASCII is skipped four bytes at a time. */
export const scanUtf8 = (bytes: Uint8Array): boolean => {
  const n = bytes.length
  const head = (4 - (bytes.byteOffset & 3)) & 3
  const words = n - head >= 4 ? new Uint32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >>> 2) : new Uint32Array(0)
  let i = 0
  while (i < n) {
    const b = bytes[i]!
    if (b < 0x80) {
      if (i >= head && ((i - head) & 3) === 0) {
        let w = (i - head) >>> 2
        while (w < words.length && (words[w]! & 0x80808080) === 0) w++
        const next = head + w * 4
        if (next > i) {
          i = next
          continue
        }
      }
      i++
      continue
    }
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0
    if (need === 0 || i + need >= n) return false
    const b1 = bytes[i + 1]!
    // The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF.
    const [lo, hi] = b === 0xe0 ? [0xa0, 0xbf] : b === 0xed ? [0x80, 0x9f] : b === 0xf0 ? [0x90, 0xbf] : b === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf]
    if (b1 < lo || b1 > hi) return false
    for (let k = 2; k <= need; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return false
    i += need + 1
  }
  return true
}

export interface Unencodable {
  readonly _tag: "Unencodable"
  readonly char: string
  /** 1-based line of the first character the encoding cannot hold. */
  readonly line: number
}

const lineAt = (text: string, index: number): number => {
  let line = 1
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++
  return line
}

const encodeUtf16 = (text: string, littleEndian: boolean): Uint8Array => {
  const out = new Uint8Array(2 + text.length * 2)
  const view = new DataView(out.buffer)
  view.setUint16(0, 0xfeff, littleEndian)
  for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), littleEndian)
  return out
}

/** Encodes `text` back into the file's encoding (BOM restored); Latin-1 refuses code points above U+00FF. */
export const encode = (text: string, encoding: Encoding, bom: boolean): Uint8Array | Unencodable => {
  switch (encoding) {
    case "utf-16le":
    case "utf-16be":
      return encodeUtf16(text, encoding === "utf-16le")
    case "latin1": {
      const out = new Uint8Array(text.length)
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i)
        if (c > 0xff) return { _tag: "Unencodable", char: String.fromCodePoint(text.codePointAt(i)!), line: lineAt(text, i) }
        out[i] = c
      }
      return out
    }
    case "utf-8": {
      const body = utf8Encoder.encode(text)
      if (!bom) return body
      const out = new Uint8Array(body.length + 3)
      out.set([0xef, 0xbb, 0xbf])
      out.set(body, 3)
      return out
    }
  }
}

const CHUNK = 4096

/** Length of the common prefix of two strings: compared a chunk at a time (native), then by character. */
export const commonPrefix = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i + CHUNK <= n && a.slice(i, i + CHUNK) === b.slice(i, i + CHUNK)) i += CHUNK
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** Length of the common suffix of two strings, at most `limit`. */
export const commonSuffix = (a: string, b: string, limit: number): number => {
  let i = 0
  while (i + CHUNK <= limit && a.slice(a.length - i - CHUNK, a.length - i) === b.slice(b.length - i - CHUNK, b.length - i)) i += CHUNK
  while (i < limit && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++
  return i
}

/**
 * `text` encoded like `before` was read. When the file is UTF-8 and all ASCII (as many bytes as
 * characters, BOM aside), a character's offset is its byte's: only what changed is encoded and the
 * file's own bytes are kept around it, instead of encoding the whole file again.
 */
export const encodeChange = (
  before: { readonly bytes: Uint8Array; readonly decoded: Decoded },
  text: string,
  encoding: Pick<Decoded, "encoding" | "bom">,
  span?: { readonly start: number; readonly end: number; readonly text: string }
): Uint8Array | Unencodable => {
  const { bytes, decoded } = before
  const bom = decoded.bom ? 3 : 0
  const ascii = decoded.encoding === "utf-8" && bytes.length === decoded.text.length + bom
  if (!ascii || encoding.encoding !== "utf-8" || encoding.bom !== decoded.bom) return encode(text, encoding.encoding, encoding.bom)
  let head: number
  let tail: number
  let changed: string
  if (span !== undefined) {
    // The change is known: `text` (often a long concatenation) is never flattened or compared.
    ;[head, tail, changed] = [span.start, decoded.text.length - span.end, span.text]
  } else {
    head = commonPrefix(decoded.text, text)
    tail = commonSuffix(decoded.text, text, Math.min(decoded.text.length, text.length) - head)
    changed = text.slice(head, text.length - tail)
  }
  const middle = utf8Encoder.encode(changed)
  const out = new Uint8Array(bom + head + middle.length + tail)
  out.set(bytes.subarray(0, bom + head))
  out.set(middle, bom + head)
  out.set(bytes.subarray(bytes.length - tail), bom + head + middle.length)
  return out
}

export const isUnencodable = (u: Uint8Array | Unencodable): u is Unencodable => !(u instanceof Uint8Array)

export const encodingLabel = (d: Pick<Decoded, "encoding" | "bom">): string =>
  d.encoding === "latin1" ? "ISO-8859-1 (not valid UTF-8)" : d.encoding === "utf-8" ? (d.bom ? "UTF-8 with BOM" : "UTF-8") : d.encoding.toUpperCase()

// ---------------------------------------------------------------------------------------------
// Line endings

export type Eol = "\n" | "\r\n"

export interface EolStats {
  readonly crlf: number
  readonly lf: number
}

export const eolStats = (text: string): EolStats => {
  let crlf = 0
  let lf = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++
    else lf++
  }
  return { crlf, lf }
}

/** The ending most lines use; LF on a tie or when there is none. */
export const dominantEol = (text: string): Eol => {
  const s = eolStats(text)
  return s.crlf > s.lf ? "\r\n" : "\n"
}

/**
 * The text with every CRLF collapsed to LF, plus where that happened, so offsets in the view map
 * back to the original. A lone CR is kept as it is.
 */
export interface LfView {
  readonly text: string
  /** Sorted offsets, in the view, of the LFs that were CRLF in the original. */
  readonly crlfAt: ReadonlyArray<number>
}

export const lfView = (text: string): LfView => {
  if (!text.includes("\r\n")) return { text, crlfAt: [] }
  const crlfAt: Array<number> = []
  let out = ""
  let from = 0
  for (let i = text.indexOf("\r\n"); i !== -1; i = text.indexOf("\r\n", i + 2)) {
    out += text.slice(from, i)
    crlfAt.push(out.length)
    out += "\n"
    from = i + 2
  }
  return { text: out + text.slice(from), crlfAt }
}

/** An offset in the LF view → the same position in the original text. */
export const toOriginal = (view: LfView, offset: number): number => {
  let lo = 0
  let hi = view.crlfAt.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (view.crlfAt[mid]! < offset) lo = mid + 1
    else hi = mid
  }
  return offset + lo
}

/** The ending used around `offset` of the original text: that line's own, else the previous line's. */
export const localEol = (original: string, offset: number): Eol => {
  const next = original.indexOf("\n", offset)
  if (next !== -1) return next > 0 && original.charCodeAt(next - 1) === 13 ? "\r\n" : "\n"
  const prev = original.lastIndexOf("\n", offset - 1)
  if (prev !== -1) return prev > 0 && original.charCodeAt(prev - 1) === 13 ? "\r\n" : "\n"
  return "\n"
}

export const withEol = (text: string, eol: Eol): string => {
  const lf = text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text
  return eol === "\n" ? lf : lf.replaceAll("\n", "\r\n")
}

// ---------------------------------------------------------------------------------------------
// Binary and media sniffing

const BINARY_EXTENSIONS = new Set([
  ".zip", ".tar", ".gz", ".exe", ".dll", ".so", ".class", ".jar", ".war", ".7z", ".doc", ".docx", ".xls", ".xlsx",
  ".ppt", ".pptx", ".odt", ".ods", ".odp", ".bin", ".dat", ".obj", ".o", ".a", ".lib", ".wasm", ".pyc", ".pyo"
])

const extensionOf = (file: string): string => {
  const base = file.slice(file.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? "" : base.slice(dot).toLowerCase()
}

/** How many leading bytes the binary check samples. */
export const SNIFF_BYTES = 8192

/**
 * Binary when the extension is a known binary one, or the first 8 KB hold a NUL byte or more than
 * 30% control characters. UTF-16 with a BOM is text (its NULs are half of every ASCII character).
 */
export const isBinary = (file: string, bytes: Uint8Array): boolean => {
  if (BINARY_EXTENSIONS.has(extensionOf(file))) return true
  if (bytes.length === 0) return false
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return false
  const n = Math.min(bytes.length, SNIFF_BYTES)
  let control = 0
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!
    if (b === 0) return true
    if (b < 9 || (b > 13 && b < 32)) control++
  }
  return control / n > 0.3
}

export type MediaMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "application/pdf"

const startsWith = (bytes: Uint8Array, magic: ReadonlyArray<number>, at = 0) =>
  magic.every((b, i) => bytes[at + i] === b)

/** Images and PDFs the read tool returns as attachments, by magic number (never by extension alone). */
export const sniffMedia = (bytes: Uint8Array): MediaMime | undefined => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif"
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp"
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return "application/pdf"
  return undefined
}

/** Base64 without Buffer, so the tools stay on web APIs. */
export const toBase64 = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i += 8192) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as Array<number>)
  }
  return btoa(binary)
}
