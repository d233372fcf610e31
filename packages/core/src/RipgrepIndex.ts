/**
 * File modification times kept across the calls of one Ripgrep layer (a session), so that glob's
 * newest-first listing need not stat every file on every call and, once every directory under the
 * root is watched, need not walk at all; grep reads the mtimes of the files it matched from it.
 *
 * It stays true through one watch per directory (Linux: inotify reports the creation, removal,
 * renaming and content changes of a directory's entries). Events are recorded as they arrive and
 * applied when the next call starts, after every event queued by then has been delivered:
 * - a known file changed or replaced: its mtime is read again (gone: it is forgotten);
 * - a new file or directory, any event on an ignore file (`.gitignore`, `.ignore`, `.rgignore`), or a
 *   watched directory renamed or removed: the listings are dropped and the next call walks again
 *   (still reusing the known mtimes); a new directory is watched with everything below it;
 * - an entry that came and went (a temporary file) changes nothing;
 * - an event without a name, a watch that fails, or more than `MAX_PENDING` events between two
 *   calls: the root is forgotten and rebuilt by its next call.
 * Ignore rules from outside the watched tree are watched too: the root's ancestors' ignore files
 * (rg reads them) and every repository's `.git/info/exclude`; a change to one, or a repository
 * appearing, makes the next call walk again.
 * A root's first call is answered without it: rg's listing stat'ed at once, several batches in
 * flight, no watch on the way. The root is then filled in the background: every directory under it
 * watched first, then a walk that stats every file, so a change made around the first call is seen
 * by that walk or reported by a watch; calls that come meanwhile wait for the fill.
 * A directory is watched before any of its files is stat'ed, so no change falls between the stat and
 * the watch; a directory modified since shortly before the walk began keeps that walk's listing
 * from being kept (an entry may have appeared after rg read the directory).
 *
 * A listing is served without a walk only when every directory under the root (ignored ones too,
 * `.git` excepted) is watched, since a file may appear in a directory that holds no listed file:
 * after a walk, those directories are watched in the background. When they would exceed the watch
 * budget, every call walks, reusing the mtimes.
 *
 * Memory is bounded: at most `MAX_FILES` mtimes and `MAX_DIRECTORIES` watches over all roots, at
 * most `MAX_LISTINGS` listings per root and `MAX_ROOTS` roots (the least recently used is dropped),
 * and per root the files and mtimes of its last served answer, reused while nothing changed.
 *
 * A limit it cannot see past: Linux drops inotify events when more than `fs.inotify.max_queued_events`
 * (16384 by default) pile up unread, and Node does not report it. Events are read whenever the
 * event loop is free, so that takes a burst of changes while this process is blocked.
 */
import type { DirectoryWatch } from "./Ripgrep.ts"
import { MAX_DIRECTORIES, MAX_FILES, MAX_ROOTS, Root } from "./RipgrepIndexRoot.ts"

export { type Known, MAX_DIRECTORIES, MAX_FILES, MAX_LISTINGS, MAX_PENDING, MAX_ROOTS, type Walk } from "./RipgrepIndexRoot.ts"

/** The index of one Ripgrep layer: roots by absolute directory, within the memory and watch budgets. */
export class MtimeIndex {
  private readonly roots = new Map<string, Root>()
  private files = 0
  private directories = 0

  readonly platform: DirectoryWatch

  constructor(platform: DirectoryWatch) {
    this.platform = platform
  }

  /**
   * The root for `cwd` with its events applied, created when missing (least recently used roots are
   * dropped); undefined for a directory that exceeded a budget before.
   */
  root(cwd: string): Root | undefined {
    if (this.tooLarge.has(cwd)) return undefined
    let root = this.roots.get(cwd)
    if (root !== undefined && (root.ino === undefined || this.platform.lstat(cwd)?.ino !== root.ino)) {
      this.drop(root)
      root = undefined
    }
    if (root !== undefined) {
      this.roots.delete(cwd)
      this.roots.set(cwd, root)
      root.refresh()
      return root
    }
    root = new Root(cwd, this)
    this.roots.set(cwd, root)
    if (!root.watchAncestors()) {
      this.tooBig(root)
      return undefined
    }
    while (this.roots.size > MAX_ROOTS) this.drop(this.roots.values().next().value!)
    return root
  }

  /** The root for `cwd` when one exists, with its events applied. */
  existing(cwd: string): Root | undefined {
    const root = this.roots.get(cwd)
    if (root === undefined) return undefined
    if (root.ino === undefined || this.platform.lstat(cwd)?.ino !== root.ino) return void this.drop(root)
    root.refresh()
    return root
  }

  /** Roots that exceeded a budget: not indexed again (bounded like the roots). */
  private readonly tooLarge = new Set<string>()

  /** `root` exceeded the file or watch budget: it is dropped and its directory not indexed again. */
  tooBig(root: Root) {
    this.tooLarge.add(root.cwd)
    if (this.tooLarge.size > MAX_ROOTS * 4) this.tooLarge.delete(this.tooLarge.values().next().value!)
    this.drop(root)
  }

  drop(root: Root) {
    if (root.dropped) return
    if (this.roots.get(root.cwd) === root) this.roots.delete(root.cwd)
    root.close()
  }

  reserveFile(): boolean {
    if (this.files >= MAX_FILES) return false
    this.files++
    return true
  }
  releaseFiles(n: number) {
    this.files -= n
  }
  reserveDirectory(): boolean {
    if (this.directories >= MAX_DIRECTORIES) return false
    this.directories++
    return true
  }
  releaseDirectories(n: number) {
    this.directories -= n
  }

  close() {
    for (const root of [...this.roots.values()]) this.drop(root)
  }
}

export type { Root }
