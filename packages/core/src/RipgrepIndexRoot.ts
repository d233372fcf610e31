/**
 * One root of the session's mtime index (`RipgrepIndex`): the directory watches below one searched
 * directory, the mtimes and listings they keep true, and the events applied at the next call. The
 * budgets it reserves from are the whole index's.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { EntryInfo } from "./Ripgrep.ts"
import type { MtimeIndex } from "./RipgrepIndex.ts"

/** mtimes kept over all roots (about 100 bytes each, twice that with a listing). */
export const MAX_FILES = 400_000
/** Directory watches over all roots (inotify watches are a per-user resource shared with other programs). */
export const MAX_DIRECTORIES = 30_000
export const MAX_ROOTS = 4
/** Listings kept per root, one per narrowing of the walk (glob's file-name patterns). */
export const MAX_LISTINGS = 4
/** Unapplied events a root may collect between two calls before it is forgotten. */
export const MAX_PENDING = 20_000
/** A directory modified this long before a walk began may have changed while rg read it (timestamp granularity). */
const MTIME_SLACK_MS = 2_000
/** Directories watched per slice of the background scan, between yields to other work. */
const SCAN_SLICE = 256

const IGNORE_FILES = new Set([".gitignore", ".ignore", ".rgignore"])
/** What in a root's ancestor can change rg's rules below it: its ignore files, a repository appearing. */
const ANCESTOR_RULES = new Set([...IGNORE_FILES, ".git"])
const GIT_INFO = new Set(["info"])
const GIT_EXCLUDE = new Set(["exclude"])

const parentOf = (path: string): string => {
  const i = path.lastIndexOf("/")
  return i === -1 ? "" : path.slice(0, i)
}
const nameOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1)
const child = (dir: string, name: string): string => (dir === "" ? name : `${dir}/${name}`)
const under = (dir: string, path: string): boolean => path.startsWith(`${dir}/`)

export interface Known {
  readonly path: string
  readonly mtime: number
}

/** One walk's bookkeeping, from `Root.walk`. */
export interface Walk {
  /** The mtime of `path` when it is known and no event for it is pending (it then counts as listed). */
  readonly known: (path: string) => number | undefined
  /** Taken before a stat and given to `record`: events applied in between make the mtime be read again. */
  readonly stamp: () => number
  /** Watches the directories of `path` before it is stat'ed; false when the index gave up on the root. */
  readonly prepare: (path: string) => boolean
  readonly record: (path: string, mtime: number, stamp: number) => void
  /** A path could not be read: this walk's listing is not kept (the next call reports it again). */
  readonly incomplete: () => void
  /** The walk listed every file: its listing is kept when nothing changed meanwhile. */
  readonly done: () => void
}

interface Listing {
  /** Files forgotten since (removed) are skipped when it is served. */
  readonly files: ReadonlyArray<string>
  /** When its walk began (ms). */
  readonly startedAt: number
}

export class Root {
  readonly mtimes = new Map<string, number>()
  /** Listings of complete walks since the last structural change, by narrowing; least recently used first. */
  readonly listings = new Map<string, Listing>()
  /** Watched directories (relative, "" for the root) and how to close each. */
  readonly watched = new Map<string, () => void>()
  /** Events not applied yet: path → "rename" when any of them was one. */
  readonly pending = new Map<string, "change" | "rename">()
  /** Whether every directory under the root is watched. */
  covered: "no" | "scanning" | "yes" | "over-budget" = "no"
  /** Bumped by every structural change: a walk that saw one cannot keep its listing. */
  structure = 0
  /** Bumped whenever events are applied: a stat taken before may be older than an applied event. */
  version = 0
  /** Bumped by anything that may change a served listing: events applied, an mtime recorded, a structural change. */
  changes = 0
  /**
   * The files and mtimes `serve` last gave, reused while nothing changed (`changes`); one per root,
   * so what it holds stays within the files the index holds.
   */
  private lastServed: {
    readonly listing: Listing
    readonly filter: string
    readonly changes: number
    readonly paths: ReadonlyArray<string>
    readonly mtimes: Float64Array
  } | undefined
  dropped = false
  /** Completed when the fill under way (`beginFill`) ends: calls wait for it before using the root. */
  filling: Deferred.Deferred<void> | undefined = undefined

  readonly cwd: string
  readonly index: MtimeIndex
  /** The root directory's inode: a directory moved in its place is another tree, unwatched. */
  readonly ino: number | undefined

  constructor(cwd: string, index: MtimeIndex) {
    this.cwd = cwd
    this.index = index
    this.ino = index.platform.lstat(cwd)?.ino
  }

