/**
 * Batch stats for glob's and grep's mtimes on threads of their own, one per CPU up to 4 (libuv's
 * thread pool when one cannot start): no Effect per file (an Effect per stat cost more than the stat itself, and
 * spawned `stat` processes competed with rg for the CPUs). And the directory watches that keep
 * Ripgrep's mtime index true between calls (`fs.watch` on one directory: inotify on Linux).
 */
import { lstatSync, readdirSync, stat, watch } from "node:fs"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import type { Ripgrep } from "@agent-tools/core"

/** Stats in flight at once: enough to keep the thread pool busy, few enough to stay fair. */
const IN_FLIGHT = 32

/** `statBatch` on libuv's thread pool: the fallback when the stat thread cannot run. */
const statOnPool: Ripgrep.StatBatch = (cwd, paths) =>
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
 * A stat thread: synchronous stats in a loop, the mtimes sent back in one transferred array (NaN
 * for what is not a regular file). A stat this way costs a fraction of a callback on the thread
 * pool, and none of it is on the main thread. Paths are joined to `cwd` by concatenation: they
 * come from rg's listing (relative, clean), and `path.join` per file cost more than the stat.
 */
const STAT_THREAD = `
const { parentPort } = require("node:worker_threads")
const { statSync } = require("node:fs")
parentPort.on("message", ({ id, cwd, joined }) => {
  const paths = joined.split("\\0")
  const out = new Float64Array(paths.length)
  const prefix = cwd.endsWith("/") ? cwd : cwd + "/"
  const options = { throwIfNoEntry: false }
  for (let i = 0; i < paths.length; i++) {
    let info
    try { info = statSync(prefix + paths[i], options) } catch { info = undefined }
    out[i] = info !== undefined && info.isFile() ? info.mtimeMs : NaN
  }
  parentPort.postMessage({ id, out }, [out.buffer])
})
`

interface StatThread {
  readonly worker: Worker
  readonly pending: Map<number, (out: Float64Array | undefined) => void>
}

/**
 * Stat threads, one per CPU up to `MAX_THREADS`: a listing's batches are spread over them while rg
 * still walks. Started on demand (a batch goes to an idle thread, a new one while below the
 * limit); each holds the process open only while it has work.
 */
const MAX_THREADS = Math.max(1, Math.min(4, availableParallelism()))
const threads: Array<StatThread> = []
/** Set once a thread could not start or failed: later batches use the thread pool. */
let broken = false
let nextId = 0

const startThread = (): StatThread | undefined => {
  try {
    const worker = new Worker(STAT_THREAD, { eval: true })
    worker.unref()
    const started: StatThread = { worker, pending: new Map() }
    const fail = () => {
      broken = true
      const i = threads.indexOf(started)
      if (i !== -1) threads.splice(i, 1)
      for (const resolve of started.pending.values()) resolve(undefined)
      started.pending.clear()
    }
    worker.on("message", ({ id, out }: { readonly id: number; readonly out: Float64Array }) => {
      const resolve = started.pending.get(id)
      started.pending.delete(id)
      if (started.pending.size === 0) worker.unref()
      resolve?.(out)
    })
    worker.on("error", fail)
    worker.on("exit", fail)
    threads.push(started)
    return started
  } catch {
    broken = true
    return undefined
  }
}

/** The thread to give a batch: an idle one, else a new one while below the limit, else the least busy. */
const statThread = (): StatThread | undefined => {
  if (broken) return undefined
  let best: StatThread | undefined
  for (const t of threads) if (best === undefined || t.pending.size < best.pending.size) best = t
  if (best !== undefined && (best.pending.size === 0 || threads.length >= MAX_THREADS)) return best
  return startThread() ?? best
}

/** The thread's answer as `statBatch` gives it (a loop: `Array.from` with a callback cost more than the stats' transfer). */
const mtimesOf = (out: Float64Array): Array<number | undefined> => {
  const mtimes = new Array<number | undefined>(out.length)
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!
    mtimes[i] = m === m ? m : undefined // NaN: not a regular file
  }
  return mtimes
}

export const statBatch: Ripgrep.StatBatch = (cwd, paths) => {
  const t = paths.length === 0 ? undefined : statThread()
  if (t === undefined) return statOnPool(cwd, paths)
  return Effect.flatMap(
    Effect.callback<Float64Array | undefined>((resume) => {
      const id = nextId++
      t.pending.set(id, (out) => resume(Effect.succeed(out)))
      if (t.pending.size === 1) t.worker.ref()
      // One string crosses to the thread much faster than an array of them.
      t.worker.postMessage({ id, cwd, joined: paths.join("\0") })
    }),
    (out) => (out === undefined ? statOnPool(cwd, paths) : Effect.succeed(mtimesOf(out)))
  )
}

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
