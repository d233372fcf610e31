/**
 * A spill read back as a stream of ranged GETs (`Range: bytes=start-end`): the first range is
 * small, so that paging the start of a large spill fetches little, and each next one is twice as
 * large up to a cap, so that reading a whole spill takes few requests. A reader that stops pulling
 * (read's pager once its page is full) makes no further request.
 */
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { SpillStorage } from "@agent-tools/core"
import { failed, isMissing, isRangeNotSatisfiable } from "./S3Errors.ts"

export interface RangeSettings {
  /** Bytes of the first range. */
  readonly first: number
  /** The most bytes one range asks for. */
  readonly max: number
}

export const DEFAULT_RANGES: RangeSettings = { first: 256 * 1024, max: 8 * 1024 * 1024 }

/** The object's total size from a `Content-Range: bytes a-b/total` header. */
const totalOf = (contentRange: string | undefined): number | undefined => {
  const m = /\/(\d+)\s*$/.exec(contentRange ?? "")
  return m === null ? undefined : Number(m[1])
}

interface Cursor {
  readonly start: number
  readonly size: number
}

export const read = (
  client: S3Client,
  bucket: string,
  key: string,
  ref: string,
  settings: RangeSettings = DEFAULT_RANGES
): Stream.Stream<Uint8Array, SpillStorage.SpillError> =>
  Stream.paginate<Cursor, Uint8Array, SpillStorage.SpillError>({ start: 0, size: settings.first }, ({ size, start }) =>
    Effect.tryPromise({
      try: async (signal) => {
        const out = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${start}-${start + size - 1}` }),
          { abortSignal: signal }
        )
        const bytes = out.Body === undefined ? new Uint8Array() : await out.Body.transformToByteArray()
        return { bytes, total: totalOf(out.ContentRange) }
      },
      catch: (cause) => cause
    }).pipe(
      Effect.map(({ bytes, total }): readonly [ReadonlyArray<Uint8Array>, Option.Option<Cursor>] => {
        const next = start + bytes.length
        // The end: the server said so, or sent less than asked (a server that ignores totals).
        const more = bytes.length === size && (total === undefined || next < total)
        return [bytes.length === 0 ? [] : [bytes], more ? Option.some({ start: next, size: Math.min(size * 2, settings.max) }) : Option.none()]
      }),
      Effect.catch((cause) => {
        // A range from 0 of an empty object is not satisfiable: the spill is empty.
        if (start === 0 && isRangeNotSatisfiable(cause)) return Effect.succeed([[], Option.none()] as const)
        return Effect.fail(isMissing(cause) ? SpillStorage.expired(ref) : failed(`cannot read ${ref}`)(cause))
      })
    ))