  absolute(rel: string): string {
    return rel === "" ? this.cwd : `${this.cwd}/${rel}`
  }

  /** Watches `dir` (and its ancestors first): "budget" when over the watch budget, "failed" when it cannot be watched. */
  watch(dir: string): "ok" | "budget" | "failed" {
    if (this.watched.has(dir)) return "ok"
    if (dir !== "") {
      const parent = this.watch(parentOf(dir))
      if (parent !== "ok") return parent
    }
    if (!this.index.reserveDirectory()) return "budget"
    const close = this.index.platform.watch(this.absolute(dir), (kind, name) => this.event(dir, kind, name), () => this.index.drop(this))
    if (close === undefined) {
      this.index.releaseDirectories(1)
      // A directory that still exists but cannot be watched (the system's watch limit) is a hole.
      return this.index.platform.lstat(this.absolute(dir)) === undefined ? "failed" : "budget"
    }
    this.watched.set(dir, close)
    return this.watchRepository(this.absolute(dir)) ? "ok" : "budget"
  }

  /**
   * Watches that only tell whether an ignore rule may have changed outside the watched tree: the
   * root's ancestors (rg reads their ignore files) and each repository's `.git` and `.git/info`
   * (its `info/exclude`). Any such event makes the next call walk again.
   */
  private readonly ruleWatches: Array<() => void> = []
  private rulesChanged = false
  /** Directories (absolute) whose `.git` is watched, and whether its `info` is too. */
  private readonly repositories = new Map<string, "git" | "info">()
  private readonly ancestors: Array<string> = []

  private watchRules(absolute: string, names: ReadonlySet<string>): boolean {
    if (!this.index.reserveDirectory()) return false
    const close = this.index.platform.watch(absolute, (_, name) => {
      if (name === undefined || names.has(name)) this.rulesChanged = true
    }, () => this.index.drop(this))
    if (close === undefined) {
      this.index.releaseDirectories(1)
      return false
    }
    this.ruleWatches.push(close)
    return true
  }

  /** The exclude file of a repository whose `.git` directory is in `absolute`, if there is one. */
  private watchRepository(absolute: string): boolean {
    const state = this.repositories.get(absolute)
    if (state === "info") return true
    const git = `${absolute === "/" ? "" : absolute}/.git`
    if (state === undefined) {
      if (this.index.platform.lstat(git)?.kind !== "directory") return true
      if (!this.watchRules(git, GIT_INFO)) return false
      this.repositories.set(absolute, "git")
    }
    if (this.index.platform.lstat(`${git}/info`)?.kind !== "directory") return true
    if (!this.watchRules(`${git}/info`, GIT_EXCLUDE)) return false
    this.repositories.set(absolute, "info")
    return true
  }

  /** After a rule changed: a repository (or its `info`) that appeared since is watched too. */
  private rewatchRepositories() {
    for (const dir of [...this.ancestors, ...this.repositories.keys()]) {
      if (!this.watchRepository(dir)) return this.index.tooBig(this)
    }
  }

  /** Watches the root's ancestors for changes to their ignore rules; false when it cannot. */
  watchAncestors(): boolean {
    let dir = this.cwd
    for (;;) {
      const slash = dir.lastIndexOf("/")
      if (slash < 0 || dir === "/") return true
      const parent = slash === 0 ? "/" : dir.slice(0, slash)
      if (!this.watchRules(parent, ANCESTOR_RULES) || !this.watchRepository(parent)) return false
      this.ancestors.push(parent)
      dir = parent
    }
  }

  private event(dir: string, kind: "change" | "rename", name: string | undefined) {
    if (this.dropped) return
    if (name === undefined || name === "") return this.index.drop(this)
    const path = child(dir, name)
    if (kind === "rename" || this.pending.get(path) === "rename") this.pending.set(path, "rename")
    else this.pending.set(path, "change")
    if (this.pending.size > MAX_PENDING) this.index.drop(this)
  }

  /** Something appeared, vanished or an ignore file changed: no listing holds any more. */
  private structural() {
    this.changes++
    this.structure++
    this.listings.clear()
    this.lastServed = undefined
  }

  /** Forgets watched directory `dir` and everything known below it. */
  private forgetDirectory(dir: string) {
    let closed = 0
    for (const [d, close] of this.watched) {
      if (d === dir || under(dir, d)) {
        close()
        this.watched.delete(d)
        closed++
      }
    }
    this.index.releaseDirectories(closed)
    for (const path of this.mtimes.keys()) if (under(dir, path)) this.mtimes.delete(path)
  }

