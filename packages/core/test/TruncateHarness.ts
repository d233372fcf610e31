/** Shared set-up for the Truncate tests: the real layer over a chosen SpillStorage, events captured. */
import { Effect, Layer, Stream } from "effect"
import { type Event, Events } from "../src/Events.ts"
import * as SpillStorage from "../src/SpillStorage.ts"
import * as Truncate from "../src/Truncate.ts"
import { concat } from "../src/Bytes.ts"

export interface Harness {
  readonly truncate: Truncate.Truncate["Service"]
  readonly spill: SpillStorage.SpillStorage["Service"]
  readonly events: Array<Event>
}

export const withTruncate = <A, E>(
  config: Truncate.Config,
  body: (h: Harness) => Effect.Effect<A, E>,
  spill: Layer.Layer<SpillStorage.SpillStorage> = SpillStorage.layerMemory()
) =>
  Effect.gen(function*() {
    const events: Array<Event> = []
    const capture = Layer.succeed(Events, Events.of({
      publish: (e) => Effect.sync(() => void events.push(e)),
      subscribe: Stream.empty
    }))
    return yield* Effect.gen(function*() {
      return yield* body({ truncate: yield* Truncate.Truncate, spill: yield* SpillStorage.SpillStorage, events })
    }).pipe(Effect.provide(Truncate.layer(config).pipe(Layer.provideMerge(Layer.merge(spill, capture)))))
  })

/** The bytes of a spill, read back through the store. */
export const readSpill = (spill: SpillStorage.SpillStorage["Service"], path: string) =>
  Effect.map(Stream.runCollect(spill.read(path)), (chunks) => concat(chunks))

/** Byte equality without chai's deep-equal walk, which is far too slow on megabytes. */
export const assertSameBytes = (actual: Uint8Array, expected: Uint8Array) => {
  if (actual.length !== expected.length) throw new Error(`expected ${expected.length} bytes, got ${actual.length}`)
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) throw new Error(`bytes differ at offset ${i}`)
  }
}

export const utf8 = (s: string) => new TextEncoder().encode(s)
export const bytesOf = (s: string) => utf8(s).length
export const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`)

/** A SpillStorage whose every write fails, for the degraded path. */
export const failingSpill = (message = "disk full") =>
  Layer.succeed(SpillStorage.SpillStorage, SpillStorage.SpillStorage.of({
    write: () => Effect.fail(new SpillStorage.SpillError({ message })),
    writer: Effect.fail(new SpillStorage.SpillError({ message })),
    read: () => Stream.fail(new SpillStorage.SpillError({ message })),
    owns: () => false,
    list: Effect.succeed([]),
    cleanup: Effect.succeed(0),
    directory: undefined
  }))

/** A seeded random number generator (mulberry32), so property tests replay exactly. */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Pieces random outputs are made of: newlines of both kinds, multi-byte and astral characters, long runs. */
export const TOKENS = ["a", "bc", "word ", "\n", "\n", "\n", "\r\n", "日", "本", "🙂", "é", "\t", "x".repeat(37), "🙂".repeat(9)]
