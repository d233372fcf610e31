/**
 * The spill store on a file system (see `layer`).
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import * as Bytes from "./Bytes.ts"
import {
  type DirectSpill,
  evictions,
  expired,
  notOurs,
  type Options,
  type SpillEntry,
  SpillError,
  SpillStorage,
  type SpillWriter
} from "./SpillStorage.ts"
import {
  HOUR_MS,
  isSpillName,
  isTempName,
  makeCap,
  makeNamer,
  scheduleCleanup,
  tempName,
  workspaceDirectoryName,
  writeAll
} from "./SpillWriting.ts"
import { settings, spillError } from "./SpillStorageShared.ts"
import * as Utf8 from "./Utf8.ts"

/** A temp file untouched for this long belongs to a writer that died. */
const TEMP_MAX_AGE_MS = HOUR_MS
/** Spills are private to the user: files 0600 in directories 0700. */
const FILE_MODE = 0o600
const DIR_MODE = 0o700
const GROUP_OTHER = 0o077
const STICKY = 0o1000
/** Whole spills up to this size are written in one call: one round trip, at most 8 MiB extra. */
const SMALL = 8 * 1024 * 1024
/** Small chunks are gathered up to this size before a write: one syscall per chunk is slow. */
const COALESCE = 256 * 1024

/**
 * Spills as files over Effect `FileSystem` and `Path`: in `dir`, or with `workspace` in that
 * workspace's subdirectory of `dir` (created on demand). Files are created 0600, directories 0700.
 * An existing workspace subdirectory open to group or others is made private, and one that is a
 * symlink or cannot be made private is refused; `dir` itself loses group and other access when
 * possible, unless it is a shared sticky directory such as /tmp. Each spill is written to `.tool_<id>.tmp` beside its final name
 * and renamed on commit, so a reader never sees a partial spill; a writer whose scope closes before
 * commit removes its temp. Cleanup deletes only regular files named exactly like a spill older
 * than the retention by mtime, and temps older than an hour — in the spill directory, and with
 * `workspace` also those left directly in `dir` by stores without one. Each commit first makes room
 * under `maxTotalBytes` by deleting the oldest committed spills of the directory (commits of this
 * store one at a time; another process's spills in the same directory count too).
 */
export const layer = (
  options: Options & {
    readonly dir: string
    /**
     * Offer `direct` spills: the store's files are on the disk that child processes see (the real
     * file system, not a memory one), so a command's output can be redirected into them.
     */
    readonly direct?: boolean | undefined
  }
): Layer.Layer<SpillStorage, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    SpillStorage,
    Effect.gen(function*() {
      const store = yield* open(options)
      const cleanupAll = cleanup(store)
      const live: Live = { ...store, firstUse: yield* scheduleCleanup(cleanupAll), layerScope: yield* Effect.scope }
      return SpillStorage.of({
        write: Effect.fn("SpillStorage.write")(function*(content: string | Uint8Array) {
          return yield* writeAs(live, yield* spillNames(live), content)
        }),
        writeInBackground: Effect.fn("SpillStorage.writeInBackground")(function*(content: string | Uint8Array) {
          return yield* writeInBackground(live, content)
        }),
        ready: (p: string) => ready(live, p),
        writer: Effect.flatMap(spillNames(live), (names) => writerAs(live, names)),
        ...(options.direct === true ? { direct: direct(live) } : {}),
        read: (p: string) => read(live, p),
        owns: (p: string) => owns(live, p),
        list: list(live),
        cleanup: cleanupAll,
        directory: live.dir,
        maxBytes: live.maxBytes
      })
    })
  )

/** What every part of the file store shares: its services, directories, settings and mutable state. */
interface Store {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly root: string
  readonly dir: string
  readonly maxBytes: number
  readonly maxTotalBytes: number
  readonly retentionMs: number
  readonly nextName: Effect.Effect<string>
  // Spills still being written in the background, by name: `ready` waits for them, and the total cap never deletes them.
  readonly pending: Map<string, Deferred.Deferred<void>>
  // Commits take turns, so two of them never both count the same free room.
  readonly commits: Semaphore.Semaphore
  // The directory is made on first use and again only if it disappeared.
  readonly state: { dirReady: boolean }
}

/** The store once running: the first-use cleanup trigger and the layer's scope for background writes. */
interface Live extends Store {
  readonly firstUse: Effect.Effect<void>
  readonly layerScope: Scope.Scope
}