  /** Watches `dir` and every directory below it (`.git` and symbolic links excepted); false when over budget. */
  watchTree(dir: string): boolean {
    const queue = [dir]
    while (queue.length > 0) {
      const next = queue.pop()!
      const watched = this.watch(next)
      if (watched === "budget") return false
      if (watched === "failed") continue
      for (const name of this.index.platform.subdirectories(this.absolute(next)) ?? []) {
        const sub = child(next, name)
        if (name !== ".git" && !this.watched.has(sub)) queue.push(sub)
      }
    }
    return true
  }

  /** Applies the recorded events (run once the platform has delivered those queued so far). */
  refresh() {
    if (this.rulesChanged) {
      this.rulesChanged = false
      this.structural()
      this.rewatchRepositories()
      if (this.dropped) return
    }
    if (this.pending.size === 0) return
    this.version++
    this.changes++
    const events = [...this.pending]
    this.pending.clear()
    const lstat = this.index.platform.lstat
    for (const [path, kind] of events) {
      if (this.dropped) return
      const name = nameOf(path)
      if (name === ".git") {
        // A repository appeared, went or changed below the root: its rules and its exclude file.
        this.structural()
        if (!this.watchRepository(this.absolute(parentOf(path)))) return this.index.tooBig(this)
        continue
      }
      if (IGNORE_FILES.has(name)) this.structural()
      const known = this.mtimes.has(path)
      if (kind === "change" && !known) continue // a content change never changes what is listed
      const info: EntryInfo | undefined = lstat(this.absolute(path))
      if (known) {
        if (info?.kind === "file") this.mtimes.set(path, info.mtime)
        else {
          this.mtimes.delete(path)
          if (info !== undefined) this.structural()
        }
      } else if (this.watched.has(path)) {
        // A watched directory renamed, removed or replaced: what was below it is forgotten.
        this.structural()
        this.forgetDirectory(path)
        if (info?.kind === "directory" && (this.covered === "yes" || this.covered === "scanning") && !this.watchTree(path)) {
          this.overBudget()
        }
      } else if (info !== undefined) {
        this.structural()
        // Once coverage has begun, a new directory is covered at once (the scan may have passed its parent).
        if (info.kind === "directory" && (this.covered === "yes" || this.covered === "scanning") && !this.watchTree(path)) {
          this.overBudget()
        }
      }
    }
  }

  /**
   * The listing of a walk narrowed by `key`, when it can be served without a walk: `make` turns
   * each listed file that `keep` accepts, with its mtime, into what is returned. `filter` names
   * `keep`: while nothing in the root changed, the same listing and filter are served from the
   * files and mtimes the previous call kept, without a lookup per file.
   */
  serve<A>(key: string, filter: string, keep: (path: string) => boolean, make: (path: string, mtime: number) => A): Array<A> | undefined {
    if (this.covered !== "yes") return undefined
    const listing = this.listings.get(key)
    if (listing === undefined) return undefined
    this.listings.delete(key)
    this.listings.set(key, listing)
    let last = this.lastServed
    if (last?.listing !== listing || last.filter !== filter || last.changes !== this.changes) {
      const paths: Array<string> = []
      const mtimes: Array<number> = []
      for (const path of listing.files) {
        if (!keep(path)) continue
        const mtime = this.mtimes.get(path)
        if (mtime === undefined) continue
        paths.push(path)
        mtimes.push(mtime)
      }
      last = this.lastServed = { listing, filter, changes: this.changes, paths, mtimes: Float64Array.from(mtimes) }
    }
    const out = new Array<A>(last.paths.length)
    for (let i = 0; i < out.length; i++) out[i] = make(last.paths[i]!, last.mtimes[i]!)
    return out
  }

  walk(key: string, startedAt: number): Walk {
    const structure = this.structure
    const listed: Array<string> = []
    let keep = true
    return {
      known: (path) => {
        if (this.dropped || this.mtimes.size === 0 || (this.pending.size > 0 && this.pending.has(path))) return undefined
        const mtime = this.mtimes.get(path)
        if (mtime !== undefined) listed.push(path)
        return mtime
      },
      stamp: () => this.version,
      prepare: (path) => {
        if (this.dropped) return false
        const dir = parentOf(path)
        if (this.watched.has(dir)) return true
        const before = this.watched.size
        const watched = this.watch(dir)
        if (watched === "budget") {
          this.index.tooBig(this)
          return false
        }
        if (watched === "failed") {
          keep = false
          return false
        }
        // Newly watched: an entry made after rg read the directory and before the watch is unseen.
        if (this.watched.size > before && this.changedSince(dir, startedAt)) keep = false
        return true
      },
      record: (path, mtime, stamp) => {
        if (this.dropped) return
        const before = this.mtimes.size
        this.changes++
        this.mtimes.set(path, mtime)
        if (this.mtimes.size > before && !this.index.reserveFile()) {
          this.mtimes.delete(path)
          return this.index.tooBig(this)
        }
        listed.push(path)
        // An event applied since the stat began may be newer than this mtime: read it again next time.
        if (stamp !== this.version && !this.pending.has(path)) this.pending.set(path, "change")
      },
      incomplete: () => void (keep = false),
      done: () => {
        if (this.dropped || !keep || structure !== this.structure) return
        this.listings.delete(key)
        this.listings.set(key, { files: listed, startedAt })
        while (this.listings.size > MAX_LISTINGS) this.listings.delete(this.listings.keys().next().value!)
      }
    }
  }

