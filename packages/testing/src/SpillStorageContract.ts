/**
 * The behaviour every SpillStorage layer shares, as test cases to run against any of them (the
 * file-system and memory layers of core, the S3 one of `@agent-tools/spill-s3`, a store of your
 * own): each case builds a fresh store with `make(options)` and runs under `it.effect` (it sets
 * the TestClock to the real time, so ages measured by the store's own medium — file mtimes, object
 * LastModified — and by `Clock` agree).
 *
 * ```ts
 * for (const c of SpillStorageContract.cases((options) => SpillStorage.layerMemory(options))) it.effect(c.name, () => c.run)
 * ```
 */
import { deepStrictEqual, match, strictEqual } from "node:assert/strict"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { Bytes, SpillStorage } from "@agent-tools/core"

export interface Case {
  readonly name: string
  readonly run: Effect.Effect<void, unknown>
}

/** A fresh, empty store with `options` (a new directory, bucket prefix …) each time it is built. */
export type Make = (options: SpillStorage.Options) => Layer.Layer<SpillStorage.SpillStorage, unknown>

type Store = SpillStorage.SpillStorage["Service"]

const NAME = /tool_[0-9a-f]{16}_[0-9A-Za-z]{10}$/
const utf8 = (s: string) => new TextEncoder().encode(s)
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/** The whole spill at `path`, as bytes. */
export const readSpill = (spill: Store, path: string): Effect.Effect<Uint8Array, SpillStorage.SpillError> =>
  Effect.map(Stream.runCollect(spill.read(path)), (chunks) => Bytes.concat(chunks))

const sameBytes = (actual: Uint8Array, expected: Uint8Array) => {
  strictEqual(actual.length, expected.length, "spill size")
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) throw new Error(`bytes differ at offset ${i}`)
  }
}

const streamed = (spill: Store, chunks: ReadonlyArray<Uint8Array>) =>
  Effect.scoped(Effect.gen(function*() {
    const w = yield* spill.writer
    for (const c of chunks) yield* w.write(c)
    return yield* w.commit
  }))

