/**
 * The spill store in memory (see `layerMemory`).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Bytes from "./Bytes.ts"
import { evictions, expired, notOurs, type Options, type SpillEntry, SpillError, SpillStorage, type SpillWriter } from "./SpillStorage.ts"
import { settings } from "./SpillStorageShared.ts"
import { isSpillName, makeCap, makeNamer, scheduleCleanup, workspaceDirectoryName, writeAll } from "./SpillWriting.ts"

const MEMORY_ROOT = "memory://spill/"

/**
 * Spills kept in memory under `memory://spill/tool_…` (with `workspace`:
 * `memory://spill/<workspace directory name>/tool_…`, the root taken as given), with the same
 * naming, caps (`maxBytes`, `maxTotalBytes`), commit and retention semantics (age by `Clock`
 * time). For tests and for runtimes without a disk.
 */
export const layerMemory = (options: Options = {}): Layer.Layer<SpillStorage> =>
  Layer.effect(
    SpillStorage,
    Effect.gen(function*() {
      const { maxBytes, maxTotalBytes, retentionMs } = settings(options)
      const store = new Map<string, { readonly data: Uint8Array; readonly mtime: number }>()
      const nextName = makeNamer()
      const root = options.workspace === undefined
        ? MEMORY_ROOT
        : `${MEMORY_ROOT}${yield* workspaceDirectoryName(options.workspace)}/`
      const owns = (p: string) => p.startsWith(root) && isSpillName(p.slice(root.length))

      const entriesOf = (): ReadonlyArray<SpillEntry> =>
        [...store].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([p, e]) => ({
          path: p,
          size: e.data.length,
          mtime: e.mtime
        }))
      const list = Effect.sync(entriesOf).pipe(Effect.withSpan("SpillStorage.list"))

      const cleanup = Effect.map(Clock.currentTimeMillis, (now) => {
        let deleted = 0
        for (const [p, e] of store) {
          if (now - e.mtime > retentionMs && store.delete(p)) deleted++
        }
        return deleted
      }).pipe(Effect.withSpan("SpillStorage.cleanup"))

      const firstUse = yield* scheduleCleanup(cleanup)

      const writer = Effect.gen(function*() {
        yield* firstUse
        const final = root + (yield* nextName)
        const chunks: Array<Uint8Array> = []
        const cap = makeCap(maxBytes)
        let committed = false
        // Copies: a caller may reuse its buffer once `write` returns.
        const put = (parts: Array<Uint8Array>) => parts.forEach((c) => chunks.push(c.slice()))
        const write = (chunk: Uint8Array) =>
          committed
            ? Effect.fail(new SpillError({ message: `spill ${final} is already committed` }))
            : Effect.sync(() => put(cap.feed(chunk)))
        const commit = Effect.suspend(() => {
          if (committed) return Effect.succeed(final)
          put(cap.end())
          const data = Bytes.concat(chunks)
          chunks.length = 0
          committed = true
          return Effect.map(Clock.currentTimeMillis, (mtime) => {
            for (const entry of evictions(entriesOf(), data.length, maxTotalBytes)) store.delete(entry.path)
            store.set(final, { data, mtime })
            return final
          })
        }).pipe(Effect.withSpan("SpillStorage.commit"))
        return { write, commit } satisfies SpillWriter
      }).pipe(Effect.withSpan("SpillStorage.writer"))

      const write = Effect.fn("SpillStorage.write")(function*(content: string | Uint8Array) {
        return yield* writeAll(writer, content)
      })

      const read = (p: string): Stream.Stream<Uint8Array, SpillError> =>
        Stream.suspend(() => {
          if (!owns(p)) return Stream.fail(notOurs(p))
          const entry = store.get(p)
          return entry === undefined ? Stream.fail(expired(p)) : Stream.succeed(entry.data)
        })

      return SpillStorage.of({ write, writer, read, owns, list, cleanup, directory: undefined, maxBytes })
    })
  )
