/**
 * The registry's bookkeeping of its tool sources: which registered ids came from which source, and
 * loading sources (in parallel) into the registry's tool map, in the order the sources were added
 * so that listings stay stable however the loads interleave.
 *
 * A listing may bound its wait (`loadAll(wait)`): sources still loading then go on in the
 * background, each source loading once however many listings wait on it, and one that lands after
 * its listing stopped waiting is announced (`announce`), so a server that never answers delays no
 * listing past the bound.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Tool from "./Tool.ts"
import type { ToolSource, ToolSourceError } from "./ToolSource.ts"

interface Entry {
  readonly source: ToolSource
  /** The ids this source registered. */
  ids: ReadonlySet<string>
  /** The last warning logged for it: the same failure is reported once, not on every listing. */
  reported: string | undefined
  /** Its load in flight for listings, if any. */
  loading: Fiber.Fiber<ReadonlyArray<ToolSourceError>> | undefined
  /** A listing stopped waiting for that load: announce it when it lands. */
  late: boolean
}

export const make = (tools: Map<string, Effect.Effect<Tool.Built>>, changed: () => void, announce: () => void = () => {}) => {
  const entries: Array<Entry> = []

  const owned = (id: string) => entries.some((e) => e.ids.has(id))

  const replace = Effect.fnUntraced(function*(entry: Entry, list: ReadonlyArray<Tool.Built>) {
    const next = new Set<string>()
    for (const tool of list) {
      // A source never replaces a tool of the registry's own or of another source.
      if (tools.has(tool.id) && !entry.ids.has(tool.id)) {
        if (!owned(tool.id)) yield* report(entry, `${entry.source.name}: tool "${tool.id}" would replace a tool of that id; left out`)
        continue
      }
      next.add(tool.id)
      tools.set(tool.id, Effect.succeed(tool))
    }
    for (const id of entry.ids) if (!next.has(id)) tools.delete(id)
    entry.ids = next
    changed()
  })

  const report = (entry: Entry, message: string) =>
    entry.reported === message ? Effect.void : Effect.andThen(Effect.sync(() => {
      entry.reported = message
    }), Effect.logWarning(message))

  /** Loads the sources and returns the failures. */
  const loadEntries = (selected: ReadonlyArray<Entry>): Effect.Effect<ReadonlyArray<ToolSourceError>> =>
    Effect.forEach(selected, (entry) => Effect.result(entry.source.tools), { concurrency: "unbounded" }).pipe(
      Effect.flatMap((results) =>
        Effect.forEach(selected, (entry, i) => {
          const result = results[i]!
          if (result._tag === "Success") {
            entry.reported = undefined
            return Effect.as(replace(entry, result.success), [])
          }
          return replace(entry, []).pipe(
            Effect.andThen(report(entry, `${result.failure.message}; its tools are left out`)),
            Effect.as([result.failure])
          )
        })
      ),
      Effect.map((failures) => failures.flat())
    )

  /** The listing load of one source: the one in flight, or a new one (detached: it outlives a listing that stops waiting). */
  const listingLoad = (entry: Entry) =>
    entry.loading !== undefined ? Effect.succeed(entry.loading) : Effect.tap(
      Effect.forkDetach(loadEntries([entry]).pipe(
        Effect.ensuring(Effect.sync(() => {
          entry.loading = undefined
          if (entry.late) {
            entry.late = false
            announce()
          }
        }))
      )),
      (fiber) => Effect.sync(() => void (entry.loading = fiber))
    )

  const loadAllWithin = (wait: Duration.Input) =>
    Effect.gen(function*() {
      const selected = [...entries]
      const fibers = yield* Effect.forEach(selected, listingLoad)
      const done = yield* Effect.timeoutOption(Fiber.joinAll(fibers), wait)
      if (done._tag === "Some") return
      selected.forEach((entry, i) => {
        if (entry.loading === fibers[i]) entry.late = true
      })
    })

  return {
    add: (source: ToolSource) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const entry: Entry = { source, ids: new Set(), reported: undefined, loading: undefined, late: false }
          entries.push(entry)
          return entry
        }),
        (entry) =>
          Effect.sync(() => {
            entries.splice(entries.indexOf(entry), 1)
            for (const id of entry.ids) tools.delete(id)
            changed()
          })
      ).pipe(Effect.asVoid),
    /** Whether some source may hold this id. */
    claimed: (id: string) => entries.some((e) => e.source.claims(id)),
    /** Loads the sources that claim `id`; returns the failures. */
    load: (id: string) => Effect.suspend(() => loadEntries(entries.filter((e) => e.source.claims(id)))),
    /** Loads one source again. */
    reload: (source: ToolSource) => Effect.suspend(() => Effect.asVoid(loadEntries(entries.filter((e) => e.source === source)))),
    /** Loads every source. */
    loadAll: Effect.suspend(() => entries.length === 0 ? Effect.void : Effect.asVoid(loadEntries([...entries]))),
    /**
     * Loads every source, waiting at most `wait`: the sources still loading then carry on in the
     * background and are announced when they land.
     */
    loadAllWithin: (wait: Duration.Input) => Effect.suspend(() => entries.length === 0 ? Effect.void : loadAllWithin(wait))
  }
}
