/** Reading a response body with a bound on memory. */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import { Bytes } from "@agent-tools/core"

/**
 * The body's bytes, or undefined once it passes `limit` bytes (a declared Content-Length over
 * the limit is refused before reading). Reading stops at the limit: the rest is never buffered.
 */
export const readCapped = Effect.fnUntraced(function*(response: HttpClientResponse.HttpClientResponse, limit: number) {
  const declared = Number(response.headers["content-length"] ?? "")
  if (declared > limit) return undefined
  const chunks: Array<Uint8Array> = []
  let total = 0
  yield* response.stream.pipe(
    Stream.runForEachWhile((chunk) =>
      Effect.sync(() => {
        total += chunk.byteLength
        if (total > limit) return false
        chunks.push(chunk)
        return true
      })
    )
  )
  if (total > limit) return undefined
  return Bytes.concat(chunks, total)
})

/**
 * The body's first `limit` bytes, and whether that was all of it. Reading stops there: an error
 * page is shown in part, never refused for its size.
 */
export const readPrefix = Effect.fnUntraced(function*(response: HttpClientResponse.HttpClientResponse, limit: number) {
  const bytes = new Uint8Array(limit)
  let total = 0
  let complete = true
  yield* response.stream.pipe(
    Stream.runForEachWhile((chunk) =>
      Effect.sync(() => {
        const room = limit - total
        bytes.set(chunk.subarray(0, room), total)
        total += Math.min(room, chunk.byteLength)
        if (chunk.byteLength > room) complete = false
        return complete
      })
    )
  )
  return { bytes: bytes.subarray(0, total), complete }
})
