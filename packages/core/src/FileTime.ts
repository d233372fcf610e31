/**
 * Read-before-write and the stale-write guard: per session, what was read, when, and its content hash.
 *
 * Staleness is decided by content hash only: an mtime bump with identical
 * bytes (touch, formatter that changed nothing, coarse timestamps) never fails, and a rewrite that
 * keeps size and mtime but changes bytes is always caught. Size, lines and times are kept only to
 * explain a real change to the model.
 *
 * The bytes last read or written are kept for small files (within a memory budget), so an edit
 * whose file changed elsewhere since the read can be re-based over that change (`base`).
 *
 * `withLock` serialises writers of a path within this process and, through an advisory lock file
 * beside the path (`.<name>.agent-tools.lock`, created exclusively), across processes that use it
 * too; a lock left by a process that died, or older than a minute, is taken over.
 */
// node:crypto is pure computation here (no I/O): SHA-256 is native-speed and collision-free in
// practice, unlike a JS FNV/xxhash, and Node, Bun and Deno all provide it.
import { createHash } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import * as Bytes from "./Bytes.ts"

export interface Stamp {
  readonly readAt: number
  readonly hash: string
  readonly size: number
  readonly mtime: number | undefined
  readonly lines: number
}

export class FileNotReadError extends Schema.TaggedError<FileNotReadError>()("FileNotReadError", {
  path: Schema.String
}) {
  override get message() {
    return `You must read file ${this.path} before overwriting it. Use the read tool first.`
  }
}

export class FileModifiedError extends Schema.TaggedError<FileModifiedError>()("FileModifiedError", {
  path: Schema.String,
  /** Human-readable account of what changed (size, lines, time). */
  details: Schema.String
}) {
  override get message() {
    return `File ${this.path} has been modified since it was last read: ${this.details}\nRead the file again before modifying it.`
  }
}

