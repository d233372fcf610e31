/**
 * The portable layer's directory walk over the Effect `FileSystem`, deciding what to list the way
 * ripgrep's `ignore` crate does:
 *
 * 1. `--glob` overrides first: a match on a positive glob includes (ignore files and hiddenness
 *    are not consulted), a match on a `!` glob excludes; with any positive glob, a file matching
 *    none is excluded (directories are still entered).
 * 2. Ignore files, by kind in precedence order `.rgignore` > `.ignore` > `.gitignore` >
 *    `.git/info/exclude`; within a kind the deepest directory with a matching rule decides, and
 *    within a file the last matching line. A `!` line re-includes (and then hiddenness is not
 *    checked). `.gitignore` files above the nearest `.git` are not used. Ignore files in the
 *    ancestors of the walk's root count too.
 * 3. Hidden: a name starting with `.` is excluded unless `hidden`.
 *
 * Symbolic links are skipped unless `follow`; followed links that dangle, or that point to an
 * ancestor directory (a loop), are reported as `Skipped`, like unreadable directories.
 * Directories are read depth-first, entries sorted by name; a stack bounds the memory.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import type { Skipped } from "../../Ripgrep.ts"
import { matchRules, parseFile, type Rule } from "./glob.ts"

export interface WalkConfig {
  readonly hidden: boolean
  readonly follow: boolean
  readonly maxDepth: number | undefined
  readonly noIgnore: boolean
  /** Parsed `--glob`s; `negated` marks a `!` (exclude) glob. */
  readonly overrides: ReadonlyArray<Rule>
}

export interface WalkFile {
  readonly _tag: "File"
  /** Relative to the search's `cwd`. */
  readonly path: string
  readonly abs: string
}

export type WalkEvent = WalkFile | Skipped

interface IgnoreSet {
  /** Absolute directory of the ignore file, with a trailing `/`. */
  readonly base: string
  readonly rules: ReadonlyArray<Rule>
}

interface Ignores {
  readonly rg: ReadonlyArray<IgnoreSet>
  readonly dot: ReadonlyArray<IgnoreSet>
  readonly git: ReadonlyArray<IgnoreSet>
  readonly exclude: ReadonlyArray<IgnoreSet>
}

interface Ancestor {
  readonly real: string
  readonly rel: string
}

interface Task {
  readonly abs: string
  readonly rel: string
  readonly depth: number
  readonly ignores: Ignores
  /** Real paths of the directories above (only tracked when following links). */
  readonly ancestors: ReadonlyArray<Ancestor>
}

const EMPTY: Ignores = { rg: [], dot: [], git: [], exclude: [] }

const slashed = (dir: string) => (dir.endsWith("/") ? dir : `${dir}/`)
const child = (dir: string, name: string) => (dir.endsWith("/") ? dir + name : `${dir}/${name}`)

/** `Permission denied`, `No such file or directory`, … from a platform error. */
export const reasonOf = (e: PlatformError): string => {
  switch (e.reason._tag) {
    case "NotFound":
      return "No such file or directory"
    case "PermissionDenied":
      return "Permission denied"
    default:
      return e.message
  }
}

/** `"ignore"` / `"whitelist"` from the deepest matching set of each kind, by kind precedence. */
const matchIgnores = (ignores: Ignores, abs: string, isDir: boolean) => {
  for (const kind of [ignores.rg, ignores.dot, ignores.git, ignores.exclude]) {
    for (let i = kind.length - 1; i >= 0; i--) {
      const set = kind[i]!
      if (!abs.startsWith(set.base)) continue
      const m = matchRules(set.rules, abs.slice(set.base.length), isDir)
      if (m !== undefined) return m
    }
  }
  return undefined
}