export const cases = (make: Make): ReadonlyArray<Case> => {
  const withStore = (body: (spill: Store) => Effect.Effect<void, unknown>, options: SpillStorage.Options = {}) =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      yield* SpillStorage.SpillStorage.use(body).pipe(Effect.provide(make(options)))
    })
  const test = (name: string, body: (spill: Store) => Effect.Effect<void, unknown>, options?: SpillStorage.Options): Case => ({
    name,
    run: withStore(body, options)
  })

  return [
    test("writes strings and bytes as tool_<id> spills it owns, lists and reads back", (spill) =>
      Effect.gen(function*() {
        const a = yield* spill.write("hello 日本 🙂\n")
        const b = yield* spill.write(new Uint8Array([0xff, 0x00, 0xfe]))
        for (const p of [a, b]) {
          match(p, NAME)
          strictEqual(spill.owns(p), true, p)
        }
        deepStrictEqual(text(yield* readSpill(spill, a)), "hello 日本 🙂\n")
        deepStrictEqual([...(yield* readSpill(spill, b))], [0xff, 0x00, 0xfe])
        deepStrictEqual((yield* spill.list).map((e) => [e.path, e.size]), [[a, 18], [b, 3]])
        strictEqual(spill.owns(a.replace(/tool_/, "notes_")), false)
        strictEqual(spill.owns(`${a}.txt`), false)
      })),

    test("names are unique and list sorts them by creation", (spill) =>
      Effect.gen(function*() {
        const written: Array<string> = []
        for (let i = 0; i < 12; i++) written.push(yield* spill.write(`${i}`))
        strictEqual(new Set(written).size, 12)
        deepStrictEqual((yield* spill.list).map((e) => e.path), written)
      })),

    test("a writer is invisible until commit; closing its scope without commit leaves nothing", (spill) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const w = yield* spill.writer.pipe(Scope.provide(scope))
        yield* w.write(utf8("partial output"))
        deepStrictEqual(yield* spill.list, [])
        yield* Scope.close(scope, Exit.void)
        deepStrictEqual(yield* spill.list, [])
      })),

    test("commit makes the spill visible once; later writes fail", (spill) =>
      Effect.gen(function*() {
        const p = yield* Effect.scoped(Effect.gen(function*() {
          const w = yield* spill.writer
          yield* w.write(utf8("one "))
          yield* w.write(utf8("two"))
          const p = yield* w.commit
          strictEqual(yield* w.commit, p)
          const error = yield* Effect.flip(w.write(utf8("three")))
          strictEqual(error.message, `spill ${p} is already committed`)
          return p
        }))
        strictEqual(text(yield* readSpill(spill, p)), "one two")
        deepStrictEqual((yield* spill.list).map((e) => e.path), [p])
      })),

    test("past maxBytes: a trailer, and never half a character", (spill) =>
      Effect.gen(function*() {
        strictEqual(text(yield* readSpill(spill, yield* spill.write("aaaaaaaa日本"))), "aaaaaaaa\n[spill truncated at 8 bytes]\n")
        // The cap falls inside 日, which is split across two chunks.
        const bytes = utf8("aaaaaaaaa日zz")
        const p = yield* streamed(spill, [bytes.slice(0, 10), bytes.slice(10)])
        strictEqual(text(yield* readSpill(spill, p)), "aaaaaaaaa\n[spill truncated at 9 bytes]\n")
        strictEqual(text(yield* readSpill(spill, yield* spill.write("abcdefg🙂"))), "abcdefg\n[spill truncated at 7 bytes]\n")
        strictEqual(text(yield* readSpill(spill, yield* spill.write("0123456789"))), "0123456789")
      }), { maxBytes: 10 }),

    test("a large string goes through the chunked writer intact, a surrogate pair on a slice edge included", (spill) =>
      Effect.gen(function*() {
        const big = "a".repeat((1 << 20) - 1) + "🙂" + "b".repeat(9 << 20) + "日本"
        sameBytes(yield* readSpill(spill, yield* spill.write(big)), utf8(big))
      })),

    test("many small streamed chunks arrive in order", (spill) =>
      Effect.gen(function*() {
        const chunks = Array.from({ length: 2000 }, (_, i) => utf8(`line ${i}\n`))
        const p = yield* streamed(spill, chunks)
        strictEqual(text(yield* readSpill(spill, p)), chunks.map(text).join(""))
      })),

    test("a spill that does not exist is a `missing` error; another store's path is `foreign`", (spill) =>
      Effect.gen(function*() {
        const p = yield* spill.write("x")
        const gone = p.replace(/_[0-9A-Za-z]{10}$/, "_0000000000")
        const missing = yield* Effect.flip(Stream.runDrain(spill.read(gone)))
        strictEqual(missing.reason, "missing")
        strictEqual(missing.message, `The spilled output ${gone} has expired or was cleaned up; run the tool again to get it.`)
        const foreignPath = p.replace(/tool_/, "secret_")
        const foreign = yield* Effect.flip(Stream.runDrain(spill.read(foreignPath)))
        strictEqual(foreign.reason, "foreign")
        strictEqual(foreign.message, `${foreignPath} is not a spill of this store`)
      })),

    test("cleanup keeps spills within the retention and deletes those past it", (spill) =>
      Effect.gen(function*() {
        strictEqual(yield* spill.cleanup, 0)
        const p = yield* spill.write("kept for a while")
        yield* TestClock.adjust("6 days")
        strictEqual(yield* spill.cleanup, 0)
        deepStrictEqual((yield* spill.list).map((e) => e.path), [p])
        // Past the retention: gone, whether the hourly cleanup or this call deleted it.
        yield* TestClock.adjust("2 days")
        yield* spill.cleanup
        deepStrictEqual(yield* spill.list, [])
        strictEqual((yield* Effect.flip(Stream.runDrain(spill.read(p)))).reason, "missing")
      }))
  ]
}
