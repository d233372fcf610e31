/**
 * SpillStorage on an S3-compatible object store, for agent runtimes spread over several hosts: a
 * spill is an object `<prefix>tool_<id>` in the bucket, named to the model as
 * `s3://<bucket>/<prefix>tool_<id>`, and any store on the same bucket and prefix (another process,
 * another host) reads it back — the bucket and prefix, and who holds credentials for them, are the
 * boundary of who may page a spill, so spills are not divided by workspace as on disk.
 *
 * Whole spills up to one part go up in one PutObject; larger ones and streamed ones through a
 * multipart upload with bounded memory (`S3Upload`). Reads are ranged GETs (`S3RangedRead`).
 * Retention uses the objects' LastModified against `Clock` time; `cleanup` deletes spills past it
 * (and nothing under the prefix that is not named exactly like a spill). Multipart uploads a
 * crashed writer left behind are the bucket's to expire (a lifecycle rule), as S3 advises.
 */
import {
  DeleteObjectsCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client
} from "@aws-sdk/client-s3"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { SpillStorage, SpillWriting } from "@agent-tools/core"
import { failed } from "./S3Errors.ts"
import * as S3RangedRead from "./S3RangedRead.ts"
import { isSpillKey, keyOf, type Location, normalizePrefix, reference } from "./S3Reference.ts"
import * as S3Upload from "./S3Upload.ts"

export interface Options {
  readonly bucket: string
  /** Key prefix of the spills ("agent-tools/spill/"); a missing trailing "/" is added. Default none. */
  readonly prefix?: string | undefined
  /** The server's URL, for an S3-compatible store other than AWS (MinIO, R2, a local test server). */
  readonly endpoint?: string | undefined
  /** Default: the SDK's (AWS_REGION …), or "us-east-1" with an `endpoint`. */
  readonly region?: string | undefined
  /** Buckets in the path (`<endpoint>/<bucket>/<key>`) instead of the host name: most non-AWS servers want it. */
  readonly forcePathStyle?: boolean | undefined
  /** Default: the SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance roles …). */
  readonly credentials?: {
    readonly accessKeyId: string
    readonly secretAccessKey: string
    readonly sessionToken?: string
  } | undefined
  /** Spills whose LastModified is older than this are deleted by cleanup. Default 7. */
  /**
   * A client of your own (its own middleware, retries, HTTP agent); the connection options above
   * are then not used, and the client is not destroyed with the layer.
   */
  readonly client?: S3Client | undefined
  readonly retentionDays?: number | undefined
  /**
   * Per-spill cap in bytes, as in the file store. Default 4 GiB. (The file store's total cap,
   * `maxTotalBytes`, is not enforced on a bucket: retention and lifecycle rules bound it.)
   */
  readonly maxBytes?: number | undefined
  readonly upload?: Partial<S3Upload.UploadSettings> | undefined
  readonly ranges?: Partial<S3RangedRead.RangeSettings> | undefined
}

const DAY_MS = 24 * 60 * 60 * 1000
/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH = 1000

/** The client the layer makes from `options` (when it is not given one). */
export const makeClient = (options: Options): S3Client => {
  const region = options.region ?? (options.endpoint !== undefined ? "us-east-1" : undefined)
  return new S3Client({
    ...(region !== undefined ? { region } : {}),
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}),
    ...(options.credentials !== undefined ? { credentials: options.credentials } : {}),
    // Checksums only where S3 requires them: many S3-compatible servers reject the newer trailers.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED"
  })
}

const send = <A>(what: string, run: (signal: AbortSignal) => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: failed(what) })

