/**
 * The `Ripgrep` service in TypeScript over the Effect `FileSystem`: the same options, events and
 * ignore semantics as the rg layer (see `internal/ripgrep/walk.ts`), with JavaScript regular
 * expressions matched line by line.
 *
 * Differences from rg, by design: the regex dialect is JavaScript's (a leading `(?i)` / `(?s)` is
 * accepted; Rust-only syntax such as `[[:alpha:]]` is not); files containing a NUL byte are
 * skipped as binary (rg may report matches that precede the first NUL). Neither layer reads the
 * global git excludes file (the rg layer passes `--no-ignore-global`).
 *
 * Files are read whole, 16 at a time, so memory is bounded by the 16 largest files being searched,
 * not by the tree (rg streams every file). A stat before each read, to stream very large files
 * instead, cost +50% time on a 100k-file tree, so it is not done.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Stream from "effect/Stream"
import { GlobSyntaxError, parseLine, type Rule } from "./internal/ripgrep/glob.ts"
import { makeWalker, reasonOf, type WalkConfig, type WalkEvent } from "./internal/ripgrep/walk.ts"
import * as Ripgrep from "./Ripgrep.ts"

const SEARCH_CONCURRENCY = 16

const compileGlobs = (options: Ripgrep.WalkOptions): Effect.Effect<ReadonlyArray<Rule>, Ripgrep.InvalidPatternError> =>
  Effect.try({
    try: () => Ripgrep.effectiveGlobs(options).flatMap((g) => parseLine(g) ?? []),
    catch: (e) =>
      e instanceof GlobSyntaxError
        ? new Ripgrep.InvalidPatternError({ kind: "glob", pattern: e.glob, reason: e.reason })
        : new Ripgrep.InvalidPatternError({ kind: "glob", pattern: String(options.glob), reason: String(e) })
  })

const walkConfig = (options: Ripgrep.WalkOptions, overrides: ReadonlyArray<Rule>): WalkConfig => ({
  hidden: options.hidden ?? false,
  follow: options.follow ?? false,
  maxDepth: options.maxDepth,
  noIgnore: options.noIgnore ?? false,
  overrides
})

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")

/** The line regex (flags `g`) and the whole-text prefilter (flags `gm`), or the engine's complaint. */
export const compilePattern = (
  options: Pick<Ripgrep.SearchOptions, "pattern" | "literal" | "caseInsensitive">
): Effect.Effect<{ readonly line: RegExp; readonly text: RegExp }, Ripgrep.InvalidPatternError> =>
  Effect.suspend(() => {
    let source = options.literal ? escapeRegExp(options.pattern) : options.pattern
    let flags = options.caseInsensitive ? "i" : ""
    const inline = options.literal ? null : /^\(\?([imsUx]+)\)/.exec(source)
    if (inline !== null) {
      if (inline[1]!.includes("i") && !flags.includes("i")) flags += "i"
      if (inline[1]!.includes("s")) flags += "s"
      source = source.slice(inline[0].length)
    }
    const attempt = (extra: string) => {
      const line = new RegExp(source, `${flags}g${extra}`)
      return { line, text: new RegExp(source, `${flags}gm${extra}`) }
    }
    try {
      return Effect.succeed(attempt("u"))
    } catch {
      try {
        return Effect.succeed(attempt(""))
      } catch (e) {
        const reason = e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "") : String(e)
        return Effect.fail(new Ripgrep.InvalidPatternError({ kind: "regex", pattern: options.pattern, reason }))
      }
    }
  })

/** The submatches of `regex` (flag `g`) in one line; zero-length matches are kept once. */
const lineSubmatches = (regex: RegExp, line: string): Array<Ripgrep.Submatch> => {
  const subs: Array<Ripgrep.Submatch> = []
  regex.lastIndex = 0
  for (let m = regex.exec(line); m !== null; m = regex.exec(line)) {
    subs.push({ start: m.index, end: m.index + m[0].length })
    if (m[0].length === 0) {
      if (regex.lastIndex >= line.length) break
      regex.lastIndex++
    }
  }
  return subs
}

