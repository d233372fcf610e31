/**
 * The `Ripgrep` service on the `rg` binary.
 *
 * Resolution, first usable wins (each candidate must answer `--version`):
 * 1. the configured path (`options.path`, else the `AGENT_TOOLS_RG_PATH` config value);
 * 2. `rg` in a directory of `PATH` (read through Effect `Config`, looked up with `FileSystem`),
 *    skipping relative entries and directories inside `untrusted` (the workspace's
 *    `node_modules/.bin` under `npx`: a command could plant an `rg` there);
 * 3. a previously downloaded binary in the cache directory;
 * 4. a download into that cache — not available in this build (no network client in core), so the
 *    step reports why and resolution ends with `RipgrepNotFoundError`, which says how to install rg.
 *
 * Every candidate, and the chosen binary again before each run, must pass `TrustedProgram.check`
 * (a regular executable outside `untrusted`, owned by root or this user, not group/world-writable);
 * a binary that fails it later fails the search instead of running. So do the `stat` and `xargs`
 * the native mtimes run.
 *
 * `files({ stat: true })` in the shape glob asks for (hidden files, ignore files honoured, no `glob`,
 * depth or limit) goes through the session's mtime index when the layer has one (`RipgrepIndex`):
 * a walk stats only what the index does not know, and a listing that still holds is served without
 * running rg; a directory's first call is answered before the index is filled (in the background).
 * `mtimes` reads the mtimes the index knows.
 *
 * Every `rg` run passes `--no-config` (a user's `RIPGREP_CONFIG_PATH` cannot change the output
 * format), `--no-require-git` (ignore files count outside a git repository too) and
 * `--no-ignore-global` (the user's global git excludes file is not read), so both layers decide
 * the same way on the same tree. Output is streamed and parsed as it arrives; ending the stream early (limit,
 * `Stream.take`, interruption) kills the process group (SIGTERM, SIGKILL after 500 ms).
 */
import * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import type { PlatformError } from "effect/PlatformError"
import { cleanPath, countParser, parseJsonLine, parseStderrLine, patternError, records } from "./internal/ripgrep/output.ts"
import * as Ripgrep from "./Ripgrep.ts"
import { MtimeIndex, type Root } from "./RipgrepIndex.ts"
import { detectNativeStat, nativeTools, parseStatRecord } from "./RipgrepNativeStat.ts"
import * as TrustedProgram from "./TrustedProgram.ts"

export { type Binary, type Options, resolve } from "./RipgrepResolve.ts"
import { type Binary, KILL, type Options, resolve } from "./RipgrepResolve.ts"

/**
 * rg arguments that narrow the walk to what `filter` can select without changing what ignore
 * rules decide: rg file types match names only and are consulted after ignore files (unlike
 * `--glob`, which whitelists what it matches, ignored directories included). Each positive
 * filter's last segment becomes a type glob; none when one could match any name (`*`, `src/**`).
 * A type match also lets a hidden file through, which the exact filter then drops.
 */
export const filterArgs = (filter: ReadonlyArray<string>): Array<string> => {
  const names: Array<string> = []
  for (const glob of filter) {
    if (glob.startsWith("!")) continue
    const name = glob.slice(glob.lastIndexOf("/") + 1)
    const balanced = name.split("{").length === name.split("}").length
    if (name === "" || /^[*]+$/.test(name) || !balanced) return []
    names.push(name)
  }
  if (names.length === 0) return []
  return [...names.map((n) => `--type-add=agenttoolsfilter:${n}`), "--type=agenttoolsfilter"]
}

/** The exact `filter` (and hiddenness, which a type match bypasses) as a path predicate. */
const keepFilter = (options: Ripgrep.WalkOptions, explicit: ReadonlySet<string>) =>
  Effect.map(Ripgrep.fileFilter(options.filter ?? []), (matches) => {
    if (options.filter === undefined || options.filter.length === 0) return () => true
    return (path: string) =>
      explicit.has(path) ||
      (matches(path) && (options.hidden === true || !path.slice(path.lastIndexOf("/") + 1).startsWith(".")))
  })

interface RunSpec<A extends Ripgrep.FileEntry | Ripgrep.Match | Ripgrep.Count> {
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly separator: string
  readonly parse: (record: string) => A | undefined
  readonly tag: A["_tag"]
  readonly limit: number | undefined
  readonly pattern: string | undefined
}

const encoder = new TextEncoder()

/**
 * The walks the mtime index serves: glob's (hidden files listed, ignore files honoured, no depth
 * limit, no `glob`, every file); `filter` is applied to the index's listing.
 */
