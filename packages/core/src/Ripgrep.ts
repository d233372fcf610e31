/**
 * File listing and content search, the way ripgrep does it: `.gitignore` / `.ignore` / `.rgignore`
 * honoured (nested files and `!` negation included, even outside a git repository), hidden entries
 * skipped unless asked, `.git` never entered, symbolic links not followed unless asked.
 *
 * Two layers implement the same interface:
 * - `RipgrepBinary` runs the `rg` binary (configured path → `rg` on PATH → cached download) and
 *   parses its `--json` output; the process is killed as soon as the stream is interrupted or its
 *   `limit` is reached.
 * - `RipgrepPortable` walks the Effect `FileSystem` in TypeScript (JavaScript regular expressions),
 *   so everything runs where no `rg` exists, and in tests over an in-memory file system.
 *
 * `layer()` picks `rg` when it can be found and the portable layer otherwise, logs which (debug), and
 * reports it as `backend`. Given `statBatch` and `watch` (the Node runtime gives both), the rg layer
 * keeps file mtimes for its lifetime in an index its directory watches keep true (`RipgrepIndex`).
 *
 * Results are streams of tagged events: `File` / `Match` are results, `Skipped` reports a path
 * that could not be read (permission denied, a broken symbolic link or a loop when following
 * links). `Skipped` events never count against `limit`. Paths are relative to `cwd`,
 * `/`-separated, without a leading `./`.
 */
import * as Arr from "effect/Array"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as Scope from "effect/Scope"
import type { ChildProcessSpawner } from "effect/process"
import { GlobSyntaxError, matchRules, parseLine } from "./internal/ripgrep/glob.ts"
import * as RipgrepBinary from "./RipgrepBinary.ts"
import * as RipgrepPortable from "./RipgrepPortable.ts"

export type Backend = "rg" | "portable"

/** What both `files` and `search` walk. */
export interface WalkOptions {
  /** The directory to walk (absolute). Must exist. */
  readonly cwd: string
  /**
   * rg `--glob` globs, gitignore syntax: `*.ts` matches at any depth, a glob with a `/` is
   * anchored at `cwd`, `!` excludes. When any positive glob is given, files matching none are
   * left out. Later globs win. A glob overrides ignore files and hiddenness for what it matches.
   */
  readonly glob?: ReadonlyArray<string> | undefined
  /**
   * Globs that only select files (same syntax and precedence as `glob`), applied to the paths the
   * walk lists: unlike `glob` they never re-include ignored or hidden files nor enter ignored
   * directories. Use these for user patterns. Not applied to explicit `paths`.
   */
  readonly filter?: ReadonlyArray<string> | undefined
  /** Include entries whose name starts with `.` (default false). `.git` is never entered. */
  readonly hidden?: boolean | undefined
  /** Follow symbolic links (default false: links are neither listed nor entered). */
  readonly follow?: boolean | undefined
  /** 1 lists only `cwd`'s own entries. */
  readonly maxDepth?: number | undefined
  /** Do not honour `.gitignore` / `.ignore` / `.rgignore` (default false). */
  readonly noIgnore?: boolean | undefined
  /** Stop after this many results (`File` / `Match` events); the walk (or `rg`) stops at once. */
  readonly limit?: number | undefined
}

export interface FilesOptions extends WalkOptions {
  /**
   * Also report each file's modification time in `mtime` (ms since the epoch), read with
   * `mtimes` (files that cannot be stat'ed are left out). Events then arrive in stat order.
   */
  readonly stat?: boolean | undefined
}

export interface SearchOptions extends WalkOptions {
  /** A regular expression (rg: Rust syntax; portable: JavaScript syntax), matched per line. */
  readonly pattern: string
  /** Match `pattern` as a literal string (rg `--fixed-strings`). */
  readonly literal?: boolean | undefined
  readonly caseInsensitive?: boolean | undefined
  /** At most this many matching lines per file (rg `--max-count`). */
  readonly maxCount?: number | undefined
  /**
   * Search these paths (relative to `cwd`) instead of walking `cwd`. As with rg, ignore rules,
   * globs and hiddenness do not apply to a file named here.
   */
  readonly paths?: ReadonlyArray<string> | undefined
}

