/**
 * Batch stats for glob's mtimes on libuv's thread pool: one `fs.stat` callback per path, a bounded
 * number in flight, no Effect per file (an Effect per stat cost more than the stat itself, and
 * spawned `stat` processes competed with rg for the CPUs). And the directory watches that keep
 * Ripgrep's mtime index true between calls (`fs.watch` on one directory: inotify on Linux).
 */
import { lstatSync, readdirSync, stat, watch } from "node:fs"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import type { Ripgrep } from "@agent-tools/core"

/** Stats in flight at once: enough to keep the thread pool busy, few enough to stay fair. */
const IN_FLIGHT = 32

export const statBatch: Ripgrep.StatBatch = (cwd, paths) =>
  Effect.callback<ReadonlyArray<number | undefined>>((resume) => {
    const out = new Array<number | undefined>(paths.length)
    if (paths.length === 0) return resume(Effect.succeed(out))
    let next = 0
    let done = 0
    const launch = () => {
      const i = next++
      stat(join(cwd, paths[i]!), (error, info) => {
        out[i] = error === null && info.isFile() ? info.mtimeMs : undefined
        if (++done === paths.length) resume(Effect.succeed(out))
        else if (next < paths.length) launch()
      })
    }
    for (let k = 0; k < Math.min(IN_FLIGHT, paths.length); k++) launch()
  })

/**
 * Two turns of the event loop: the second begins with a poll for I/O, which reads every inotify
 * event queued before this started (the first turn may already be past its poll).
 */
const settled: Effect.Effect<void> = Effect.callback<void>((resume) => {
  setImmediate(() => setImmediate(() => resume(Effect.void)))
})

/**
 * Directory watches for Ripgrep's mtime index. The watches do not keep the process alive; an
 * error (the directory removed, the watch limit) is reported once and closes the watch.
 */
export const directoryWatch: Ripgrep.DirectoryWatch = {
  watch: (dir, onEvent, onError) => {
    try {
      const watcher = watch(dir, { persistent: false, encoding: "utf8" }, (kind, name) =>
        onEvent(kind === "change" ? "change" : "rename", name ?? undefined))
      watcher.on("error", () => {
        watcher.close()
        onError()
      })
      return () => watcher.close()
    } catch {
      return undefined
    }
  },
  subdirectories: (dir) => {
    try {
      return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
    } catch {
      return undefined
    }
  },
  lstat: (path) => {
    try {
      const info = lstatSync(path, { throwIfNoEntry: false })
      if (info === undefined) return undefined
      return { kind: info.isFile() ? "file" : info.isDirectory() ? "directory" : "other", mtime: info.mtimeMs, ino: info.ino }
    } catch {
      return undefined // unreadable counts as gone: rg would skip it too
    }
  },
  settled
}
