import { HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope, Stream } from "effect"
import { SpillStorage } from "@agent-tools/core"
import { SpillStorageContract } from "@agent-tools/testing"
import { S3SpillStorage } from "../src/index.ts"
import * as S3Requests from "./S3Requests.ts"
import * as S3Server from "./S3Server.ts"
import * as S3Stores from "./S3Stores.ts"

let running: Awaited<ReturnType<typeof S3Server.launch>>
beforeAll(async () => {
  running = await S3Server.launch()
})
afterAll(() => running.stop())

const MiB = 1024 * 1024
const DAY = 24 * 60 * 60 * 1000

/** A store on the test server with its own prefix and a client that records every command. */
const withStore = <A, E>(
  body: (spill: SpillStorage.SpillStorage["Service"], env: { readonly sent: Array<S3Requests.Sent>; readonly options: S3SpillStorage.Options }) => Effect.Effect<A, E>,
  extra: Partial<S3SpillStorage.Options> = {}
) => {
  const options = S3Stores.options(running.server, extra)
  const { client, sent } = S3Requests.recordingClient(options)
  return SpillStorage.SpillStorage.use((spill) => body(spill, { sent, options: { ...options, client } })).pipe(
    Effect.provide(S3SpillStorage.layer({ ...options, client })),
    Effect.ensuring(Effect.sync(() => client.destroy()))
  )
}

const keyOf = (ref: string) => ref.slice(`s3://${running.server.bucket}/`.length)
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => 97 + (i % 26))

describe("S3SpillStorage", () => {
  it.live("a spill larger than a part goes up as a multipart upload and reads back whole", () =>
    withStore((spill, { sent }) =>
      Effect.gen(function*() {
        const data = bytes(12 * MiB + 123)
        const p = yield* Effect.scoped(Effect.gen(function*() {
          const w = yield* spill.writer
          for (let at = 0; at < data.length; at += 64 * 1024) yield* w.write(data.subarray(at, at + 64 * 1024))
          return yield* w.commit
        }))
        assert.deepStrictEqual(
          ["CreateMultipartUploadCommand", "UploadPartCommand", "CompleteMultipartUploadCommand", "PutObjectCommand"].map((c) => S3Requests.count(sent, c)),
          [1, 3, 1, 0]
        )
        const back = yield* SpillStorageContract.readSpill(spill, p)
        assert.strictEqual(back.length, data.length)
        assert.isTrue(Buffer.from(back).equals(Buffer.from(data)))
      }), { upload: { partSize: 5 * MiB, queueSize: 2 } }))

  it.live("a whole spill of up to one part is one PutObject", () =>
    withStore((spill, { sent }) =>
      Effect.gen(function*() {
        yield* spill.write("small output")
        // (The first use also starts a cleanup, which lists.)
        assert.deepStrictEqual(sent.map((s) => s.command).filter((c) => c !== "ListObjectsV2Command"), ["PutObjectCommand"])
      })))

  it.live("reads are ranged GETs that double up to a cap; a reader that stops early asks for nothing more", () =>
    withStore((spill, { sent }) =>
      Effect.gen(function*() {
        const p = yield* spill.write(bytes(20_000))
        sent.length = 0
        const chunks = yield* Stream.runCollect(spill.read(p))
        assert.deepStrictEqual(chunks.map((c) => c.length), [1024, 2048, 4096, 4096, 4096, 4096, 544])
        assert.deepStrictEqual(sent.map((s) => s.range), [
          "bytes=0-1023",
          "bytes=1024-3071",
          "bytes=3072-7167",
          "bytes=7168-11263",
          "bytes=11264-15359",
          "bytes=15360-19455",
          "bytes=19456-23551"
        ])
        sent.length = 0
        const first = yield* Stream.runCollect(Stream.take(spill.read(p), 1))
        assert.deepStrictEqual(first.map((c) => c.length), [1024])
        assert.deepStrictEqual(sent.map((s) => s.command), ["GetObjectCommand"])
      }), { ranges: { first: 1024, max: 4096 } }))

  it.live("list shows only the spills directly under the prefix", () =>
    withStore((spill, { options }) =>
      Effect.gen(function*() {
        const p = yield* spill.write("mine")
        const prefix = options.prefix!
        const put = (Key: string) =>
          Effect.promise(() => options.client!.send(new PutObjectCommand({ Bucket: options.bucket, Key, Body: "x" })))
        const name = keyOf(p).slice(prefix.length)
        yield* put(`${prefix}notes.txt`)
        yield* put(`${prefix}sub/${name}`)
        yield* put(`${prefix}${name}.bak`)
        yield* put(`other-${prefix}${name}`)
        assert.deepStrictEqual((yield* spill.list).map((e) => [e.path, e.size]), [[p, 4]])
      })))

  it.live("cleanup deletes the spills whose LastModified is past the retention, and nothing else", () =>
    withStore((spill, { options }) =>
      Effect.gen(function*() {
        const old = yield* spill.write("old")
        const almost = yield* spill.write("six days")
        const fresh = yield* spill.write("fresh")
        const notes = `${options.prefix}notes.txt`
        yield* Effect.promise(() => options.client!.send(new PutObjectCommand({ Bucket: options.bucket, Key: notes, Body: "x" })))
        running.server.age(keyOf(old), 8 * DAY)
        running.server.age(keyOf(almost), 6 * DAY)
        running.server.age(notes, 30 * DAY)
        assert.strictEqual(yield* spill.cleanup, 1)
        assert.deepStrictEqual((yield* spill.list).map((e) => e.path), [almost, fresh])
        const head = yield* Effect.promise(() => options.client!.send(new HeadObjectCommand({ Bucket: options.bucket, Key: notes })))
        assert.strictEqual(head.ContentLength, 1)
      })))

  it.live("a multipart writer whose scope closes before commit is aborted and leaves no object", () =>
    withStore((spill, { sent }) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const w = yield* spill.writer.pipe(Scope.provide(scope))
        yield* w.write(bytes(11 * MiB))
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual(yield* spill.list, [])
        assert.strictEqual(S3Requests.count(sent, "CompleteMultipartUploadCommand"), 0)
        assert.strictEqual(S3Requests.count(sent, "AbortMultipartUploadCommand"), 1)
      }), { upload: { partSize: 5 * MiB, queueSize: 1 } }))

  it.live("a bucket that does not exist: the error names the spill and what the server said", () =>
    withStore((spill) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(spill.write("x"))
        assert.match(error.message, /^cannot write s3:\/\/no-such-bucket\/test\/\d+-\d+\/tool_[0-9a-f]{16}_[0-9A-Za-z]{10}: NoSuchBucket: /)
        const listing = yield* Effect.flip(spill.list)
        assert.match(listing.message, /^cannot list s3:\/\/no-such-bucket\/test\/\d+-\d+\/: NoSuchBucket: /)
      }), { bucket: "no-such-bucket" }))

  it.live("references name the bucket and the prefix; another prefix's spill is not this store's", () =>
    withStore((spill, { options }) =>
      Effect.gen(function*() {
        const p = yield* spill.write("x")
        assert.strictEqual(p.slice(0, p.lastIndexOf("/") + 1), `s3://${options.bucket}/${options.prefix}`)
        assert.isFalse(spill.owns(p.replace(options.prefix!, "elsewhere/")))
        assert.isFalse(spill.owns(p.replace(`s3://${options.bucket}/`, "s3://other-bucket/")))
        assert.strictEqual(spill.directory, undefined)
      })))
})
