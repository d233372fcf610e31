/**
 * One spill streamed into one object with the SDK's multipart `Upload`. Chunks go through a Node
 * stream whose back-pressure holds the writer while parts are in flight, so a writer holds at most
 * about `partSize × (2 × queueSize + 2)` bytes whatever the size of the output (a part in flight
 * may keep the buffer it was cut from, up to twice its size, alive). Nothing is visible under the
 * key until the upload completes; an upload whose scope closes before `finish` is aborted (a
 * multipart upload's parts are deleted with it).
 */
import { Buffer } from "node:buffer"
import { PassThrough } from "node:stream"
import type { S3Client } from "@aws-sdk/client-s3"
import { Upload } from "@aws-sdk/lib-storage"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { SpillStorage } from "@agent-tools/core"
import { failed } from "./S3Errors.ts"

export interface UploadSettings {
  /** Bytes per part (S3's minimum is 5 MiB). */
  readonly partSize: number
  /** Parts uploaded at the same time. */
  readonly queueSize: number
}

export const DEFAULT_UPLOAD: UploadSettings = { partSize: 8 * 1024 * 1024, queueSize: 4 }

const HANDOFF = 1024 * 1024

/** Spills are text; the type lets a browser or `aws s3 cp` show them as such. */
const CONTENT_TYPE = "text/plain; charset=utf-8"

export interface ObjectUpload {
  /** Queues `chunk` (copied: the caller may reuse it), waiting while the parts in flight are full. */
  readonly write: (chunk: Uint8Array) => Effect.Effect<void, SpillStorage.SpillError>
  /** Ends the body and waits until the object is complete under its key. */
  readonly finish: Effect.Effect<void, SpillStorage.SpillError>
}

export const open = (
  client: S3Client,
  bucket: string,
  key: string,
  settings: UploadSettings
): Effect.Effect<ObjectUpload, never, Scope.Scope> =>
  Effect.gen(function*() {
    const target = `s3://${bucket}/${key}`
    // A small hand-off buffer: the upload gathers the parts itself.
    const body = new PassThrough({ highWaterMark: HANDOFF })
    const upload = new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: body, ContentType: CONTENT_TYPE },
      partSize: settings.partSize,
      queueSize: settings.queueSize,
      leavePartsOnError: false
    })
    let failure: unknown
    let finished = false
    // Settles either way (a failure is kept for the next write or finish to report).
    const done = upload.done().then(() => undefined, (e: unknown) => void (failure = e))
    yield* Effect.addFinalizer(() =>
      // A body that fails makes the upload abort its multipart upload (parts deleted) before
      // `done` settles, so the scope closes only when nothing of the spill is left.
      finished ? Effect.void : Effect.promise(() => {
        body.destroy(new Error("the spill was dropped before its commit"))
        return done
      })
    )
    const fail = () => Effect.fail(failed(`cannot write ${target}`)(failure))

    /** Resolves when the body can take more, or when the upload ended (failed) and never will. */
    const drained = () =>
      new Promise<void>((resolve) => {
        const onDrain = () => resolve()
        body.once("drain", onDrain)
        void done.then(() => {
          body.off("drain", onDrain)
          resolve()
        })
      })

    const write = (chunk: Uint8Array) =>
      Effect.suspend(() => {
        if (failure !== undefined) return fail()
        if (chunk.length === 0 || body.write(Buffer.from(chunk))) return Effect.void
        return Effect.promise(drained).pipe(Effect.andThen(Effect.suspend(() => failure === undefined ? Effect.void : fail())))
      })

    const finish = Effect.suspend(() => {
      if (failure !== undefined) return fail()
      body.end()
      return Effect.promise(() => done).pipe(
        Effect.andThen(Effect.suspend(() => {
          if (failure !== undefined) return fail()
          finished = true
          return Effect.void
        }))
      )
    })

    return { write, finish } satisfies ObjectUpload
  })
