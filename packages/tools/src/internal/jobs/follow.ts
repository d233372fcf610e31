/**
 * Follows a job's output into its ring (and the live stream): a spill file the process writes
 * into is read by position as it grows; a pipe or terminal stream goes through `Truncate.stream`
 * on its way, which spills it. Either way memory holds only the ring and the spill's window.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { Truncate } from "@agent-tools/core"
import type { Source } from "./process.ts"

/** Bytes read from the spill file at a time. */
const CHUNK = 1024 * 1024
/** How often a file with nothing new is read again, in ms. */
const POLL_INTERVAL = 20
/** Reads between two polls of the capture, which cuts a runaway spill back to the store's cap. */
const CAPTURE_EVERY = 50

export interface Following {
  /** Reads (or waits for) the rest, once `ended()` holds: the process tree is gone. */
  readonly run: Effect.Effect<void>
  /** After `run`: the spill's result (its path when the output was spilled). */
  readonly finish: Effect.Effect<Truncate.Result | undefined>
}

export const follow = (
  source: Source,
  push: (bytes: Uint8Array) => void,
  ended: () => boolean,
  truncation: Truncate.Options | undefined
): Effect.Effect<Following, never, FileSystem.FileSystem | Truncate.Truncate> =>
  source._tag === "file" ? followFile(source.capture, push, ended) : followStream(source.stream, push, truncation)

const followFile = (capture: Truncate.Capture, push: (bytes: Uint8Array) => void, ended: () => boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const run = Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(capture.path, { flag: "r" })
      let reads = 0
      while (true) {
        const chunk = yield* file.readAlloc(CHUNK).pipe(Effect.orElseSucceed(() => Option.none<Uint8Array>()))
        if (++reads % CAPTURE_EVERY === 0) yield* Effect.uninterruptible(capture.poll)
        if (Option.isSome(chunk) && chunk.value.length > 0) {
          push(chunk.value)
          continue
        }
        if (ended()) return
        yield* Effect.sleep(Duration.millis(POLL_INTERVAL))
      }
    })).pipe(Effect.catch(() => Effect.void))
    return { run, finish: capture.finish } satisfies Following
  })

const followStream = (stream: Stream.Stream<Uint8Array>, push: (bytes: Uint8Array) => void, truncation: Truncate.Options | undefined) =>
  Effect.gen(function*() {
    const truncate = yield* Truncate.Truncate
    let result: Truncate.Result | undefined
    const run = truncate.stream(Stream.tap(stream, (bytes) => Effect.sync(() => push(bytes))), truncation).pipe(
      Effect.map((r) => {
        result = r
      })
    )
    return { run, finish: Effect.sync(() => result) } satisfies Following
  })
