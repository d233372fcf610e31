/**
 * The parts every SpillStorage layer shares (the file and memory ones here, the S3 one in
 * `@agent-tools/spill-s3`): spill names, the per-spill cap, string chunking, the
 * lazy + hourly cleanup schedule, and writing a whole spill through a writer.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type { SpillError, SpillWriter } from "./SpillStorage.ts"
import * as Bytes from "./Bytes.ts"
import * as Utf8 from "./Utf8.ts"
import { encoder16 } from "./Utf8Scan.ts"

export const PREFIX = "tool_"
export const HOUR_MS = 60 * 60 * 1000
/** Strings are encoded and written in slices of this many UTF-16 units (bounded extra memory), bytes in slices of this many bytes. */
const SLICE = 1 << 20

const ID = "[0-9a-f]{16}_[0-9A-Za-z]{10}"
const SPILL_NAME = new RegExp(`^${PREFIX}${ID}$`)
const TEMP_NAME = new RegExp(`^\\.${PREFIX}${ID}\\.tmp$`)

/** Whether `name` is exactly a spill's name: what list, read and retention accept (never a user's file). */
export const isSpillName = (name: string): boolean => SPILL_NAME.test(name)
/** The temp a spill is written to before its rename: `.tool_<id>.tmp`. */
export const tempName = (name: string): string => `.${name}.tmp`
/** Whether `name` is exactly a spill temp's name. */
export const isTempName = (name: string): boolean => TEMP_NAME.test(name)

/**
 * The name of one workspace's spill directory: the root's base name (letters, digits, `.`, `_`,
 * `-`; at most 32) and 16 hex digits of the SHA-256 of its real path, so the name is stable across
 * runs and two workspaces with the same base name never share a directory.
 */
export const workspaceDirectoryName = Effect.fnUntraced(function*(realRoot: string) {
  const digest = yield* Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(realRoot)))
  const hex = Array.from(new Uint8Array(digest, 0, 8), (b) => b.toString(16).padStart(2, "0")).join("")
  const base = realRoot.split(/[\\/]/).filter((s) => s !== "").pop() ?? ""
  const safe = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "").slice(0, 32)
  return `${safe === "" ? "root" : safe}-${hex}`
})

/**
 * Spill names: `tool_<12 hex ms><4 hex sequence>_<10 random base62>`. The id sorts by creation
 * time and never wraps (opencode's did); age is taken from mtime, not from the name.
 */
export const makeNamer = () => {
  let lastMs = -1
  let seq = 0
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  return Effect.map(Clock.currentTimeMillis, (now) => {
    seq = now === lastMs ? seq + 1 : 0
    lastMs = now
    const random = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(10)), (b) => alphabet[b % 62]).join("")
    return `${PREFIX}${Math.floor(now).toString(16).padStart(12, "0")}${(seq & 0xffff).toString(16).padStart(4, "0")}_${random}`
  })
}

/**
 * The per-spill cap, applied to a sequence of chunks: returns what to write for each chunk.
 * Holds back a character split across chunks so the cut can never fall inside one.
 */
export const makeCap = (maxBytes: number) => {
  let written = 0
  let held: Uint8Array | undefined
  let capped = false
  const encoder = new TextEncoder()
  return {
    feed(chunk: Uint8Array): Array<Uint8Array> {
      if (capped || chunk.length === 0) return []
      let data = chunk
      if (held !== undefined) {
        data = Bytes.concat([held, chunk])
        held = undefined
      }
      const room = maxBytes - written
      if (data.length <= room) {
        const keep = data.length - Utf8.incompleteTail(data)
        if (keep < data.length) held = data.slice(keep)
        written += keep
        return keep > 0 ? [data.subarray(0, keep)] : []
      }
      const cut = Utf8.boundary(data, room)
      written += cut
      capped = true
      return [data.subarray(0, cut), encoder.encode(`\n[spill truncated at ${written} bytes]\n`)]
    },
    end(): Array<Uint8Array> {
      const rest = held
      held = undefined
      return rest === undefined ? [] : [rest]
    }
  }
}