export interface FileEntry {
  readonly _tag: "File"
  readonly path: string
  /** With `stat: true`: modification time in ms. */
  readonly mtime?: number | undefined
}

/** A file's modification time, from `mtimes`. */
export interface Mtime {
  readonly path: string
  /** ms since the epoch. */
  readonly mtime: number
}

/** One match: `start`/`end` are UTF-16 indices into `text` (the line without its terminator). */
export interface Submatch {
  readonly start: number
  readonly end: number
}

export interface Match {
  readonly _tag: "Match"
  readonly path: string
  /** 1-based. */
  readonly line: number
  readonly text: string
  readonly submatches: ReadonlyArray<Submatch>
}

/** How many lines of a file match (files without a match are not reported). */
export interface Count {
  readonly _tag: "Count"
  readonly path: string
  readonly count: number
}

/** A path the walk could not read; the rest of the results are still delivered. */
export interface Skipped {
  readonly _tag: "Skipped"
  readonly path: string
  readonly reason: string
}

export type FilesEvent = FileEntry | Skipped
export type SearchEvent = Match | Skipped
export type CountEvent = Count | Skipped

export class RipgrepError extends Schema.TaggedError<RipgrepError>()("RipgrepError", {
  message: Schema.String,
  exitCode: Schema.optional(Schema.Number)
}) {}

