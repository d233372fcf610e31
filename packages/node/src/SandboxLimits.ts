/**
 * The resource limits of a sandboxed call: how many processes it may run at once, and how big its
 * private temp and home directories may grow.
 *
 * Processes are capped by a pids cgroup per call (`pids.max`), the one limit the kernel applies to
 * root too (RLIMIT_NPROC is ignored for uid 0, and counts every process of the user besides). The
 * cgroup is made under this process's own pids cgroup (cgroup v1 `/sys/fs/cgroup/pids/…`) or
 * beside it (cgroup v2, where a cgroup holding processes cannot have children with controllers);
 * the wrapper shell moves itself into it before it starts bwrap, so every process of the call is
 * counted; after the call what is left in it is killed, and the empty cgroup is kept for a later
 * call of the same layer (`pidsPool`, its cap written again) or removed. Calls that see the
 * host's `/sys` (nothing outside the workspace hidden) get the cgroups read-only. Where no cgroup can be made (an unprivileged user
 * without a delegated cgroup), calls run without the cap and the status says so.
 *
 * The temp and home directories are size-capped tmpfs mounts: memory the kernel frees when the
 * call's namespace ends, so nothing is left on the host (a mode-000 directory cannot block the
 * clean-up) and a runaway write fails with ENOSPC instead of filling the host's disk.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { rmdir } from "node:fs/promises"

/** The most processes a call may run at once when the config says nothing (`sandbox.maxProcesses`). */
export const DEFAULT_MAX_PROCESSES = 1024

/** The size of the private temp directory, and of the private home, when the config says nothing (`sandbox.tmpMaxBytes`). */
export const DEFAULT_TMP_MAX_BYTES = 512 * 1024 * 1024

/**
 * The most sessions whose shared loopback (network namespace) one sandbox layer keeps; past it the
 * least recently used session's is let go, and its next call gets a new one.
 */
export const MAX_SESSIONS = 64

/**
 * Where per-call pids cgroups go (and this process's own cgroup in that hierarchy: its
 * `cgroup.procs`, see `startMigrationWait`), or why there are none.
 */
export type Pids =
  | { readonly _tag: "cgroup"; readonly parent: string; readonly own: string }
  | { readonly _tag: "none"; readonly reason: string }

/** The cgroup v1 pids hierarchy and the cgroup v2 root, where Linux mounts them. */
const V1 = "/sys/fs/cgroup/pids"
const V2 = "/sys/fs/cgroup"

/**
 * The directories a pids cgroup could be made in, most specific first, from `/proc/self/cgroup`,
 * each with this process's own cgroup directory in the same hierarchy.
 */
export const candidateCgroups = (selfCgroup: string): Array<{ readonly parent: string; readonly own: string }> => {
  const out: Array<{ readonly parent: string; readonly own: string }> = []
  for (const line of selfCgroup.split("\n")) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line.trim()) ?? []
    if (path === undefined || !path.startsWith("/")) continue
    if (controllers!.split(",").includes("pids")) {
      const own = `${V1}${path === "/" ? "" : path}`
      out.unshift({ parent: own, own })
    } // v2: a child of the root, or a sibling of this process's own (leaf) cgroup.
    else if (controllers === "") {
      out.push({ parent: path === "/" ? V2 : `${V2}${path.slice(0, path.lastIndexOf("/")) || ""}`, own: `${V2}${path === "/" ? "" : path}` })
    }
  }
  return out
}

/** The directories a pids cgroup could be made in, most specific first, from `/proc/self/cgroup`. */
export const candidates = (selfCgroup: string): Array<string> => candidateCgroups(selfCgroup).map((c) => c.parent)

/**
 * Removes an empty cgroup. A cgroup directory holds the kernel's control files, which cannot be
 * unlinked: only rmdir(2) removes it, and the file system service offers no bare rmdir. Not by
 * spawning `rmdir` either: found on PATH, that could be a workspace's program (node_modules/.bin)
 * run outside the sandbox.
 */