export class FileTime extends Context.Service<FileTime, {
  /** Records a read; `content` is the bytes the tool read (else the file is read to hash it). */
  readonly read: (sessionID: string, path: string, content?: Uint8Array) => Effect.Effect<void, PlatformError>
  /**
   * Records our own write, so it never counts as an external change. `content` must not be changed
   * afterwards: recent writes' bytes are kept (not hashed) up to a byte budget. `release` is called
   * once they are no longer kept (replaced, or hashed after all), so the caller may reuse the memory.
   */
  readonly recordWrite: (
    sessionID: string,
    path: string,
    content: Uint8Array,
    release?: (content: Uint8Array) => void
  ) => Effect.Effect<void, PlatformError>
  readonly get: (sessionID: string, path: string) => Effect.Effect<Stamp | undefined>
  /**
   * Fails unless the file was read in this session and its content is unchanged since. `content`
   * is the file's bytes as the caller just read them (under the path's lock): they are checked
   * instead of reading the file again.
   */
  readonly assert: (
    sessionID: string,
    path: string,
    content?: Uint8Array
  ) => Effect.Effect<void, FileNotReadError | FileModifiedError | PlatformError>
  /**
   * The bytes of the session's last read or write of `path` (a copy), when they were kept: files
   * up to `MAX_BASE_BYTES`, within the memory budget. Undefined otherwise.
   */
  readonly base: (sessionID: string, path: string) => Effect.Effect<Uint8Array | undefined>
  /**
   * Runs `effect` holding the writer lock of `path`: one writer per real path at a time in this
   * process, and across processes through the advisory lock file beside it.
   */
  readonly withLock: <A, E, R>(path: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("@agent-tools/core/FileTime") {}

// ---------------------------------------------------------------------------------------------
// Implementation

export interface LayerOptions {
  /** Turns the staleness check off: `assert` always succeeds (reads and locks still work). */
  readonly disabled?: boolean | undefined
  /**
   * Whether a process is alive (a lock file's owner), on this machine. Default: signal 0 through
   * the runtime's `process.kill`; where there is none, every owner counts as alive (age decides).
   */
  readonly processAlive?: ((pid: number) => boolean) | undefined
}

/** A read or our own write before it is stamped: when, and the very bytes read or written. */
interface Written {
  readonly readAt: number
  readonly bytes: Uint8Array
  readonly release: ((content: Uint8Array) => void) | undefined
  /** A read's mtime, kept for its stamp. */
  readonly mtime?: number | undefined
}

/**
 * The written bytes kept across files (counted by the memory they hold): enough for a session
 * going back and forth between a few large files without hashing any of them; past it, the
 * oldest writes are hashed and their bytes let go.
 */
export const MAX_HELD_BYTES = 32 * 1024 * 1024

/** Files up to this size keep the bytes of their last read, for re-basing an edit (`base`). */
export const MAX_BASE_BYTES = 1024 * 1024

/** A lock file older than this is taken over, whoever holds it: no write takes that long. */
export const LOCK_STALE_MS = 60_000

/** How the name of a lock file ends. */
export const LOCK_SUFFIX = ".agent-tools.lock"

/** A lock file this process made: the scope of its still open handle, if it was left open. */
interface Held {
  readonly open: Scope.Closeable | undefined
}

/** The advisory lock file of `file`: a dotfile beside it. */
export const lockFileOf = (path: Path.Path, file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}${LOCK_SUFFIX}`)

interface ProcessHost {
  readonly process?: { readonly pid?: number; readonly kill?: (pid: number, signal: number) => unknown }
}
const host = (globalThis as ProcessHost).process

const defaultAlive = (pid: number): boolean => {
  if (host?.kill === undefined) return true
  try {
    host.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as { code?: string }).code === "EPERM"
  }
}

/** SHA-256 of the bytes, hex. */
export const hash = (content: Uint8Array): string => createHash("sha256").update(content).digest("hex")

/** Lines as an editor counts them: "a\nb" and "a\nb\n" both have 2, "" has 0. */
export const countLines = (content: Uint8Array): number => {
  let n = 0
  for (let i = content.indexOf(10); i !== -1; i = content.indexOf(10, i + 1)) n++
  return content.length > 0 && content[content.length - 1] !== 10 ? n + 1 : n
}

const iso = (ms: number) => new Date(ms).toISOString()

const isNotFound = (e: PlatformError) => e.reason._tag === "NotFound"

/** What changed between the stamp and the current bytes, for the model. */
const describeChange = (stamp: Stamp, size: number, lines: number, mtime: number | undefined): string => {
  const what = size !== stamp.size || lines !== stamp.lines
    ? `size ${stamp.size} → ${size} bytes, ${stamp.lines} → ${lines} lines`
    : `same size (${size} bytes) and line count (${lines}) but different content`
  const when = mtime === undefined ? "" : mtime === stamp.mtime ? `, mtime unchanged ${iso(mtime)}` : `, modified ${iso(mtime)}`
  return `${what}${when} (read at ${iso(stamp.readAt)})`
}

/**
 * Builds the service; `lockCount` (not part of the service contract) reports how many per-path
 * locks are held or awaited, so tests can check the lock map is cleaned up.
 */
export const make = Effect.fnUntraced(function*(options: LayerOptions = {}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  // Plain maps: every read-modify-write happens without a yield in between, so it is atomic.
  const sessions = new Map<string, Map<string, Stamp | Written>>()
  // The records still holding their written bytes, oldest first, with where they are stored.
  const held = new Map<Written, { readonly files: Map<string, Stamp | Written>; readonly key: string }>()
  let heldBytes = 0
  const locks = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()

  // mtime of the file, undefined if it is gone or the platform has none.
  const mtimeOf = (key: string) =>
    fs.stat(key).pipe(
      Effect.map((info) => Option.getOrUndefined(Option.map(info.mtime, (d) => d.getTime()))),
      Effect.catchTag("PlatformError", (e) => (isNotFound(e) ? Effect.succeed(undefined) : Effect.fail(e)))
    )

  // stat before reading: a write landing between the two shows up as a hash change later.
  const stamp = Effect.fnUntraced(function*(key: string, content: Uint8Array | undefined) {
    const mtime = yield* mtimeOf(key)
    const readAt = yield* Clock.currentTimeMillis
    if (content !== undefined) return { readAt, hash: hash(content), size: content.length, mtime, lines: countLines(content) } satisfies Stamp
    // Read here: streamed through the hash, so a file of any size costs a chunk of memory.
    const folded = yield* fs.stream(key).pipe(
      Stream.runFold(
        () => ({ digest: createHash("sha256"), size: 0, newlines: 0, last: -1 }),
        (acc, chunk: Uint8Array) => {
          acc.digest.update(chunk)
          acc.size += chunk.length
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) acc.newlines++
          if (chunk.length > 0) acc.last = chunk[chunk.length - 1]!
          return acc
        }
      )
    )
    const lines = folded.size > 0 && folded.last !== 10 ? folded.newlines + 1 : folded.newlines
    return { readAt, hash: folded.digest.digest("hex"), size: folded.size, mtime, lines } satisfies Stamp
  })

  // A written record's bytes are let go: once, and handed back to the writer.
  const letGo = (record: Written) => {
    if (!held.delete(record)) return
    heldBytes -= record.bytes.buffer.byteLength
    record.release?.(record.bytes)
  }

  const stampOf = ({ readAt, bytes, mtime }: Written): Stamp => ({ readAt, hash: hash(bytes), size: bytes.length, mtime, lines: countLines(bytes) })

  // A write's record as a stamp: hashed and counted now, put back in place of the bytes.
  const settle = (files: Map<string, Stamp | Written>, key: string, record: Stamp | Written): Stamp => {
    if (!("bytes" in record)) return record
    const settled = stampOf(record)
    if (files.get(key) === record) files.set(key, settled)
    letGo(record)
    return settled
  }

  const store = (sessionID: string, key: string, value: Stamp | Written) =>
    Effect.sync(() => {
      let files = sessions.get(sessionID)
      if (files === undefined) sessions.set(sessionID, files = new Map())
      const previous = files.get(key)
      files.set(key, value)
      // A record replaced in place needs no stamp: its bytes are simply let go.
      if (previous !== undefined && previous !== value && "bytes" in previous) letGo(previous)
      if (!("bytes" in value)) return
      held.set(value, { files, key })
      heldBytes += value.bytes.buffer.byteLength
      // Over the budget, the oldest writes (never the one just made) are stamped.
      for (const [record, at] of held) {
        if (heldBytes <= MAX_HELD_BYTES || record === value) break
        settle(at.files, at.key, record)
      }
    })

  const read = Effect.fn("FileTime.read")(function*(sessionID: string, file: string, content?: Uint8Array) {
    const key = path.resolve(file)
    yield* Effect.annotateCurrentSpan({ sessionID, path: key })
    if (content !== undefined && content.length <= MAX_BASE_BYTES) {
      // Kept as bytes, like a write: an edit of a file changed elsewhere is re-based on them.
      const mtime = yield* mtimeOf(key)
      const readAt = yield* Clock.currentTimeMillis
      return yield* store(sessionID, key, { readAt, bytes: content, release: undefined, mtime })
    }
    yield* store(sessionID, key, yield* stamp(key, content))
  })

  // Our own write: the bytes are known, and the mtime only ever explains a later change, so the
  // file is not stat'ed again. The bytes are kept instead of hashed: the next edit of the file
  // compares what it reads with them, so an edit after an edit hashes nothing.
  const recordWrite = Effect.fn("FileTime.recordWrite")(function*(
    sessionID: string,
    file: string,
    content: Uint8Array,
    release?: (content: Uint8Array) => void
  ) {
    const key = path.resolve(file)
    yield* Effect.annotateCurrentSpan({ sessionID, path: key })
    const readAt = yield* Clock.currentTimeMillis
    yield* store(sessionID, key, { readAt, bytes: content, release })
  })

  const lookUp = (sessionID: string, key: string): Stamp | Written | undefined => sessions.get(sessionID)?.get(key)

  const get = Effect.fn("FileTime.get")(function*(sessionID: string, file: string) {
    const key = path.resolve(file)
    const record = lookUp(sessionID, key)
    return record === undefined ? undefined : settle(sessions.get(sessionID)!, key, record)
  })

  const assert = Effect.fn("FileTime.assert")(function*(sessionID: string, file: string, content?: Uint8Array) {
    if (options.disabled === true) return
    const key = path.resolve(file)
    yield* Effect.annotateCurrentSpan({ sessionID, path: key })
    const record = lookUp(sessionID, key)
    if (record === undefined) return yield* new FileNotReadError({ path: key })
    if (content !== undefined && "bytes" in record && Bytes.equal(content, record.bytes)) return
    // Kept bytes stay kept (an edit may be re-based on them): the stamp is made without settling.
    const previous = "bytes" in record ? stampOf(record) : record
    if (content !== undefined && !("bytes" in record) && hash(content) === previous.hash) return
    // The mtime only explains a change: it is looked up when there is one (or the bytes are read here).
    const mtime = yield* mtimeOf(key)
    const bytes = content ?? (yield* fs.readFile(key).pipe(
      Effect.catchTag("PlatformError", (e) => (isNotFound(e) ? Effect.succeed(undefined) : Effect.fail(e)))
    ))
    if (bytes === undefined) {
      return yield* new FileModifiedError({
        path: key,
        details: `the file was deleted (it had ${previous.size} bytes, ${previous.lines} lines when read at ${
          iso(previous.readAt)
        })`
      })
    }
    if (hash(bytes) === previous.hash) return
    return yield* new FileModifiedError({ path: key, details: describeChange(previous, bytes.length, countLines(bytes), mtime) })
  })

  const base = Effect.fn("FileTime.base")(function*(sessionID: string, file: string) {
    const record = lookUp(sessionID, path.resolve(file))
    return record !== undefined && "bytes" in record && record.bytes.length <= MAX_BASE_BYTES ? record.bytes.slice() : undefined
  })

  const alive = options.processAlive ?? defaultAlive
  const owner = new TextEncoder().encode(`${host?.pid ?? 0}\n`)

  // Whether the lock file at `lock` may be taken over: its owner is gone, or it is too old.
  const abandoned = (lock: string) =>
    Effect.gen(function*() {
      const info = yield* fs.stat(lock)
      const now = yield* Clock.currentTimeMillis
      const mtime = Option.getOrUndefined(Option.map(info.mtime, (d) => d.getTime()))
      if (mtime !== undefined && now - mtime > LOCK_STALE_MS) return true
      const pid = Number.parseInt(new TextDecoder().decode(yield* fs.readFile(lock)), 10)
      // An owner still writing its pid (empty file) or this very process is waited for.
      return Number.isSafeInteger(pid) && pid > 0 && pid !== host?.pid && !alive(pid)
    }).pipe(Effect.orElseSucceed(() => false))

  /**
   * Takes the lock file of `key`: created exclusively, retried while another process holds it
   * (taken over once abandoned). Released by removing it. Where it cannot be created at all (no
   * directory yet, no permission), the write goes ahead under the in-process lock only.
   */
  // Where a file may be removed while open (not Windows), the lock file stays open until it is
  // removed and its close is not waited for: a round trip to the file system fewer on every write.
  const closeLate = path.sep === "/"
  const lockFile = (key: string) => {
    const lock = lockFileOf(path, key)
    // The lock file made with our pid in it: its handle's scope when it is still open.
    const create: Effect.Effect<Held, PlatformError> = closeLate
      ? Effect.gen(function*() {
        const scope = yield* Scope.make()
        const written = yield* Effect.exit(
          Effect.flatMap(fs.open(lock, { flag: "wx" }).pipe(Scope.provide(scope)), (file) => file.writeAll(owner))
        )
        if (written._tag === "Success") return { open: scope } satisfies Held
        yield* Scope.close(scope, Exit.void)
        return yield* Effect.failCause(written.cause)
      })
      : Effect.as(fs.writeFile(lock, owner, { flag: "wx" }), { open: undefined })
    const attempt = (wait: number): Effect.Effect<Held | undefined> =>
      create.pipe(
        Effect.catch((e) => {
          if (e.reason._tag !== "AlreadyExists") return Effect.succeed(undefined)
          return Effect.flatMap(abandoned(lock), (gone) =>
            gone
              ? Effect.andThen(fs.remove(lock).pipe(Effect.ignore), attempt(wait))
              : Effect.andThen(Effect.sleep(wait), attempt(Math.min(wait * 2, 100))))
        })
      )
    return {
      acquire: attempt(5),
      release: (held: Held | undefined) =>
        held === undefined ? Effect.void : Effect.andThen(
          fs.remove(lock).pipe(Effect.ignore),
          held.open === undefined ? Effect.void : Effect.asVoid(Effect.forkDetach(Scope.close(held.open, Exit.void)))
        )
    }
  }

  const withLock = <A, E, R>(file: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const key = path.resolve(file)
      let entry = locks.get(key)
      if (entry === undefined) locks.set(key, entry = { semaphore: Semaphore.makeUnsafe(1), users: 0 })
      const held = entry
      held.users++ // counts holders and waiters; the entry goes when the last one leaves
      const { acquire, release } = lockFile(key)
      return held.semaphore.withPermit(Effect.acquireUseRelease(acquire, () => effect, release)).pipe(
        Effect.ensuring(Effect.sync(() => {
          if (--held.users === 0 && locks.get(key) === held) locks.delete(key)
        }))
      )
    }).pipe(Effect.withSpan("FileTime.withLock", { attributes: { path: file } }))

  const lockCount = Effect.sync(() => locks.size)
  return { service: FileTime.of({ read, recordWrite, get, assert, base, withLock }), lockCount }
})

/** FileTime with per-session stamps and per-path writer locks. Needs FileSystem and Path. */
export const layer = (options: LayerOptions = {}): Layer.Layer<FileTime, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(FileTime, Effect.map(make(options), (built) => built.service))
