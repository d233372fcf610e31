/**
 * An output's chunks as text, in order, however they come: strings, bytes, or both. Used by
 * `Truncate.stream`, which also needs each chunk's bytes to count them.
 */
import * as Stream from "effect/Stream"
import * as Bytes from "./Bytes.ts"
import * as Utf8 from "./Utf8.ts"

/**
 * Turns string and byte chunks into text and the bytes to spill: UTF-8 decoded incrementally (a
 * character split across chunks is decoded whole, a BOM is kept), surrogate pairs split across
 * string chunks rejoined. `end()` flushes what is held back.
 */
export interface Decoded {
  readonly text: string
  readonly raw: Uint8Array
}

export const chunkDecoder = () => {
  // Not `decode(chunk, { stream: true })`: Node's streaming mode skips its fast UTF-8 path (about
  // 10× slower). An unfinished character at the end of a chunk is held back and decoded with the next.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  const encoder = new TextEncoder()
  let held: Uint8Array | undefined
  let carry = ""
  const decode = (chunk: string | Uint8Array): Decoded => {
    if (typeof chunk !== "string") {
      let data = chunk
      if (held !== undefined) {
        data = Bytes.concat([held, chunk])
        held = undefined
      }
      const keep = data.length - Utf8.incompleteTail(data)
      if (keep < data.length) held = data.slice(keep)
      return { text: decoder.decode(data.subarray(0, keep)), raw: chunk }
    }
    let text = carry + chunk
    carry = ""
    const last = text.charCodeAt(text.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) {
      carry = text.slice(-1)
      text = text.slice(0, -1)
    }
    return { text, raw: encoder.encode(text) }
  }
  return Object.assign(decode, {
    // Bytes of an unfinished character were counted when they came; a held-back lone surrogate was not.
    end: (): Decoded => {
      const bytes = held
      const rest = carry
      held = undefined
      carry = ""
      return { text: (bytes === undefined ? "" : decoder.decode(bytes)) + rest, raw: encoder.encode(rest) }
    }
  })
}

export const decodeChunks = <E, R>(input: Stream.Stream<string | Uint8Array, E, R>): Stream.Stream<string, E, R> =>
  Stream.suspend(() => {
    const decode = chunkDecoder()
    return input.pipe(Stream.map((chunk) => decode(chunk).text), Stream.concat(Stream.sync(() => decode.end().text)))
  })