/**
 * The matching lines of `text`: the `gm` regex finds candidate positions in the whole text, and
 * each candidate's line is confirmed with the line regex (a match never spans lines).
 */
export const searchText = (
  text: string,
  regex: { readonly line: RegExp; readonly text: RegExp },
  path: string,
  maxCount = Number.POSITIVE_INFINITY
): Array<Ripgrep.Match> => {
  const matches: Array<Ripgrep.Match> = []
  const whole = regex.text
  whole.lastIndex = 0
  let lineNo = 1
  let counted = 0
  while (whole.lastIndex <= text.length && matches.length < maxCount) {
    const m = whole.exec(text)
    if (m === null) break
    const start = m.index === 0 ? 0 : text.lastIndexOf("\n", m.index - 1) + 1
    if (start === text.length && text.endsWith("\n")) break // no line after the final newline
    let end = text.indexOf("\n", m.index)
    if (end === -1) end = text.length
    for (let i = text.indexOf("\n", counted); i !== -1 && i < start; i = text.indexOf("\n", i + 1)) lineNo++
    counted = start
    const raw = text.slice(start, end)
    const subs = lineSubmatches(regex.line, raw)
    if (subs.length > 0) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
      const clamp = (n: number) => Math.min(n, line.length)
      matches.push({
        _tag: "Match",
        path,
        line: lineNo,
        text: line,
        submatches: subs.map((s) => ({ start: clamp(s.start), end: clamp(s.end) }))
      })
    }
    whole.lastIndex = end + 1
  }
  return matches
}

const decodeBytes = (bytes: Uint8Array): string | undefined => {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes)
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes)
  if (bytes.indexOf(0) !== -1) return undefined // binary
  return new TextDecoder("utf-8").decode(bytes) // strips a UTF-8 BOM
}