interface Names {
  readonly final: string
  readonly temp: string
}

const open = Effect.fnUntraced(function*(options: Options & { readonly dir: string }) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = path.resolve(options.dir)
  const workspace = options.workspace === undefined ? undefined : path.resolve(options.workspace)
  const realWorkspace = workspace === undefined
    ? undefined
    : yield* fs.realPath(workspace).pipe(Effect.orElseSucceed(() => workspace))
  const dir = realWorkspace === undefined ? root : path.join(root, yield* workspaceDirectoryName(realWorkspace))
  return {
    fs,
    path,
    root,
    dir,
    ...settings(options),
    nextName: makeNamer(),
    pending: new Map<string, Deferred.Deferred<void>>(),
    commits: Semaphore.makeUnsafe(1),
    state: { dirReady: false }
  } satisfies Store
})

const owns = ({ dir, path }: Store, p: string) => {
  const resolved = path.resolve(p)
  return path.dirname(resolved) === dir && isSpillName(path.basename(resolved))
}

const namesIn = ({ fs }: Store, d: string) =>
  fs.readDirectory(d).pipe(
    Effect.catchTag("PlatformError", (e) => e.reason._tag === "NotFound" ? Effect.succeed([]) : Effect.fail(e)),
    Effect.mapError(spillError(`cannot list ${d}`))
  )

// lstat: a symlink or directory named like a spill is never ours to delete.
const fileInfo = ({ fs }: Store, p: string) =>
  Effect.map(Effect.option(fs.lstat(p)), (o) => Option.isSome(o) && o.value.type === "File" ? o.value : undefined)

const list = (store: Store) =>
  Effect.gen(function*() {
    const entries: Array<SpillEntry> = []
    for (const name of (yield* namesIn(store, store.dir)).filter(isSpillName).sort()) {
      const p = store.path.join(store.dir, name)
      const info = yield* fileInfo(store, p)
      if (info === undefined) continue
      entries.push({ path: p, size: Number(info.size), mtime: Option.getOrUndefined(info.mtime)?.getTime() ?? 0 })
    }
    return entries as ReadonlyArray<SpillEntry>
  }).pipe(Effect.withSpan("SpillStorage.list"))

/** Deletes the oldest spills until `incoming` more bytes fit under the total cap; a failure only warns. */
const makeRoom = (store: Store, incoming: number) =>
  Effect.gen(function*() {
    const evicted = evictions(yield* list(store), incoming, store.maxTotalBytes, (p) => store.pending.has(store.path.basename(p)))
    for (const entry of evicted) yield* Effect.ignore(store.fs.remove(entry.path))
  }).pipe(
    Effect.catch((e) => Effect.logWarning("making room under the spill store's total cap failed", e.message)),
    Effect.withSpan("SpillStorage.makeRoom")
  )

const rename = ({ fs }: Store, temp: string, final: string) =>
  fs.rename(temp, final).pipe(Effect.mapError(spillError(`cannot rename ${temp}`)))

/** Makes room for a spill of `size` bytes, then renames its temp into place. */
const place = (store: Store, temp: string, final: string, size: number) =>
  store.commits.withPermit(Effect.andThen(makeRoom(store, size), rename(store, temp, final)))

const cleanupIn = Effect.fnUntraced(function*(store: Store, d: string, now: number) {
  let deleted = 0
  for (const name of yield* namesIn(store, d)) {
    const spill = isSpillName(name)
    if (!spill && !isTempName(name)) continue
    const p = store.path.join(d, name)
    const mtime = Option.getOrUndefined((yield* fileInfo(store, p))?.mtime ?? Option.none())?.getTime()
    if (mtime === undefined || now - mtime <= (spill ? store.retentionMs : TEMP_MAX_AGE_MS)) continue
    const removed = yield* Effect.option(store.fs.remove(p))
    if (spill && Option.isSome(removed)) deleted++
  }
  return deleted
})

const cleanup = (store: Store) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const own = yield* cleanupIn(store, store.dir, now)
    return store.dir === store.root ? own : own + (yield* cleanupIn(store, store.root, now))
  }).pipe(Effect.withSpan("SpillStorage.cleanup"))

const permissions = (info: FileSystem.File.Info) => info.mode & 0o7777