/** Where a slice of at most `units` from `i` ends: never between the halves of a surrogate pair (each alone encodes as U+FFFD). */
const sliceEnd = (content: string, i: number, units: number): number => {
  const end = Math.min(content.length, i + units)
  const last = content.charCodeAt(end - 1)
  return end < content.length && last >= 0xd800 && last <= 0xdbff ? end - 1 : end
}

/**
 * Yields `content` as UTF-8 chunks of bounded size, never splitting a surrogate pair. Strings are
 * encoded into two reused buffers in turn: a chunk stays valid until the next but one is pulled,
 * so one can be written while the next is encoded. Bytes are yielded as views of SLICE bytes: one
 * write of a whole large buffer from the thread pool was at times ten times slower than the same
 * bytes in 1 MiB writes (100 MB in 190–320 ms instead of 25 in 5 runs of 60, on ext4; never in 60
 * runs of 1 MiB writes).
 */
export function* utf8Chunks(content: string | Uint8Array): Generator<Uint8Array> {
  if (typeof content !== "string") {
    for (let i = 0; i < content.length; i += SLICE) yield content.subarray(i, Math.min(content.length, i + SLICE))
    if (content.length === 0) yield content
    return
  }
  // Above one slice, the WebAssembly encoder where there is one: `TextEncoder` on a two-byte
  // string (any text with a non-ASCII line) is slower than writing the bytes to disk.
  const fast = content.length > SLICE ? encoder16() : undefined
  if (fast !== undefined) {
    for (let i = 0; i < content.length;) {
      const end = sliceEnd(content, i, fast.units)
      yield fast.encode(content.slice(i, end))
      i = end
    }
    return
  }
  const encoder = new TextEncoder()
  // A slice of SLICE units takes at most 3 bytes per unit; a shorter text needs only its own size
  // (bounded by its length: measuring it exactly would be a pass over the whole text).
  const size = content.length > SLICE ? SLICE * 3 : Utf8.byteLength(content)
  const buffers = [new Uint8Array(size), content.length > SLICE ? new Uint8Array(size) : undefined]
  let turn = 0
  for (let i = 0; i < content.length;) {
    const end = sliceEnd(content, i, SLICE)
    const buffer = buffers[turn]!
    turn = buffers[1] === undefined ? 0 : 1 - turn
    const { written } = encoder.encodeInto(content.slice(i, end), buffer)
    yield buffer.subarray(0, written)
    i = end
  }
}

/**
 * Runs `cleanup` once on first use (forked, the first write does not wait) and then every hour,
 * for the lifetime of the layer. Failures are logged and swallowed. Returns the first-use trigger.
 */
export const scheduleCleanup = Effect.fnUntraced(function*(cleanup: Effect.Effect<number, SpillError>) {
  const safe = cleanup.pipe(
    Effect.tap((n) => n > 0 ? Effect.logDebug(`spill cleanup deleted ${n} spills`) : Effect.void),
    Effect.catch((e) => Effect.logWarning("spill cleanup failed", e.message)),
    Effect.asVoid
  )
  const scope = yield* Effect.scope
  yield* Effect.sleep(HOUR_MS).pipe(Effect.andThen(safe), Effect.forever, Effect.forkScoped)
  let started = false
  return Effect.suspend(() => {
    if (started) return Effect.void
    started = true
    return Effect.asVoid(Effect.forkIn(safe, scope))
  })
})

/**
 * Writes `content` through a new writer and commits it. The write of each chunk is started before
 * the next chunk is encoded, so the encoding (this thread) and the write (the file system's
 * threads) overlap; one write is in flight at a time, so the chunks land in order.
 */
export const writeAll = (writer: Effect.Effect<SpillWriter, SpillError, Scope.Scope>, content: string | Uint8Array) =>
  Effect.scoped(Effect.gen(function*() {
    const w = yield* writer
    let inFlight: Fiber.Fiber<void, SpillError> | undefined
    for (const chunk of utf8Chunks(content)) {
      if (inFlight !== undefined) yield* Fiber.join(inFlight)
      inFlight = yield* Effect.forkChild(w.write(chunk), { startImmediately: true })
    }
    if (inFlight !== undefined) yield* Fiber.join(inFlight)
    return yield* w.commit
  }))