export const makeWalker = (fs: FileSystem.FileSystem, config: WalkConfig) => {
  const whitelists = config.overrides.filter((r) => !r.negated).length

  const included = (abs: string, rel: string, name: string, isDir: boolean, ignores: Ignores): boolean => {
    if (config.overrides.length > 0) {
      // In override terms a plain glob is a whitelist: matchRules says "ignore" for it.
      const m = matchRules(config.overrides, rel, isDir)
      if (m === "ignore") return true
      if (m === "whitelist") return false
      if (whitelists > 0 && !isDir) return false
    }
    if (!config.noIgnore) {
      const m = matchIgnores(ignores, abs, isDir)
      if (m === "ignore") return false
      if (m === "whitelist") return true
    }
    return config.hidden || !name.startsWith(".")
  }

  const readRules = (file: string) =>
    fs.readFileString(file).pipe(
      Effect.map(parseFile),
      Effect.catch(() => Effect.succeed<ReadonlyArray<Rule>>([]))
    )

  /** Adds the ignore files found in `dir` (given which of them exist) to `parent`. */
  const loadIgnores = Effect.fnUntraced(function*(dir: string, has: (name: string) => boolean, gitIsDir: boolean, parent: Ignores) {
    const base = slashed(dir)
    const add = (list: ReadonlyArray<IgnoreSet>, rules: ReadonlyArray<Rule>) => (rules.length === 0 ? list : [...list, { base, rules }])
    let { dot, exclude, git, rg } = parent
    if (has(".git")) {
      // A repository root: .gitignore files above it no longer apply.
      git = []
      exclude = gitIsDir ? add([], yield* readRules(child(dir, ".git/info/exclude"))) : []
    }
    if (has(".rgignore")) rg = add(rg, yield* readRules(child(dir, ".rgignore")))
    if (has(".ignore")) dot = add(dot, yield* readRules(child(dir, ".ignore")))
    if (has(".gitignore")) git = add(git, yield* readRules(child(dir, ".gitignore")))
    return { rg, dot, git, exclude } satisfies Ignores
  })

  /** The ignore files of `dir`'s ancestors (from `/` down), as ripgrep reads its parents. */
  const ancestorIgnores = Effect.fnUntraced(function*(dir: string) {
    if (config.noIgnore) return EMPTY
    const parts = dir.split("/").filter((p) => p !== "")
    let ignores = EMPTY
    for (let i = 0; i < parts.length; i++) {
      const ancestor = `/${parts.slice(0, i).join("/")}`
      const present = new Set<string>()
      for (const name of [".rgignore", ".ignore", ".gitignore", ".git"]) {
        if (yield* fs.exists(child(ancestor, name)).pipe(Effect.orElseSucceed(() => false))) present.add(name)
      }
      if (present.size === 0) continue
      const gitInfo = present.has(".git") ? yield* Effect.option(fs.stat(child(ancestor, ".git"))) : Option.none()
      const gitIsDir = Option.isSome(gitInfo) && gitInfo.value.type === "Directory"
      ignores = yield* loadIgnores(ancestor, (n) => present.has(n), gitIsDir, ignores)
    }
    return ignores
  })

  const readDir = Effect.fnUntraced(function*(task: Task, stack: Array<Task>) {
    const listed = yield* Effect.result(fs.readDirectoryEntries(task.abs))
    if (listed._tag === "Failure") {
      return [{ _tag: "Skipped", path: task.rel === "" ? "." : task.rel, reason: reasonOf(listed.failure) }] as Array<WalkEvent>
    }
    const entries = [...listed.success].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const names = new Map(entries.map((e) => [e.name, e.type]))
    const ignores = config.noIgnore
      ? task.ignores
      : yield* loadIgnores(task.abs, (n) => names.has(n), names.get(".git") === "Directory", task.ignores)
    const out: Array<WalkEvent> = []
    const dirs: Array<Task> = []
    const depth = task.depth + 1
    for (const entry of entries) {
      const rel = task.rel === "" ? entry.name : `${task.rel}/${entry.name}`
      const abs = child(task.abs, entry.name)
      let type = entry.type
      let linked = false
      if (type === "Unknown") {
        const info = yield* Effect.option(fs.lstat(abs))
        if (Option.isNone(info)) continue
        type = info.value.type
      }
      if (type === "SymbolicLink") {
        if (!config.follow) continue
        const target = yield* Effect.result(fs.stat(abs))
        if (target._tag === "Failure") {
          out.push({ _tag: "Skipped", path: rel, reason: reasonOf(target.failure) })
          continue
        }
        type = target.success.type
        linked = true
      }
      const isDir = type === "Directory"
      if (!isDir && type !== "File") continue
      if (!included(abs, rel, entry.name, isDir, ignores)) continue
      if (!isDir) {
        if (config.maxDepth === undefined || depth <= config.maxDepth) out.push({ _tag: "File", path: rel, abs })
        continue
      }
      if (config.maxDepth !== undefined && depth >= config.maxDepth) continue
      let ancestors = task.ancestors
      if (config.follow) {
        const parentReal = task.ancestors[task.ancestors.length - 1]?.real ?? task.abs
        const real = linked ? yield* Effect.option(fs.realPath(abs)) : Option.some(child(parentReal, entry.name))
        if (Option.isNone(real)) continue
        const loop = ancestors.find((a) => a.real === real.value)
        if (loop !== undefined) {
          out.push({ _tag: "Skipped", path: rel, reason: `file system loop: points to an ancestor ${loop.rel === "" ? "." : loop.rel}` })
          continue
        }
        ancestors = [...ancestors, { real: real.value, rel }]
      }
      dirs.push({ abs, rel, depth, ignores, ancestors })
    }
    for (let i = dirs.length - 1; i >= 0; i--) stack.push(dirs[i]!)
    return out
  })

  /** Walks `abs` (shown as `rel` relative to the search root; `""` for the root itself). */
  const walk = (abs: string, rel: string): Stream.Stream<WalkEvent> =>
    Stream.unwrap(Effect.gen(function*() {
      const ignores = yield* ancestorIgnores(abs)
      const ancestors: Array<Ancestor> = []
      if (config.follow) {
        const real = yield* Effect.option(fs.realPath(abs))
        ancestors.push({ real: Option.getOrElse(real, () => abs), rel })
      }
      const stack: Array<Task> = [{ abs, rel, depth: 0, ignores, ancestors }]
      return Stream.paginate(stack, (s) =>
        Effect.map(
          s.length === 0 ? Effect.succeed<Array<WalkEvent>>([]) : readDir(s.pop()!, s),
          (events) => [events, s.length > 0 ? Option.some(s) : Option.none()] as const
        ))
    }))

  return { walk }
}