/** The search pattern or a glob is invalid; `reason` quotes rg's (or the JS engine's) explanation. */
export class InvalidPatternError extends Schema.TaggedError<InvalidPatternError>()("InvalidPatternError", {
  kind: Schema.Literals(["regex", "glob"]),
  pattern: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid ${this.kind === "regex" ? "regular expression" : "glob"} ${JSON.stringify(this.pattern)}: ${this.reason}`
  }
}

export const INSTALL_HINT = "Install ripgrep (https://github.com/BurntSushi/ripgrep#installation): " +
  "`apt install ripgrep`, `dnf install ripgrep`, `brew install ripgrep`, `choco install ripgrep` or " +
  "`cargo install ripgrep`; or configure the path of an rg binary."

/** No usable `rg` binary: `tried` says what each resolution step found. */
export class RipgrepNotFoundError extends Schema.TaggedError<RipgrepNotFoundError>()("RipgrepNotFoundError", {
  tried: Schema.Array(Schema.String)
}) {
  override get message() {
    return `ripgrep (rg) was not found. Tried:\n${this.tried.map((t) => `  - ${t}`).join("\n")}\n${INSTALL_HINT}`
  }
}

export type Error = RipgrepError | InvalidPatternError

export interface Info {
  readonly backend: Backend
  /** `rg 13.0.0 (/usr/bin/rg)` or `portable (TypeScript, JavaScript regular expressions)`. */
  readonly description: string
}

export interface Service {
  /** Which backend searches. The default layer finds rg on first use, so this may resolve it. */
  readonly info: Effect.Effect<Info>
  readonly files: (options: FilesOptions) => Stream.Stream<FilesEvent, Error>
  readonly search: (options: SearchOptions) => Stream.Stream<SearchEvent, Error>
  /**
   * The number of matching lines per file, for the same options as `search` (`limit` counts
   * files); much cheaper than `search` when only the counts are needed (rg `--count`).
   */
  readonly count: (options: SearchOptions) => Stream.Stream<CountEvent, Error>
  /**
   * The modification times of `paths` (relative to `cwd`), streamed as they are read, in any
   * order; a path that cannot be stat'ed (vanished, unreadable) is left out. Holds at most a
   * batch of paths at a time. The rg layer runs a native batch `stat` (GNU coreutils) when there
   * is one, many times faster than a `FileSystem.stat` per file; otherwise, and in the portable
   * layer, it uses `FileSystem.stat`.
   */
  readonly mtimes: <E>(cwd: string, paths: Stream.Stream<string, E>) => Stream.Stream<Mtime, E | RipgrepError>
}

export class Ripgrep extends Context.Service<Ripgrep, Service>()("@agent-tools/core/Ripgrep") {}

/** Fails like rg when `cwd` is missing or not a directory. */
export const checkDirectory = (fs: FileSystem.FileSystem, cwd: string): Effect.Effect<void, RipgrepError> =>
  fs.stat(cwd).pipe(
    Effect.mapError((e) =>
      new RipgrepError({
        message: e.reason._tag === "NotFound" ? `No such file or directory: '${cwd}'` : `Cannot read '${cwd}': ${e.message}`
      })
    ),
    Effect.flatMap((info) =>
      info.type === "Directory" ? Effect.void : Effect.fail(new RipgrepError({ message: `Not a directory: '${cwd}'` }))
    )
  )

/**
 * A file-path predicate with `--glob` matching (gitignore syntax, `!` excludes, the last matching
 * glob wins, and with any positive glob a path matching none is rejected). Unlike the `glob`
 * option it is only a filter: it cannot re-include ignored or hidden files, nor make the walk
 * enter an ignored directory (a positive `glob` such as `**\/*` or `src/**` whitelists the
 * directories it matches, `node_modules/` included — rg's semantics). `path` is relative to `cwd`.
 */
export const fileFilter = (globs: ReadonlyArray<string>): Effect.Effect<(path: string) => boolean, InvalidPatternError> =>
  Effect.try({
    try: () => {
      const rules = globs.flatMap((g) => parseLine(g) ?? [])
      const whitelists = rules.some((r) => !r.negated)
      return (path: string) => {
        const m = matchRules(rules, path, false)
        return m === undefined ? !whitelists : m === "ignore" // a plain glob is a whitelist
      }
    },
    catch: (e) =>
      e instanceof GlobSyntaxError
        ? new InvalidPatternError({ kind: "glob", pattern: e.glob, reason: e.reason })
        : new InvalidPatternError({ kind: "glob", pattern: globs.join(" "), reason: String(e) })
  })

/** `mtimes` with one `FileSystem.stat` per file, 64 at a time. */
export const fileSystemMtimes = (fs: FileSystem.FileSystem, join: (dir: string, path: string) => string) =>
<E>(cwd: string, paths: Stream.Stream<string, E>): Stream.Stream<Mtime, E | RipgrepError> =>
  paths.pipe(
    Stream.mapArrayEffect((chunk) =>
      Effect.forEach(chunk, (path) =>
        fs.stat(join(cwd, path)).pipe(
          Effect.map((info): Mtime | undefined =>
            info.type === "File" ? { path, mtime: info.mtime._tag === "Some" ? info.mtime.value.getTime() : 0 } : undefined
          ),
          Effect.orElseSucceed(() => undefined)
        ), { concurrency: 64 }) as Effect.Effect<readonly [Mtime | undefined, ...Array<Mtime | undefined>]>
    ),
    Stream.filter((m): m is Mtime => m !== undefined)
  )

/**
 * Stats a batch of paths (relative to `cwd`) in this process: the mtime in ms of each path that is
 * a regular file, undefined for anything else or what cannot be stat'ed. The Node layer's runs on
 * stat threads of its own (one per CPU), without an Effect per file; several batches may be in
 * flight at once (`STAT_CONCURRENCY`).
 */
export type StatBatch = (cwd: string, paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<number | undefined>>

/**
 * Chunks of a listing read ahead while the previous chunk's mtimes are read, so the walk (rg) does
 * not wait for the stats.
 */
export const READ_AHEAD = 16

/**
 * Paths stat'ed per batch: a batch has a fixed cost (a message to the stat thread), and rg's output
 * (grep's counts above all) arrives in chunks of a few paths.
 */
export const STAT_BATCH = 1024

/**
 * Batches stat'ed at once: a `StatBatch` may spread them over several threads (the Node one does,
 * one per CPU), so the stats keep pace with rg's listing. Few enough that an interrupted listing
 * leaves little work behind.
 */
export const STAT_CONCURRENCY = 4

/** `mtimes` over a `StatBatch`, one batch per chunk of the listing, several batches at once. */
export const batchMtimes = (stat: StatBatch) =>
<E>(cwd: string, paths: Stream.Stream<string, E>): Stream.Stream<Mtime, E | RipgrepError> =>
  paths.pipe(
    Stream.bufferArray({ capacity: READ_AHEAD }),
    Stream.rechunk(STAT_BATCH),
    Stream.chunks,
    Stream.mapEffect((chunk) =>
      Effect.map(stat(cwd, chunk), (mtimes) => {
        const out: Array<Mtime> = []
        for (let i = 0; i < chunk.length; i++) {
          const mtime = mtimes[i]
          if (mtime !== undefined) out.push({ path: chunk[i]!, mtime })
        }
        return out
      }), { concurrency: STAT_CONCURRENCY, unordered: true }),
    Stream.filter((a): a is Arr.NonEmptyArray<Mtime> => a.length > 0),
    Stream.flattenArray
  )

/** `files({ stat: true })` from a listing and `mtimes`: skipped paths are passed on at the end. */
export const withMtimes = <E>(
  listed: Stream.Stream<FilesEvent, E>,
  cwd: string,
  mtimes: Service["mtimes"]
): Stream.Stream<FilesEvent, E | RipgrepError> =>
  Stream.suspend(() => {
    const skipped: Array<Skipped> = []
    const paths = listed.pipe(
      Stream.filter((e): e is FileEntry => e._tag === "File" || (skipped.push(e), false)),
      Stream.map((e) => e.path)
    )
    return mtimes(cwd, paths).pipe(
      Stream.map((m): FilesEvent => ({ _tag: "File", path: m.path, mtime: m.mtime })),
      Stream.concat(Stream.suspend(() => Stream.fromIterable(skipped)))
    )
  })

/** The globs both layers apply: the caller's, then `!.git` last so it always wins. */
export const effectiveGlobs = (options: WalkOptions): ReadonlyArray<string> => [...(options.glob ?? []), "!.git"]

/**
 * Ends `self` after `limit` events tagged `tag` (other events pass through). Ending the stream
 * closes its scope, which stops the walk or kills `rg`.
 */
export const takeResults = <A extends { readonly _tag: string }, E, R>(
  self: Stream.Stream<A, E, R>,
  tag: string,
  limit: number | undefined
): Stream.Stream<A, E, R> => {
  if (limit === undefined) return self
  if (limit <= 0) return Stream.empty
  return Stream.suspend(() => {
    let seen = 0
    return Stream.takeUntil(self, (a) => a._tag === tag && ++seen >= limit)
  })
}

/** One entry's kind, modification time (ms) and inode number, read without following a symbolic link. */
export interface EntryInfo {
  readonly kind: "file" | "directory" | "other"
  readonly mtime: number
  readonly ino: number
}

/**
 * What the mtime index needs from the platform to stay true between calls: a watch on one
 * directory's entries (not its subdirectories), a directory's subdirectories, a synchronous lstat,
 * and a wait until the watches' events queued so far have been delivered.
 */
export interface DirectoryWatch {
  /**
   * Watches `dir` (absolute). `onEvent` gets `"change"` (an entry's content or attributes) or
   * `"rename"` (an entry created, removed or renamed) with the entry's name, undefined when the
   * platform does not say; `onError` when the watch stops working. Returns the function that closes
   * the watch, or undefined when `dir` cannot be watched.
   */
  readonly watch: (
    dir: string,
    onEvent: (kind: "change" | "rename", name: string | undefined) => void,
    onError: () => void
  ) => (() => void) | undefined
  /** The names of `dir`'s subdirectories (symbolic links excluded), undefined when it cannot be read. */
  readonly subdirectories: (dir: string) => ReadonlyArray<string> | undefined
  readonly lstat: (path: string) => EntryInfo | undefined
  /** Completes once every event queued before it started has reached `onEvent`. */
  readonly settled: Effect.Effect<void>
}

export interface LayerOptions extends RipgrepBinary.Options {
  /** In-process batch stats for the mtimes (glob's newest first), instead of spawned `stat` processes. */
  readonly statBatch?: StatBatch | undefined
  /**
   * Directory watches for an mtime index kept across calls (with `statBatch`): later glob calls
   * then list from the index instead of walking and stat-ing, and grep reads known mtimes from it.
   */
  readonly watch?: DirectoryWatch | undefined
  /** `"rg"` or `"portable"` forces a backend; default: rg when found, else portable. */
  readonly backend?: Backend | undefined
}

/**
 * A service whose backend is chosen by `choose` when its first walk or search starts (or `info`
 * is asked), once: a process that never searches spawns no `rg --version`, and is not warned.
 */
const onFirstUse = (choose: Effect.Effect<Service>): Effect.Effect<Service> =>
  Effect.map(Effect.cached(choose), (chosen): Service => ({
    info: Effect.flatMap(chosen, (s) => s.info),
    files: (options) => Stream.unwrap(Effect.map(chosen, (s) => s.files(options))),
    search: (options) => Stream.unwrap(Effect.map(chosen, (s) => s.search(options))),
    count: (options) => Stream.unwrap(Effect.map(chosen, (s) => s.count(options))),
    mtimes: (cwd, paths) => Stream.unwrap(Effect.map(chosen, (s) => s.mtimes(cwd, paths)))
  }))

/**
 * The default: the rg binary when it can be resolved, otherwise the portable layer, chosen when
 * the first search runs. Logs the choice at debug level; on fallback, warns once why rg was not
 * used. `backend: "rg"` resolves rg when the layer is built and fails with `RipgrepNotFoundError`
 * instead of falling back; `backend: "portable"` never looks for rg.
 */
export const layer = (
  options: LayerOptions = {}
): Layer.Layer<Ripgrep, RipgrepNotFoundError, FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(
    Ripgrep,
    Effect.gen(function*() {
      if (options.backend === "portable") {
        const service = yield* RipgrepPortable.make
        yield* Effect.logDebug("Ripgrep: using the portable search (as configured)")
        return service
      }
      if (options.backend === "rg") {
        const service = yield* Effect.flatMap(RipgrepBinary.resolve(options), (binary) => RipgrepBinary.make(binary, options.statBatch, options.watch))
        yield* Effect.logDebug(`Ripgrep: using ${(yield* service.info).description}`)
        return service
      }
      // The layer's scope too: the mtime index's watches close with it.
      const services = yield* Effect.context<FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner | Scope.Scope>()
      const choose = Effect.gen(function*() {
        const resolved = yield* Effect.result(RipgrepBinary.resolve(options))
        if (resolved._tag === "Success") {
          const service = yield* RipgrepBinary.make(resolved.success, options.statBatch, options.watch)
          yield* Effect.logDebug(`Ripgrep: using ${(yield* service.info).description}`)
          return service
        }
        const service = yield* RipgrepPortable.make
        const { description } = yield* service.info
        yield* Effect.logDebug(`Ripgrep: rg not found, using the ${description}`)
        yield* Effect.logWarning(`Ripgrep: rg not found, using the ${description}, which is slower. ${resolved.failure.message}`)
        return service
      }).pipe(Effect.withSpan("Ripgrep.choose"), Effect.provideContext(services))
      return yield* onFirstUse(choose)
    }).pipe(Effect.withSpan("Ripgrep.layer"))
  )