const indexable = (options: Ripgrep.FilesOptions): boolean =>
  options.stat === true && options.hidden === true && options.follow !== true && options.noIgnore !== true &&
  options.maxDepth === undefined && (options.glob === undefined || options.glob.length === 0) && options.limit === undefined

/**
 * Builds the service on a resolved binary. With `statBatch` and `watch`, and a `Scope` to close the
 * watches with, file mtimes are kept in an index across calls (`RipgrepIndex`).
 */
export const make = Effect.fnUntraced(function*(binary: Binary, statBatch?: Ripgrep.StatBatch, watch?: Ripgrep.DirectoryWatch) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const tools = statBatch === undefined ? yield* nativeTools(binary.untrusted ?? []) : undefined
  const nativeStat = tools !== undefined && (yield* detectNativeStat(spawner, tools))
  const scope = statBatch !== undefined && watch !== undefined ? yield* Effect.serviceOption(Scope.Scope) : Option.none()
  const index = Option.isSome(scope) ? new MtimeIndex(watch!) : undefined
  if (index !== undefined && Option.isSome(scope)) yield* Scope.addFinalizer(scope.value, Effect.sync(() => index.close()))

  const toError = (e: PlatformError) => new Ripgrep.RipgrepError({ message: `rg: ${e.message}` })
  // The binary was trusted when it was found; it must still be before each run.
  const verify = TrustedProgram.check(binary.path, binary.untrusted ?? []).pipe(
    Effect.mapError((e) => new Ripgrep.RipgrepError({ message: `rg: ${e.message}` })),
    Effect.provideService(FileSystem.FileSystem, fs),
    Effect.provideService(Path.Path, path)
  )

  const run = <A extends Ripgrep.FileEntry | Ripgrep.Match | Ripgrep.Count>(spec: RunSpec<A>): Stream.Stream<A | Ripgrep.Skipped, Ripgrep.Error> =>
    Ripgrep.takeResults(Stream.unwrap(Effect.gen(function*() {
      yield* Ripgrep.checkDirectory(fs, spec.cwd)
      yield* verify
      const handle = yield* spawner.spawn(ChildProcess.make(binary.path, spec.args, {
        cwd: spec.cwd,
        stdin: "ignore",
        ...KILL
      })).pipe(Effect.mapError(toError))
      let results = 0
      let skipped = 0
      const errors: Array<string> = []
      let errorChars = 0
      const stdout = handle.stdout.pipe(
        Stream.decodeText(),
        records(spec.separator, (r) => {
          const parsed = spec.parse(r)
          if (parsed !== undefined) results++
          return parsed
        })
      )
      const stderr = handle.stderr.pipe(
        Stream.decodeText(),
        records("\n", (line) => {
          const skip = parseStderrLine(line)
          if (skip !== undefined) {
            skipped++
            return skip
          }
          if (line.trim() !== "" && errorChars < 8192) {
            errors.push(line)
            errorChars += line.length
          }
          return undefined
        })
      )
      const checkExit = Effect.gen(function*() {
        const code = yield* Effect.mapError(handle.exitCode, toError)
        if (code === 0 || code === 1) return
        const text = errors.join("\n")
        const bad = patternError(text)
        if (bad !== undefined) {
          return yield* new Ripgrep.InvalidPatternError({
            kind: bad.kind,
            pattern: bad.kind === "regex" ? spec.pattern ?? "" : bad.glob,
            reason: bad.reason
          })
        }
        // Exit 2 after some results or skipped paths: partial results, already delivered.
        if (code === 2 && (results > 0 || skipped > 0)) return
        return yield* new Ripgrep.RipgrepError({ message: text === "" ? `rg exited with code ${code}` : text, exitCode: code })
      })
      return Stream.merge(stdout, stderr).pipe(
        Stream.mapError(toError),
        Stream.concat(Stream.fromEffectDrain(checkExit))
      )
    })), spec.tag, spec.limit)

  const common = (options: Ripgrep.WalkOptions): Array<string> => {
    const args = ["--no-config", "--no-require-git", "--no-ignore-global", "--color=never"]
    if (options.hidden) args.push("--hidden")
    if (options.follow) args.push("--follow")
    if (options.noIgnore) args.push("--no-ignore")
    if (options.maxDepth !== undefined) args.push(`--max-depth=${options.maxDepth}`)
    for (const glob of Ripgrep.effectiveGlobs(options)) args.push(`--glob=${glob}`)
    args.push(...filterArgs(options.filter ?? []))
    return args
  }

  /**
   * Native batch stat: paths go to `xargs -0 -n 4096 stat --printf '%.9Y\t%n\0'` (one process per
   * 4096 files instead of an Effect per file; not `-P`: parallel stats would interleave their
   * output). A failure of the input stream ends the input and is re-raised once the output is read.
   */
  const nativeMtimes = <E>(cwd: string, paths: Stream.Stream<string, E>): Stream.Stream<Ripgrep.Mtime, E | Ripgrep.RipgrepError> =>
    Stream.unwrap(Effect.gen(function*() {
      let failure: { readonly error: E } | undefined
      const input = Stream.ignore(paths.pipe(Stream.tapError((error) => Effect.sync(() => void (failure = { error }))))).pipe(
        Stream.mapArray((chunk) => [encoder.encode(chunk.map((p) => `./${p}\0`).join(""))] as const)
      )
      const handle = yield* spawner.spawn(ChildProcess.make(tools!.xargs, ["-0", "-n", "4096", tools!.stat, "--printf", "%.9Y\\t%n\\0", "--"], {
        cwd,
        stdin: input,
        stderr: "ignore",
        ...KILL
      })).pipe(Effect.mapError(toError))
      return handle.stdout.pipe(
        Stream.mapError(toError),
        Stream.decodeText(),
        records("\0", parseStatRecord),
        Stream.concat(Stream.suspend(() => (failure === undefined ? Stream.empty : Stream.fail(failure.error))))
      )
    }))
  const fallbackMtimes = Ripgrep.fileSystemMtimes(fs, path.join)
  /** `statBatch` for the paths the index does not know (or all, without an index for `cwd`). */
  const indexedStat = (stat: Ripgrep.StatBatch, cwd: string): Effect.Effect<Ripgrep.StatBatch> =>
    Effect.gen(function*() {
      if (index === undefined) return stat
      yield* watch!.settled
      const root = index.existing(cwd)
      if (root === undefined) return stat
      return (dir, paths) => {
        const known = paths.map((p) => (root.pending.has(p) ? undefined : root.mtimes.get(p)))
        const unknown = paths.filter((_, i) => known[i] === undefined)
        if (unknown.length === 0) return Effect.succeed(known)
        return Effect.map(stat(dir, unknown), (read) => {
          let j = 0
          return known.map((m) => m ?? read[j++])
        })
      }
    })
  const mtimes: Ripgrep.Service["mtimes"] = (cwd, paths) =>
    (statBatch !== undefined
      ? Stream.unwrap(Effect.map(indexedStat(statBatch, cwd), (stat) => Ripgrep.batchMtimes(stat)(cwd, paths)))
      : nativeStat
      ? nativeMtimes(cwd, paths)
      : fallbackMtimes(cwd, paths)).pipe(
      Stream.withSpan("Ripgrep.mtimes", { attributes: { cwd, native: nativeStat, backend: "rg" } })
    )

  /**
   * A listing with every mtime read now: rg's output in batches, several stat'ed at once (the Node
   * stat threads spread them over the CPUs) while rg still lists.
   */
  const statedListing = (
    options: Ripgrep.FilesOptions,
    keep: (path: string) => boolean,
    stat: Ripgrep.StatBatch
  ): Stream.Stream<Ripgrep.FilesEvent, Ripgrep.Error> =>
    listFiles(options, keep).pipe(
      Stream.bufferArray({ capacity: Ripgrep.READ_AHEAD }),
      Stream.rechunk(Ripgrep.STAT_BATCH),
      Stream.chunks,
      Stream.mapEffect((chunk) => {
        const out: Array<Ripgrep.FilesEvent> = []
        const paths: Array<string> = []
        for (const e of chunk) {
          if (e._tag === "Skipped") out.push(e)
          else paths.push(e.path)
        }
        if (paths.length === 0) return Effect.succeed(out)
        return Effect.map(stat(options.cwd, paths), (read) => {
          for (let i = 0; i < paths.length; i++) {
            const mtime = read[i]
            if (mtime !== undefined) out.push({ _tag: "File", path: paths[i]!, mtime })
          }
          return out
        })
      }, { concurrency: Ripgrep.STAT_CONCURRENCY, unordered: true }),
      Stream.filter((a): a is Arr.NonEmptyArray<Ripgrep.FilesEvent> => a.length > 0),
      Stream.flattenArray
    )

  /**
   * A walk through `root`: it stats only the files the index does not know (watching their
   * directories first) and keeps its listing for the next call; then the directories that hold no
   * listed file are watched in the background.
   */
  const rootWalk = (
    options: Ripgrep.FilesOptions,
    keep: (path: string) => boolean,
    stat: Ripgrep.StatBatch,
    root: Root,
    key: string,
    startedAt: number,
    scope: Scope.Scope
  ): Stream.Stream<Ripgrep.FilesEvent, Ripgrep.Error> => {
    const walk = root.walk(key, startedAt)
    return listFiles(options, () => true).pipe(
      Stream.bufferArray({ capacity: Ripgrep.READ_AHEAD }),
      Stream.rechunk(Ripgrep.STAT_BATCH),
      Stream.chunks,
      // Each batch's directories are watched before it is stat'ed and its stamp taken then, so
      // batches may be stat'ed at once.
      Stream.mapEffect((chunk) => {
        const out: Array<Ripgrep.FilesEvent> = []
        const unknown: Array<string> = []
        const recordable: Array<boolean> = []
        for (const e of chunk) {
          if (e._tag === "Skipped") {
            walk.incomplete()
            out.push(e)
            continue
          }
          const mtime = walk.known(e.path)
          if (mtime === undefined) {
            recordable.push(walk.prepare(e.path))
            unknown.push(e.path)
          } else if (keep(e.path)) out.push({ _tag: "File", path: e.path, mtime })
        }
        if (unknown.length === 0) return Effect.succeed(out)
        const stamp = walk.stamp()
        return Effect.map(stat(options.cwd, unknown), (read) => {
          for (let i = 0; i < unknown.length; i++) {
            const path = unknown[i]!
            const mtime = read[i]
            if (mtime === undefined) continue
            if (recordable[i]) walk.record(path, mtime, stamp)
            if (keep(path)) out.push({ _tag: "File", path, mtime })
          }
          return out
        })
      }, { concurrency: Ripgrep.STAT_CONCURRENCY, unordered: true }),
      // A chunk whose files were all known and filtered out, or had vanished, is left empty: dropped here.
      Stream.filter((a): a is Arr.NonEmptyArray<Ripgrep.FilesEvent> => a.length > 0),
      Stream.flattenArray,
      Stream.concat(Stream.fromEffectDrain(Effect.gen(function*() {
        walk.done()
        yield* Effect.forkIn(root.cover(), scope)
      })))
    )
  }

  /**
   * Fills a fresh root after its first call has answered: every directory under it is watched
   * first, then a walk stats every file. That walk begins after the watches, so a change the first
   * call's walk could not see is either seen by this walk or reported by a watch. When the watches
   * would exceed the budget nothing is filled: later calls walk and watch as they go.
   */
  const fill = (options: Ripgrep.FilesOptions, stat: Ripgrep.StatBatch, root: Root, key: string, scope: Scope.Scope) =>
    Effect.gen(function*() {
      // The call that started the fill returns its answer first.
      yield* Effect.yieldNow
      yield* root.cover()
      if (root.dropped || root.covered !== "yes") return
      const startedAt = yield* Clock.currentTimeMillis
      yield* Stream.runDrain(rootWalk(options, () => false, stat, root, key, startedAt, scope))
    }).pipe(Effect.ignore)

  /**
   * The root for `cwd` once the events queued so far are applied, after a fill of it under way (a
   * call that comes while the index fills waits for it rather than compete with it for the CPUs).
   */
  const settledRoot = (index: MtimeIndex, cwd: string) =>
    Effect.gen(function*() {
      for (;;) {
        yield* watch!.settled
        const root = index.root(cwd)
        if (root?.filling === undefined) return root
        yield* Deferred.await(root.filling)
      }
    })

  /**
   * `files({ stat: true })` through the index: the kept listing when it still holds, else a walk
   * through the root (`rootWalk`). A root that knows nothing yet answers its first call without
   * the index, every stat at once and no watch on the way (`statedListing`), and is then filled in
   * the background (`fill`); calls that come meanwhile wait for the fill.
   */
  const indexedFiles = (options: Ripgrep.FilesOptions, stat: Ripgrep.StatBatch, index: MtimeIndex, scope: Scope.Scope) =>
    Stream.unwrap(Effect.gen(function*() {
      const keep = yield* keepFilter(options, new Set())
      yield* Ripgrep.checkDirectory(fs, options.cwd)
      const root = yield* settledRoot(index, options.cwd)
      if (root === undefined) return statedListing(options, keep, stat)
      // The narrowing rg applies decides what a walk lists; `filter` is applied to the listing.
      const key = filterArgs(options.filter ?? []).join("\n")
      const filter = JSON.stringify([options.filter ?? [], options.hidden === true])
      const served = root.serve(key, filter, keep, (path, mtime): Ripgrep.FilesEvent => ({ _tag: "File", path, mtime }))
      if (served !== undefined) return Stream.fromArray(served)
      if (root.fresh) {
        return statedListing(options, keep, stat).pipe(
          Stream.concat(Stream.fromEffectDrain(Effect.suspend(() => {
            const end = root.beginFill()
            return end === undefined
              ? Effect.void
              : Effect.asVoid(Effect.forkIn(Effect.ensuring(fill(options, stat, root, key, scope), end), scope))
          })))
        )
      }
      return rootWalk(options, keep, stat, root, key, yield* Clock.currentTimeMillis, scope)
    }))

  const listFiles = (options: Ripgrep.FilesOptions, keep: (path: string) => boolean) =>
    run<Ripgrep.FileEntry>({
      args: ["--files", "--null", ...common(options), "."],
      cwd: options.cwd,
      separator: "\0",
      parse: (r) => {
        const path = cleanPath(r)
        return r === "" || !keep(path) ? undefined : { _tag: "File", path }
      },
      tag: "File",
      limit: options.limit,
      pattern: undefined
    })

  const files = (options: Ripgrep.FilesOptions): Stream.Stream<Ripgrep.FilesEvent, Ripgrep.Error> => {
    const stated = index !== undefined && Option.isSome(scope) && indexable(options)
      ? indexedFiles(options, statBatch!, index, scope.value)
      : Stream.unwrap(Effect.map(keepFilter(options, new Set()), (keep) => {
        const listed = listFiles(options, keep)
        return options.stat ? Ripgrep.withMtimes(listed, options.cwd, mtimes) : listed
      }))
    return stated.pipe(Stream.withSpan("Ripgrep.files", { attributes: { cwd: options.cwd, backend: "rg" } }))
  }

  /** `search` and `count`: the same arguments around a different output mode. */
  const matching = <A extends Ripgrep.Match | Ripgrep.Count>(
    options: Ripgrep.SearchOptions,
    mode: ReadonlyArray<string>,
    tag: A["_tag"],
    parser: () => (line: string) => A | undefined
  ): Stream.Stream<A | Ripgrep.Skipped, Ripgrep.Error> => {
    const args = [...mode, ...common(options)]
    if (options.literal) args.push("--fixed-strings")
    if (options.caseInsensitive) args.push("--ignore-case")
    if (options.maxCount !== undefined) args.push(`--max-count=${options.maxCount}`)
    const explicit = options.paths === undefined || options.paths.length === 0 ? undefined : options.paths
    args.push("--", options.pattern, ...(explicit ?? ["."]))
    const named = new Set((explicit ?? []).map(cleanPath))
    return Stream.unwrap(Effect.map(keepFilter(options, named), (keep) => {
      const parse = parser()
      return run<A>({
        args,
        cwd: options.cwd,
        separator: "\n",
        parse: (line) => {
          const event = parse(line)
          return event === undefined || !keep(event.path) ? undefined : event
        },
        tag,
        limit: options.limit,
        pattern: options.pattern
      })
    }))
  }

  const search = (options: Ripgrep.SearchOptions): Stream.Stream<Ripgrep.SearchEvent, Ripgrep.Error> =>
    matching<Ripgrep.Match>(options, ["--json"], "Match", () => parseJsonLine).pipe(
      Stream.withSpan("Ripgrep.search", { attributes: { cwd: options.cwd, pattern: options.pattern, backend: "rg" } })
    )

  const count = (options: Ripgrep.SearchOptions): Stream.Stream<Ripgrep.CountEvent, Ripgrep.Error> =>
    matching<Ripgrep.Count>(options, ["--count", "--null", "--with-filename"], "Count", countParser).pipe(
      Stream.withSpan("Ripgrep.count", { attributes: { cwd: options.cwd, pattern: options.pattern, backend: "rg" } })
    )

  return Ripgrep.Ripgrep.of({
    info: Effect.succeed({
      backend: "rg",
      description: `rg ${binary.version} (${binary.path})${statBatch !== undefined ? " with in-process stat" : nativeStat ? " with native stat" : ""}`
    }),
    files,
    search,
    count,
    mtimes
  })
})

/** The rg-binary layer; fails with `RipgrepNotFoundError` when no rg can be resolved. */
export const layer = (
  options: Options = {}
): Layer.Layer<
  Ripgrep.Ripgrep,
  Ripgrep.RipgrepNotFoundError,
  FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> => Layer.effect(Ripgrep.Ripgrep, Effect.flatMap(resolve(options), make))