export const make = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path

  const statMtimes = Ripgrep.fileSystemMtimes(fs, path.join)
  const mtimes: Ripgrep.Service["mtimes"] = (cwd, paths) =>
    statMtimes(cwd, paths).pipe(Stream.withSpan("Ripgrep.mtimes", { attributes: { cwd, backend: "portable" } }))

  const files = (options: Ripgrep.FilesOptions): Stream.Stream<Ripgrep.FilesEvent, Ripgrep.Error> =>
    Stream.unwrap(Effect.gen(function*() {
      yield* Ripgrep.checkDirectory(fs, options.cwd)
      const overrides = yield* compileGlobs(options)
      const walker = makeWalker(fs, walkConfig(options, overrides))
      const keep = yield* Ripgrep.fileFilter(options.filter ?? [])
      const walked = walker.walk(options.cwd, "").pipe(Stream.filter((e) => e._tag !== "File" || keep(e.path)))
      const listed = Ripgrep.takeResults<WalkEvent, never, never>(walked, "File", options.limit)
      const entries = Stream.map(listed, (e): Ripgrep.FilesEvent => (e._tag === "File" ? { _tag: "File", path: e.path } : e))
      return options.stat ? Ripgrep.withMtimes(entries, options.cwd, mtimes) : entries
    })).pipe(Stream.withSpan("Ripgrep.files", { attributes: { cwd: options.cwd, backend: "portable" } }))

  /** A file's matches, or the `Skipped` event when it cannot be read. */
  const searchFile = (regex: { readonly line: RegExp; readonly text: RegExp }, maxCount: number | undefined) =>
  (file: { readonly path: string; readonly abs: string }): Effect.Effect<Array<Ripgrep.Match> | Ripgrep.Skipped> =>
    fs.readFile(file.abs).pipe(
      Effect.map((bytes) => {
        const text = decodeBytes(bytes)
        // Each worker needs its own RegExp state (lastIndex).
        const own = { line: new RegExp(regex.line), text: new RegExp(regex.text) }
        return text === undefined ? [] : searchText(text, own, file.path, maxCount)
      }),
      Effect.catch((e) => Effect.succeed<Ripgrep.Skipped>({ _tag: "Skipped", path: file.path, reason: reasonOf(e) }))
    )

  /** Explicit targets: files are searched as given, directories walked, the missing skipped. */
  const targets = (
    cwd: string,
    paths: ReadonlyArray<string>,
    walker: ReturnType<typeof makeWalker>,
    keep: (path: string) => boolean
  ): Stream.Stream<WalkEvent> =>
    Stream.fromIterable(paths).pipe(
      Stream.flatMap((p) => {
        const abs = path.resolve(cwd, p)
        const rel = p.replace(/^\.\//, "").replace(/\/+$/, "")
        return Stream.unwrap(Effect.map(Effect.result(fs.stat(abs)), (info): Stream.Stream<WalkEvent> => {
          if (info._tag === "Failure") return Stream.make({ _tag: "Skipped", path: rel, reason: reasonOf(info.failure) })
          if (info.success.type === "Directory") {
            return walker.walk(abs, rel === "." ? "" : rel).pipe(Stream.filter((e) => e._tag !== "File" || keep(e.path)))
          }
          return Stream.make({ _tag: "File", path: rel, abs })
        }))
      })
    )

  /** Walks (or takes the explicit targets), searches each file, and shapes its matches with `shape`. */
  const matching = <A extends { readonly _tag: string }>(
    options: Ripgrep.SearchOptions,
    tag: A["_tag"],
    shape: (matches: Array<Ripgrep.Match>, path: string) => ReadonlyArray<A>
  ): Stream.Stream<A | Ripgrep.Skipped, Ripgrep.Error> =>
    Stream.unwrap(Effect.gen(function*() {
      yield* Ripgrep.checkDirectory(fs, options.cwd)
      const regex = yield* compilePattern(options)
      const overrides = yield* compileGlobs(options)
      const walker = makeWalker(fs, walkConfig(options, overrides))
      const keep = yield* Ripgrep.fileFilter(options.filter ?? [])
      const candidates = options.paths === undefined || options.paths.length === 0
        ? walker.walk(options.cwd, "").pipe(Stream.filter((e) => e._tag !== "File" || keep(e.path)))
        : targets(options.cwd, options.paths, walker, keep)
      const found = candidates.pipe(
        Stream.mapEffect(
          (e): Effect.Effect<ReadonlyArray<A | Ripgrep.Skipped>> =>
            e._tag === "File"
              ? Effect.map(searchFile(regex, options.maxCount)(e), (r) => (Array.isArray(r) ? shape(r, e.path) : [r as Ripgrep.Skipped]))
              : Effect.succeed([e]),
          { concurrency: SEARCH_CONCURRENCY }
        ),
        Stream.flattenIterable
      )
      return Ripgrep.takeResults<A | Ripgrep.Skipped, never, never>(found, tag, options.limit)
    }))

  const search = (options: Ripgrep.SearchOptions): Stream.Stream<Ripgrep.SearchEvent, Ripgrep.Error> =>
    matching<Ripgrep.Match>(options, "Match", (matches) => matches).pipe(
      Stream.withSpan("Ripgrep.search", { attributes: { cwd: options.cwd, pattern: options.pattern, backend: "portable" } })
    )

  const count = (options: Ripgrep.SearchOptions): Stream.Stream<Ripgrep.CountEvent, Ripgrep.Error> =>
    matching<Ripgrep.Count>(options, "Count", (matches, path) => (matches.length === 0 ? [] : [{ _tag: "Count", path, count: matches.length }]))
      .pipe(Stream.withSpan("Ripgrep.count", { attributes: { cwd: options.cwd, pattern: options.pattern, backend: "portable" } }))

  return Ripgrep.Ripgrep.of({
    info: Effect.succeed({ backend: "portable", description: "portable search (TypeScript, JavaScript regular expressions)" }),
    files,
    search,
    count,
    mtimes
  })
})

/**
 * The portable layer: needs only `FileSystem` and `Path`. (A function, like `Ripgrep.layer()`:
 * `Ripgrep.ts` imports this module, so nothing here may touch `Ripgrep` at module load.)
 */
export const layer = (): Layer.Layer<Ripgrep.Ripgrep, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(Ripgrep.Ripgrep, make)