const removeCgroup = (dir: string) =>
  Effect.tryPromise({ try: () => rmdir(dir), catch: (cause) => new Error(`rmdir ${dir}: ${String(cause)}`) })

/**
 * Kills every process still in a call's cgroup. The call's processes end with its process group
 * and its pid namespace; this catches one that left both (a new session made while bwrap was
 * still starting, when the kill came), so none outlives its call.
 */
const killMembers = (fs: FileSystem.FileSystem, procs: string) =>
  fs.readFileString(procs).pipe(
    Effect.orElseSucceed(() => ""),
    Effect.flatMap((text) =>
      Effect.sync(() => {
        for (const pid of text.split("\n").map(Number).filter((n) => Number.isInteger(n) && n > 0)) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // Gone already.
          }
        }
      })
    )
  )

/** Probes made by this process: each makes a cgroup of its own name, so layers built at once do not collide. */
let probes = 0

/**
 * Finds a directory where this process may make a pids cgroup: makes and removes one to be sure
 * (a read-only cgroup file system, or one without the pids controller, fails here, not per call).
 */
export const detectPids = Effect.fn("SandboxLimits.detectPids")(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const self = yield* fs.readFileString("/proc/self/cgroup").pipe(Effect.orElseSucceed(() => ""))
  const reasons: Array<string> = []
  for (const { own, parent } of candidateCgroups(self)) {
    const test = path.join(parent, `agent-tools-probe-${process.pid}-${++probes}`)
    const made = yield* fs.makeDirectory(test).pipe(
      Effect.andThen(fs.exists(path.join(test, "pids.max"))),
      Effect.ensuring(removeCgroup(test).pipe(Effect.ignore)),
      Effect.result
    )
    if (made._tag === "Success" && made.success) return { _tag: "cgroup", parent, own: path.join(own, "cgroup.procs") } satisfies Pids
    reasons.push(made._tag === "Failure" ? `${parent}: ${made.failure.message}` : `${parent}: no pids controller`)
  }
  return {
    _tag: "none",
    reason: `no pids cgroup can be made here (${reasons.join("; ") || "no cgroup file system"})`
  } satisfies Pids
})

/**
 * A pids cgroup for one call, capped at `max` processes; its `cgroup.procs` file (where the
 * wrapper shell writes its pid). Removed when the scope closes, retried while the call's last
 * processes die (an rmdir of a cgroup that still has members fails).
 */
export const pidsCgroup = Effect.fn("SandboxLimits.pidsCgroup")(function*(parent: string, name: string, max: number) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = path.join(parent, name)
  yield* Effect.acquireRelease(
    fs.makeDirectory(dir),
    () =>
      killMembers(fs, path.join(dir, "cgroup.procs")).pipe(
        Effect.andThen(removeCgroup(dir)),
        Effect.retry({ times: 20, schedule: Schedule.spaced(Duration.millis(50)) }),
        Effect.ignore
      )
  )
  yield* fs.writeFileString(path.join(dir, "pids.max"), `${max}\n`)
  return path.join(dir, "cgroup.procs")
})

/**
 * Starts the wait a move into a cgroup pays, so that a call's own move finds it (mostly) over.
 * Moving a process between cgroups (the wrapper shell writing its pid into its call's
 * `cgroup.procs`) takes a lock that waits for an RCU grace period unless one has just passed:
 * 10–15 ms on a small machine, the largest part of a sandboxed `echo`. The kernel takes that lock
 * for any write of a pid to a `cgroup.procs` file, even one that moves nothing, and a writer that
 * comes while the wait is under way shares it. So this writes this process's pid to its own
 * cgroup's `cgroup.procs` (`Pids.own`: it stays where it is) at the start of a call's set-up, and
 * the wait runs while the call checks its files, spawns and starts the shell. Best effort: a
 * refused write costs nothing. (A `pids.max` write takes no cgroup lock, so the call's cap is not
 * held up behind it.)
 */