  /**
   * Whether directory `dir` may have changed since shortly before `since` (timestamp granularity):
   * its entries (its mtime), or its ignore files edited in place (which leaves the directory's
   * mtime alone but changes what rg lists below it). Gone or unreadable counts as changed.
   */
  private changedSince(dir: string, since: number): boolean {
    const lstat = this.index.platform.lstat
    const info = lstat(this.absolute(dir))
    if (info === undefined || info.mtime >= since - MTIME_SLACK_MS) return true
    for (const name of IGNORE_FILES) {
      const rules = lstat(this.absolute(child(dir, name)))
      if (rules !== undefined && rules.mtime >= since - MTIME_SLACK_MS) return true
    }
    return false
  }

  /** Nothing known yet and no fill under way: its next walk answers without it, then fills it. */
  get fresh(): boolean {
    return this.filling === undefined && this.mtimes.size === 0 && this.listings.size === 0 && this.covered === "no"
  }

  /**
   * Marks a fill of this fresh root as under way (calls wait for `filling` before using the root)
   * and returns the effect that ends it; undefined when the root is no longer fresh.
   */
  beginFill(): Effect.Effect<void> | undefined {
    if (this.dropped || !this.fresh) return undefined
    const done = Deferred.makeUnsafe<void>()
    this.filling = done
    return Effect.sync(() => {
      if (this.filling === done) this.filling = undefined
      Deferred.doneUnsafe(done, Effect.void)
    })
  }

  /** Coverage would exceed the watch budget: the directories watched for it alone are released. */
  private overBudget() {
    this.covered = "over-budget"
    const holding = new Set<string>()
    for (const path of this.mtimes.keys()) holding.add(parentOf(path))
    const keep = (dir: string) => {
      for (const d of holding) if (d === dir || under(dir, d)) return true
      return false
    }
    let closed = 0
    for (const [dir, close] of this.watched) {
      if (holding.has(dir) || keep(dir)) continue
      close()
      this.watched.delete(dir)
      closed++
    }
    this.index.releaseDirectories(closed)
  }

  /**
   * Watches every directory under the root not watched yet, a slice at a time. A directory that
   * changed since shortly before the oldest kept listing's walk began may hold a file that listing
   * lacks: the listings are then dropped.
   */
  cover(): Effect.Effect<void> {
    if (this.covered !== "no") return Effect.void
    this.covered = "scanning"
    const self = this
    return Effect.gen(function*() {
      // A root that watches nothing yet (a fill) is scanned from the top.
      const queue = self.watched.size === 0 ? [""] : [...self.watched.keys()]
      let visited = 0
      while (queue.length > 0) {
        if (self.dropped || self.covered !== "scanning") return
        const dir = queue.pop()!
        if (!self.watched.has(dir)) {
          const watched = self.watch(dir)
          if (watched === "budget") return self.overBudget()
          if (watched === "failed") continue
          let oldest = Infinity
          for (const listing of self.listings.values()) oldest = Math.min(oldest, listing.startedAt)
          if (self.changedSince(dir, oldest)) self.structural()
        }
        for (const name of self.index.platform.subdirectories(self.absolute(dir)) ?? []) {
          const sub = child(dir, name)
          if (name !== ".git" && !self.watched.has(sub)) queue.push(sub)
        }
        if (++visited % SCAN_SLICE === 0) yield* Effect.yieldNow
      }
      if (self.covered === "scanning") self.covered = "yes"
    })
  }

  close() {
    this.dropped = true
    if (this.filling !== undefined) Deferred.doneUnsafe(this.filling, Effect.void)
    this.filling = undefined
    for (const close of this.watched.values()) close()
    for (const close of this.ruleWatches) close()
    this.index.releaseDirectories(this.watched.size + this.ruleWatches.length)
    this.ruleWatches.length = 0
    this.index.releaseFiles(this.mtimes.size)
    this.watched.clear()
    this.mtimes.clear()
    this.listings.clear()
    this.pending.clear()
    this.lastServed = undefined
  }
}