export const layer = (options: Options): Layer.Layer<SpillStorage.SpillStorage> =>
  Layer.effect(
    SpillStorage.SpillStorage,
    Effect.gen(function*() {
      const client = options.client ??
        (yield* Effect.acquireRelease(Effect.sync(() => makeClient(options)), (c) => Effect.sync(() => c.destroy())))
      const location: Location = { bucket: options.bucket, prefix: normalizePrefix(options.prefix) }
      const { bucket } = location
      const where = `s3://${bucket}/${location.prefix}`
      const retentionMs = (options.retentionDays ?? SpillStorage.DEFAULT_RETENTION_DAYS) * DAY_MS
      const maxBytes = options.maxBytes ?? SpillStorage.DEFAULT_MAX_BYTES
      const uploadSettings = { ...S3Upload.DEFAULT_UPLOAD, ...options.upload }
      const rangeSettings = { ...S3RangedRead.DEFAULT_RANGES, ...options.ranges }
      const nextName = SpillWriting.makeNamer()
      const owns = (p: string) => keyOf(location, p) !== undefined

      const list = Effect.gen(function*() {
        const entries: Array<SpillStorage.SpillEntry> = []
        let token: string | undefined
        do {
          const page: ListObjectsV2CommandOutput = yield* send(`cannot list ${where}`, (abortSignal) =>
            client.send(
              new ListObjectsV2Command({ Bucket: bucket, Prefix: location.prefix, ...(token !== undefined ? { ContinuationToken: token } : {}) }),
              { abortSignal }
            ))
          for (const o of page.Contents ?? []) {
            if (o.Key === undefined || !isSpillKey(location, o.Key)) continue
            entries.push({ path: reference(location, o.Key), size: o.Size ?? 0, mtime: o.LastModified?.getTime() ?? 0 })
          }
          token = page.IsTruncated === true ? page.NextContinuationToken : undefined
        } while (token !== undefined)
        return entries.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0) as ReadonlyArray<SpillStorage.SpillEntry>
      }).pipe(Effect.withSpan("SpillStorage.list"))

      const deleteKeys = Effect.fnUntraced(function*(keys: ReadonlyArray<string>) {
        let deleted = 0
        for (let i = 0; i < keys.length; i += DELETE_BATCH) {
          const batch = keys.slice(i, i + DELETE_BATCH)
          const out = yield* send(`cannot delete spills in ${where}`, (abortSignal) =>
            client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })) } }), { abortSignal }))
          deleted += out.Deleted?.length ?? 0
          const refused = out.Errors ?? []
          if (refused.length > 0) {
            const first = refused[0]!
            return yield* new SpillStorage.SpillError({
              message: `cannot delete ${refused.length} spills in ${where}, e.g. ${first.Key}: ${first.Code ?? "error"} ${first.Message ?? ""}`.trimEnd()
            })
          }
        }
        return deleted
      })

      const cleanup = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const old = (yield* list).filter((e) => now - e.mtime > retentionMs)
        return yield* deleteKeys(old.map((e) => keyOf(location, e.path)!))
      }).pipe(Effect.withSpan("SpillStorage.cleanup"))

      const firstUse = yield* SpillWriting.scheduleCleanup(cleanup)

      const writer: Effect.Effect<SpillStorage.SpillWriter, SpillStorage.SpillError, Scope.Scope> = Effect.gen(function*() {
        yield* firstUse
        const key = location.prefix + (yield* nextName)
        const ref = reference(location, key)
        const upload = yield* S3Upload.open(client, bucket, key, uploadSettings)
        const cap = SpillWriting.makeCap(maxBytes)
        let committed = false
        const put = (parts: ReadonlyArray<Uint8Array>) => Effect.forEach(parts, upload.write, { discard: true })
        const write = (chunk: Uint8Array) =>
          committed ? Effect.fail(new SpillStorage.SpillError({ message: `spill ${ref} is already committed` })) : put(cap.feed(chunk))
        const commit = Effect.suspend(() =>
          committed ? Effect.succeed(ref) : Effect.gen(function*() {
            yield* put(cap.end())
            yield* upload.finish
            committed = true
            return ref
          })
        ).pipe(Effect.withSpan("SpillStorage.commit"))
        return { write, commit } satisfies SpillStorage.SpillWriter
      }).pipe(Effect.withSpan("SpillStorage.writer"))

      /** A whole spill of at most one part: one PutObject, no multipart round trips. */
      const putWhole = Effect.fnUntraced(function*(body: Uint8Array) {
        yield* firstUse
        const key = location.prefix + (yield* nextName)
        const ref = reference(location, key)
        yield* send(`cannot write ${ref}`, (abortSignal) =>
          client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: "text/plain; charset=utf-8" }), { abortSignal }))
        return ref
      })

      const write = Effect.fn("SpillStorage.write")(function*(content: string | Uint8Array) {
        const limit = Math.min(uploadSettings.partSize, maxBytes)
        if (typeof content !== "string") {
          return yield* content.length <= limit ? putWhole(content) : SpillWriting.writeAll(writer, content)
        }
        if (content.length <= limit) {
          const bytes = new TextEncoder().encode(content)
          if (bytes.length <= limit) return yield* putWhole(bytes)
        }
        return yield* SpillWriting.writeAll(writer, content)
      })

      const read = (p: string) => {
        const key = keyOf(location, p)
        return key === undefined ? Stream.fail(SpillStorage.notOurs(p)) : S3RangedRead.read(client, bucket, key, p, rangeSettings)
      }

      return SpillStorage.SpillStorage.of({ write, writer, read, owns, list, cleanup, directory: undefined, maxBytes })
    })
  )
