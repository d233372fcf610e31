import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { SpillStorage } from "@agent-tools/core"
import { S3SpillStorage } from "../src/index.ts"
import * as S3Server from "./S3Server.ts"
import * as S3Stores from "./S3Stores.ts"

let running: Awaited<ReturnType<typeof S3Server.launch>>
beforeAll(async () => {
  running = await S3Server.launch()
})
afterAll(() => running.stop())

const MiB = 1024 * 1024
/** The streamed output: 256 MiB, many times what a writer may hold. */
const TOTAL = 256 * MiB
const CHUNK = MiB
/** Parts of 5 MiB (S3's smallest), two in flight. */
const UPLOAD = { partSize: 5 * MiB, queueSize: 2 }
/**
 * What the upload may add to this process's memory while streaming: the parts in flight with the
 * buffers they were cut from, the part being gathered, the hand-off buffer, with room for the
 * SDK's copies — a quarter of the output; holding the output would take all of it.
 */
const BOUND = TOTAL / 4

// A full collection before each sample: what is measured is what the upload holds, not garbage
// that a later collection would free.
setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

/** Bytes held by JavaScript after a collection: the heap and the buffers outside it. */
const held = () => {
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

it.live("a 256 MiB streamed spill goes up with bounded memory and reads back whole", () =>
  SpillStorage.SpillStorage.use((spill) =>
    Effect.gen(function*() {
      const chunk = new Uint8Array(CHUNK)
      for (let i = 0; i < CHUNK; i++) chunk[i] = i % 64 === 63 ? 10 : 97 + (i % 26)
      const before = { held: held(), rss: process.memoryUsage().rss }
      let peak = { held: 0, rss: 0 }
      const sample = () => {
        peak = { held: Math.max(peak.held, held() - before.held), rss: Math.max(peak.rss, process.memoryUsage().rss - before.rss) }
      }
      const p = yield* Effect.scoped(Effect.gen(function*() {
        const w = yield* spill.writer
        for (let sent = 0; sent < TOTAL; sent += CHUNK) {
          chunk[0] = 48 + ((sent / CHUNK) % 10) // each chunk differs from the last
          yield* w.write(chunk)
          if ((sent / CHUNK) % 8 === 7) sample()
        }
        return yield* w.commit
      }))
      sample()
      console.log(`256 MiB upload: peak growth ${(peak.held / MiB).toFixed(1)} MiB held by JS, ${(peak.rss / MiB).toFixed(1)} MiB RSS`)
      assert.isBelow(peak.held, BOUND)
      assert.isBelow(peak.rss, BOUND + 32 * MiB) // the heap's own growth and freed pages not yet returned
      assert.deepStrictEqual((yield* spill.list).map((e) => [e.path, e.size]), [[p, TOTAL]])
      // Read back as ranged GETs: every chunk's first byte in its place, and the total size.
      let at = 0
      let wrong = 0
      yield* Stream.runForEach(spill.read(p), (bytes) =>
        Effect.sync(() => {
          for (let k = (CHUNK - (at % CHUNK)) % CHUNK; k < bytes.length; k += CHUNK) {
            if (bytes[k] !== 48 + (((at + k) / CHUNK) % 10)) wrong++
          }
          at += bytes.length
        }))
      assert.strictEqual(at, TOTAL)
      assert.strictEqual(wrong, 0)
    })
  ).pipe(Effect.provide(S3SpillStorage.layer(S3Stores.options(running.server, { upload: UPLOAD })))), 240_000)