// The workspace's subdirectory is the store's alone: it must be a real directory made private.
const makeOwnPrivate = ({ dir, fs }: Store) =>
  Effect.gen(function*() {
    const info = yield* fs.lstat(dir)
    if (info.type !== "Directory") {
      return yield* new SpillError({ message: `the spill directory ${dir} is not a directory of its own (${info.type})` })
    }
    const mode = permissions(info)
    if ((mode & GROUP_OTHER) === 0) return
    yield* fs.chmod(dir, mode & ~GROUP_OTHER).pipe(
      Effect.mapError(spillError(`the spill directory ${dir} is open to others (mode ${mode.toString(8)}) and cannot be made private`))
    )
  })

// The store's root may be the caller's: tightened when possible, never when shared like /tmp.
const makeRootPrivate = ({ fs, root }: Store) =>
  Effect.gen(function*() {
    const info = yield* fs.stat(root)
    const mode = permissions(info)
    if (info.type !== "Directory" || (mode & GROUP_OTHER) === 0 || (mode & STICKY) !== 0) return
    yield* fs.chmod(root, mode & ~GROUP_OTHER)
  })

const makeDir = (store: Store) =>
  Effect.gen(function*() {
    const { dir, fs, root } = store
    yield* fs.makeDirectory(dir, { recursive: true, mode: DIR_MODE }).pipe(Effect.mapError(spillError(`cannot create ${dir}`)))
    yield* Effect.ignore(makeRootPrivate(store))
    if (dir !== root) {
      yield* makeOwnPrivate(store).pipe(Effect.mapError((e) => e._tag === "SpillError" ? e : spillError(`cannot inspect ${dir}`)(e)))
    }
    store.state.dirReady = true
  })

/** Runs `create` (which makes a file in `dir`), making the directory first when needed. */
const inDir = <A>(store: Store, target: string, create: Effect.Effect<A, PlatformError>) =>
  Effect.suspend(() => store.state.dirReady ? create : Effect.andThen(makeDir(store), create)).pipe(
    Effect.catchTag("PlatformError", (e) => e.reason._tag === "NotFound" ? Effect.andThen(makeDir(store), create) : Effect.fail(e)),
    Effect.mapError((e) => e._tag === "SpillError" ? e : spillError(`cannot create ${target}`)(e))
  )

const spillNames = (store: Store) =>
  Effect.map(store.nextName, (name): Names => ({ final: store.path.join(store.dir, name), temp: store.path.join(store.dir, tempName(name)) }))

const writerAs = (store: Live, { final, temp }: Names) =>
  Effect.gen(function*() {
    const { fs } = store
    yield* store.firstUse
    let committed = false
    // Registered before the file is opened, so it runs after the handle is closed.
    yield* Effect.addFinalizer(() => committed ? Effect.void : Effect.ignore(fs.remove(temp, { force: true })))
    const fileScope = yield* Scope.fork(yield* Effect.scope)
    const file = yield* inDir(store, temp, fs.open(temp, { flag: "wx", mode: FILE_MODE }).pipe(Scope.provide(fileScope)))
    const cap = makeCap(store.maxBytes)
    let size = 0
    let gathered: Array<Uint8Array> = []
    let gatheredBytes = 0
    const flush = Effect.suspend(() => {
      if (gathered.length === 0) return Effect.void
      const data = gathered.length === 1 ? gathered[0]! : Bytes.concat(gathered, gatheredBytes)
      gathered = []
      gatheredBytes = 0
      return file.writeAll(data).pipe(Effect.mapError(spillError(`cannot write ${temp}`)))
    })
    // Big chunks are written as they come; small ones are copied and gathered (callers may reuse buffers).
    const put = (chunks: Array<Uint8Array>) =>
      Effect.forEach(chunks, (c) => {
        size += c.length
        if (gatheredBytes + c.length < COALESCE) {
          gathered.push(c.slice())
          gatheredBytes += c.length
          return Effect.void
        }
        return Effect.andThen(flush, file.writeAll(c).pipe(Effect.mapError(spillError(`cannot write ${temp}`))))
      }, { discard: true })
    const write = (chunk: Uint8Array) =>
      committed ? Effect.fail(new SpillError({ message: `spill ${final} is already committed` })) : put(cap.feed(chunk))
    const commit = Effect.suspend(() =>
      committed ? Effect.succeed(final) : Effect.gen(function*() {
        yield* put(cap.end())
        yield* flush
        yield* Scope.close(fileScope, Exit.void)
        yield* place(store, temp, final, size)
        committed = true
        return final
      })
    ).pipe(Effect.withSpan("SpillStorage.commit"))
    return { write, commit } satisfies SpillWriter
  }).pipe(Effect.withSpan("SpillStorage.writer"))

