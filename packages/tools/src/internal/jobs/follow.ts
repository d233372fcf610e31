/**
 * Follows a job's output into its ring (and the live stream): a spill file the process writes
 * into is read by position as it grows; a pipe or terminal stream goes through `Truncate.stream`
 * on its way, which spills it. Either way memory holds only the ring and the spill's window.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import { Truncate } from "@agent-tools/core"
import type { Source } from "./process.ts"

/** Bytes read from the spill file at a time. */
const CHUNK = 1024 * 1024
/**
 * How long to wait before reading a file with nothing new again, in ms: short just after output
 * (a job's first line, an answer to input, arrives soon), growing to the longest while it is quiet.
 */
const POLL_SHORTEST = 2
const POLL_LONGEST = 20
/** Reads between two polls of the capture, which cuts a runaway spill back to the store's cap. */
const CAPTURE_EVERY = 50

export interface Following {
  /** Reads (or waits for) the rest, once `ended()` holds: the process tree is gone. */
  readonly run: Effect.Effect<void>
  /** After `run`: the spill's result (its path when the output was spilled). */
  readonly finish: Effect.Effect<Truncate.Result | undefined>
}

/** Where followed output goes: the job's ring (and live stream). */
export interface Sink {
  /** Takes `bytes` (copying what it keeps: the buffer is reused). */
  readonly push: (bytes: Uint8Array) => void
  /** Bytes printed that need not be read: more than the ring keeps is still to come. */
  readonly skip: (n: number) => void
  /** How many bytes of the end are kept. */
  readonly keep: number
  /** Whether someone follows the live output (then every byte is read, none skipped). */
  readonly followed: () => boolean
}

export const follow = (
  source: Source,
  sink: Sink,
  ended: () => boolean,
  truncation: Truncate.Options | undefined
): Effect.Effect<Following, never, FileSystem.FileSystem | Truncate.Truncate> =>
  source._tag === "file" ? followFile(source.capture, sink, ended) : followStream(source.stream, sink.push, truncation)

/**
 * When more than `keep` (and `slack`) bytes of the file are unread, only the last `keep` are read:
 * the ring would drop the others. Once the job has ended (no slack) a follower far behind a fast
 * writer so ends at once; while it runs, a loud job's output is not read through a second time.
 */
const skipAhead = (file: FileSystem.File, sink: Sink, slack: number) =>
  Effect.gen(function*() {
    const position = yield* file.seek(0n, "current")
    const size = (yield* file.stat).size
    const behind = Number(size - position)
    if (behind <= sink.keep + slack) return
    yield* file.seek(BigInt(behind - sink.keep), "current")
    sink.skip(behind - sink.keep)
  }).pipe(Effect.ignore)

const followFile = (capture: Truncate.Capture, sink: Sink, ended: () => boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const run = Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(capture.path, { flag: "r" })
      // One buffer for every read: the sink copies what it keeps.
      const buffer = new Uint8Array(CHUNK)
      let reads = 0
      let quiet = 0
      let finishing = false
      while (true) {
        if (!finishing && ended()) {
          finishing = true
          yield* skipAhead(file, sink, 0)
        } else if (!finishing && !sink.followed()) {
          yield* skipAhead(file, sink, CHUNK)
        }
        const n = yield* file.read(buffer).pipe(Effect.orElseSucceed(() => 0))
        if (++reads % CAPTURE_EVERY === 0) yield* Effect.uninterruptible(capture.poll)
        if (n > 0) {
          sink.push(buffer.subarray(0, n))
          quiet = 0
          continue
        }
        if (finishing) return
        yield* Effect.sleep(Duration.millis(Math.min(POLL_LONGEST, POLL_SHORTEST + quiet++)))
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