export const startMigrationWait = (fs: FileSystem.FileSystem, own: string): Effect.Effect<void> =>
  fs.writeFileString(own, `${process.pid}\n`).pipe(Effect.ignore)

/**
 * Whether `name` (matching `pattern`, whose first group is a pid) was made by a process that no
 * longer runs: left behind by an agent that was killed. A pid reused since is taken as alive.
 */
export const staleOwner = (name: string, pattern: RegExp): boolean => {
  const pid = Number(pattern.exec(name)?.[1])
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH"
  }
}

/** How many emptied per-call cgroups one sandbox layer keeps for its next calls. */
export const POOL_SIZE = 8

/** Pools made by this process: each names its cgroups apart, so layers built at once do not collide. */
let pools = 0

export interface PidsPool {
  /**
   * A pids cgroup for one call, capped at the pool's `max` processes: its `cgroup.procs` file.
   * When the scope closes, what is still in it is killed; an empty cgroup is kept for a later
   * call (up to `POOL_SIZE`), any other removed.
   */
  readonly acquire: Effect.Effect<string, PlatformError, Scope.Scope>
}

/**
 * Per-call pids cgroups under `parent`, reused: making and removing a cgroup on every call is
 * kernel work on the call's path. A cgroup is reused only when empty, and its cap is written
 * again before each call (nothing a call did to it carries over). The kept ones are removed when
 * the scope closes.
 */
export const pidsPool = Effect.fn("SandboxLimits.pidsPool")(function*(parent: string, max: number) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const prefix = `agent-tools-${process.pid}-${++pools}-`
  // What a process that ended without closing its layer (killed) kept: removed when empty.
  yield* fs.readDirectory(parent).pipe(
    Effect.flatMap((names) => Effect.forEach(names.filter((n) => staleOwner(n, /^agent-tools-(\d+)-\d+-\d+$/)), (n) => removeCgroup(path.join(parent, n)).pipe(Effect.ignore), { discard: true })),
    Effect.ignore
  )
  const free: Array<string> = []
  let made = 0
  let closed = false
  const remove = (dir: string) =>
    killMembers(fs, path.join(dir, "cgroup.procs")).pipe(
      Effect.andThen(removeCgroup(dir)),
      Effect.retry({ times: 20, schedule: Schedule.spaced(Duration.millis(50)) }),
      Effect.ignore
    )
  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      closed = true
      return Effect.forEach(free.splice(0), remove, { discard: true })
    })
  )
  const capped = (dir: string) => Effect.as(fs.writeFileString(path.join(dir, "pids.max"), `${max}\n`), dir)
  const fresh = Effect.suspend(() => {
    const dir = path.join(parent, `${prefix}${++made}`)
    return fs.makeDirectory(dir).pipe(Effect.andThen(capped(dir)))
  })
  const take = Effect.suspend(() => {
    const kept = free.pop()
    // One removed meanwhile (its cap cannot be written) is replaced.
    return kept === undefined ? fresh : capped(kept).pipe(Effect.catch(() => fresh))
  })
  // Empty (the usual end: the call's processes ended with its PID namespace): kept; else what is
  // left is killed and the cgroup removed.
  const giveBack = (dir: string) =>
    fs.readFileString(path.join(dir, "cgroup.procs")).pipe(
      Effect.orElseSucceed(() => "gone"),
      Effect.flatMap((members) => {
        if (!closed && members.trim() === "" && free.length < POOL_SIZE) {
          free.push(dir)
          return Effect.void
        }
        return remove(dir)
      })
    )
  const acquire = Effect.acquireRelease(take, giveBack).pipe(Effect.map((dir) => path.join(dir, "cgroup.procs")))
  return { acquire } satisfies PidsPool
})