const direct = (store: Live) =>
  Effect.gen(function*() {
    const { fs } = store
    yield* store.firstUse
    const { final, temp } = yield* spillNames(store)
    let committed = false
    yield* Effect.addFinalizer(() => committed ? Effect.void : Effect.ignore(fs.remove(temp, { force: true })))
    const fileScope = yield* Scope.fork(yield* Effect.scope)
    // Appending: our own writes (`append`, the trailer) land after whatever the process wrote.
    const file = yield* inDir(store, temp, fs.open(temp, { flag: "ax+", mode: FILE_MODE }).pipe(Scope.provide(fileScope)))
    const failed = (what: string) => spillError(`cannot ${what} ${temp}`)
    const read = (buffer: Uint8Array, position: number) =>
      file.read(buffer, { position: BigInt(position) }).pipe(Effect.mapError(failed("read")))
    const size = file.stat.pipe(Effect.map((info) => Number(info.size)), Effect.mapError(failed("inspect")))
    const append = (bytes: Uint8Array) => file.writeAll(bytes).pipe(Effect.mapError(failed("write")))
    const truncate = (length: number) => file.truncate(length).pipe(Effect.mapError(failed("truncate")))
    const commit = (trailer?: Uint8Array) =>
      Effect.suspend(() =>
        committed ? Effect.succeed(final) : Effect.gen(function*() {
          if (trailer !== undefined) yield* append(trailer)
          yield* Scope.close(fileScope, Exit.void)
          const written = yield* fs.stat(temp).pipe(Effect.map((info) => Number(info.size)), Effect.mapError(failed("inspect")))
          yield* place(store, temp, final, written)
          committed = true
          return final
        })
      ).pipe(Effect.withSpan("SpillStorage.commit"))
    return { path: temp, read, size, append, truncate, commit } satisfies DirectSpill
  }).pipe(Effect.withSpan("SpillStorage.direct"))

// Up to SMALL bytes under the cap: one writeFile and a rename, the fewest round trips.
const writeSmall = Effect.fnUntraced(function*(store: Live, { final, temp }: Names, data: Uint8Array) {
  const { fs } = store
  yield* store.firstUse
  yield* inDir(store, temp, fs.writeFile(temp, data, { flag: "wx", mode: FILE_MODE })).pipe(
    Effect.andThen(place(store, temp, final, data.length)),
    Effect.onError(() => Effect.ignore(fs.remove(temp, { force: true })))
  )
  return final
})

const writeAs = (store: Live, names: Names, content: string | Uint8Array) => {
  const limit = Math.min(SMALL, store.maxBytes)
  if (typeof content !== "string") {
    return content.length <= limit ? writeSmall(store, names, content) : writeAll(writerAs(store, names), content)
  }
  if (content.length <= limit && Utf8.byteLength(content) <= limit) {
    return writeSmall(store, names, new TextEncoder().encode(content))
  }
  return writeAll(writerAs(store, names), content)
}

const writeInBackground = Effect.fnUntraced(function*(store: Live, content: string | Uint8Array) {
  const names = yield* spillNames(store)
  // The directory is made now, so the usual failure (it cannot be) is the caller's to report.
  if (!store.state.dirReady) yield* makeDir(store)
  const done = yield* Deferred.make<void>()
  const name = store.path.basename(names.final)
  store.pending.set(name, done)
  // Uninterruptible: closing the layer waits for the write instead of losing the spill.
  yield* writeAs(store, names, content).pipe(
    Effect.catch((e) => Effect.logWarning("writing a spill in the background failed", e.message)),
    Effect.ensuring(Effect.suspend(() => {
      store.pending.delete(name)
      return Deferred.succeed(done, undefined)
    })),
    Effect.forkIn(store.layerScope, { startImmediately: true, uninterruptible: true })
  )
  return names.final
})

const ready = (store: Store, p: string) =>
  Effect.suspend(() => {
    const done = store.pending.size === 0 ? undefined : store.pending.get(store.path.basename(p))
    return done === undefined ? Effect.void : Deferred.await(done)
  })

const read = (store: Store, p: string): Stream.Stream<Uint8Array, SpillError> =>
  owns(store, p)
    ? store.fs.stream(store.path.resolve(p)).pipe(
      Stream.mapError((e) => e.reason._tag === "NotFound" ? expired(p) : spillError(`cannot read ${p}`)(e))
    )
    : Stream.fail(notOurs(p))
