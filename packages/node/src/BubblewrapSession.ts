/**
 * One loopback per session: the calls of one session (foreground calls and background jobs) share
 * one network namespace under `proxy` and `deny`, so a server a job started on `127.0.0.1` is
 * reachable from the session's later calls; another session's calls, and the host, have a loopback
 * of their own and cannot reach it.
 *
 * bwrap can only make a new network namespace, not join one, so the namespace is made once per
 * session and every call enters it before bwrap starts:
 *
 * - On the session's first call a short-lived holder, `bwrap --unshare-user --unshare-net` with
 *   only the system directories mounted read-only, brings the namespace's loopback up and runs a
 *   fixed `/bin/sh` script that prints its pid and waits. This process opens the holder's
 *   `/proc/<pid>/ns/net` and `ns/user` (after checking that the pid is the holder's child, and
 *   that its namespace is not this process's own), then ends the holder: the open descriptors
 *   keep both namespaces alive with no process in them, so nothing can die and be replaced by
 *   another process under the same pid.
 * - Each call runs `nsenter` (found by absolute path like bwrap, checked before each call) on
 *   this process's descriptors, `/proc/<agent pid>/fd/<n>`, then bwrap without `--unshare-net`:
 *   as root `nsenter --net=…`; unprivileged, the namespace belongs to the holder's user
 *   namespace, which this user owns, so `nsenter --user=… --net=… --preserve-credentials` (bwrap
 *   then runs with the same uid and no capabilities, and makes its own user namespace inside).
 *   The descriptors are close-on-exec: no command ever holds them.
 * - The descriptors belong to the sandbox layer: let go when its scope closes, and for the least
 *   recently used session when more than `SandboxLimits.MAX_SESSIONS` are kept (its namespace then
 *   lives on only while its running calls do; its next call gets a new one). A descriptor is
 *   closed only once no call that may still enter through it is running, so its number is never
 *   reused under a call (which would then enter whatever the new descriptor is).
 *
 * Whether this works here is probed once per process (`probeJoin`); where it does not, calls keep
 * a loopback of their own and the sandbox's status says why.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { Sandbox } from "@agent-tools/core"
import { closeSync, fstatSync, openSync, readFileSync, statSync } from "node:fs"
import * as SandboxHardening from "./SandboxHardening.ts"
import * as SandboxLimits from "./SandboxLimits.ts"

const START_TIMEOUT = Duration.seconds(10)

/** Run by the holder's `/bin/sh`: its pid (the same outside, no PID namespace), then wait for stdin to close. */
const HOLDER_SCRIPT = "echo $$; read _"

/** How a call enters a session's namespace: only the network (root), or the user namespace first. */
export type Entry = "net" | "user"

/** A session's network namespace, held open by this process. */
export interface Namespace {
  /** The descriptors of the holder's network and user namespaces in this process. */
  readonly net: number
  readonly user: number
  /** The namespace's inode (`/proc/…/ns/net`), to tell it apart. */
  readonly inode: number
}

/** The holder's bwrap arguments: a user and network namespace, the system directories read-only, nothing else. */
export const holderArguments = (mounts: ReadonlyArray<string>): Array<string> => [
  "--die-with-parent",
  ...SandboxHardening.FLAGS,
  "--unshare-user",
  "--unshare-net",
  "--unshare-ipc",
  ...mounts,
  "--",
  "/bin/sh",
  "-c",
  HOLDER_SCRIPT
]

/** The nsenter command line that runs the rest of it (bwrap) in `namespace`. */
export const joinArguments = (nsenter: string, entry: Entry, namespace: Namespace, pid: number = process.pid): Array<string> => {
  const fd = (n: number) => `/proc/${pid}/fd/${n}`
  return entry === "net"
    ? [nsenter, `--net=${fd(namespace.net)}`]
    : [nsenter, `--user=${fd(namespace.user)}`, `--net=${fd(namespace.net)}`, "--preserve-credentials"]
}

const setupError = (message: string, cause?: unknown) =>
  new Sandbox.SandboxError({ reason: "setup", message: `cannot make the session's network namespace: ${message}`, cause })

/** The parent pid of `pid` (field 4 of /proc/<pid>/stat, after the command name). */
const parentOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

/**
 * Opens a namespace file for the scope's lifetime. Through node:fs, not the FileSystem service: a
 * descriptor's number is what nsenter needs, and the service does not give it.
 */
const openNamespace = (path: string) =>
  Effect.acquireRelease(
    Effect.try({ try: () => openSync(path, "r"), catch: (cause) => setupError(`cannot open ${path}: ${String(cause)}`, cause) }),
    (fd) => Effect.sync(() => closeSync(fd))
  )

/**
 * Makes a network namespace with its loopback up, held by descriptors open in `scope`: starts the
 * holder, opens its namespaces, ends it.
 */
export const create = Effect.fn("BubblewrapSession.create")(function*(
  bwrap: string,
  mounts: ReadonlyArray<string>,
  scope: Scope.Scope
): Effect.fn.Return<Namespace, Sandbox.SandboxError, ChildProcessSpawner.ChildProcessSpawner> {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  return yield* Effect.scoped(Effect.gen(function*() {
    // Not detached, like the probes: the holder leaves no process group behind to wait for.
    const handle = yield* spawner.spawn(
      ChildProcess.make(bwrap, holderArguments(mounts), { stdin: "pipe", detached: false, forceKillAfter: "1 second", env: {}, extendEnv: false })
    ).pipe(Effect.mapError((e) => setupError(`bwrap could not start: ${e.message}`, e)))
    const first = yield* handle.all.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runHead,
      Effect.timeoutOption(START_TIMEOUT),
      Effect.mapError((e) => setupError(e.message, e))
    )
    const line = Option.getOrUndefined(Option.flatten(first))?.trim() ?? ""
    if (!/^\d+$/.test(line)) {
      return yield* setupError(Option.isNone(first) ? "bwrap did not start in time" : `bwrap failed: ${line || "no output"}`)
    }
    const pid = Number(line)
    // Still ours: the shell bwrap started for this holder, alive (a pid is reused only after its
    // parent reaped it, and bwrap reaps it only when it exits, which it has not).
    if (parentOf(pid) !== Number(handle.pid)) return yield* setupError(`process ${pid} is not the holder bwrap started`)
    const net = yield* openNamespace(`/proc/${pid}/ns/net`).pipe(Scope.provide(scope))
    const user = yield* openNamespace(`/proc/${pid}/ns/user`).pipe(Scope.provide(scope))
    const inodes = yield* Effect.try({
      try: () => ({ held: fstatSync(net).ino, own: statSync("/proc/self/ns/net").ino }),
      catch: (cause) => setupError(String(cause), cause)
    })
    // Checked on the open descriptor: never this process's own network (the host's loopback).
    if (inodes.held === inodes.own) return yield* setupError("the holder shares this process's network")
    const inode = inodes.held
    return { net, user, inode }
  }))
})

export interface Join {
  /** The trusted nsenter. */
  readonly nsenter: string
  readonly entry: Entry
}

/** Whether calls can join a session's namespace here, and how; or why not. */
export type JoinProbe = { readonly ok: true; readonly join: Join } | { readonly ok: false; readonly reason: string }

const joinProbes = new Map<string, JoinProbe>()

/**
 * Makes a namespace, then runs bwrap (with the isolation flags of a call, but `--unshare-net`)
 * inside it through nsenter, each entry tried (the network alone first where this process is
 * root), and checks that the process inside sees the holder's namespace. Answered once per process
 * for one bwrap and nsenter.
 */
export const probeJoin = (options: {
  readonly bwrap: string
  readonly nsenter: string
  readonly mounts: ReadonlyArray<string>
  readonly nestedUserNamespaces: boolean
}): Effect.Effect<JoinProbe, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.suspend(() => {
    const key = `${options.bwrap} ${options.nsenter} ${options.nestedUserNamespaces}`
    const known = joinProbes.get(key)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.tap(probeJoinNow(options), (result) => Effect.sync(() => joinProbes.set(key, result)))
  })

const probeJoinNow = Effect.fn("BubblewrapSession.probeJoin")(function*(options: {
  readonly bwrap: string
  readonly nsenter: string
  readonly mounts: ReadonlyArray<string>
  readonly nestedUserNamespaces: boolean
}): Effect.fn.Return<JoinProbe, never, ChildProcessSpawner.ChildProcessSpawner> {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const scope = yield* Scope.make()
  const attempt = Effect.gen(function*() {
    const namespace = yield* create(options.bwrap, options.mounts, scope)
    const entries: ReadonlyArray<Entry> = process.getuid?.() === 0 ? ["net", "user"] : ["user"]
    const reasons: Array<string> = []
    for (const entry of entries) {
      const [nsenter, ...prefix] = joinArguments(options.nsenter, entry, namespace)
      const args = [
        ...prefix,
        options.bwrap,
        "--die-with-parent",
        ...SandboxHardening.FLAGS,
        ...SandboxHardening.userNamespace(options.nestedUserNamespaces),
        "--unshare-pid",
        ...options.mounts,
        "--proc",
        "/proc",
        "--",
        "/bin/sh",
        "-c",
        "readlink /proc/self/ns/net"
      ]
      const output = yield* spawner.string(ChildProcess.make(nsenter!, args, { stdin: "ignore", detached: false, stderr: "pipe" })).pipe(
        Effect.timeoutOption(START_TIMEOUT),
        Effect.result
      )
      if (output._tag === "Failure") reasons.push(`${entry}: ${output.failure.message}`)
      else if (Option.isNone(output.success)) reasons.push(`${entry}: nsenter did not finish in time`)
      else if (output.success.value.trim() === `net:[${namespace.inode}]`) return { ok: true as const, join: { nsenter: options.nsenter, entry } }
      else reasons.push(`${entry}: the call did not see the session's namespace (${output.success.value.trim() || "no output"})`)
    }
    return { ok: false as const, reason: `nsenter cannot enter it (${reasons.join("; ")})` }
  })
  const result = yield* Effect.result(attempt)
  yield* Scope.close(scope, Exit.void)
  return result._tag === "Success" ? result.success : { ok: false as const, reason: result.failure.message }
})

/** The namespaces of a layer's sessions. */
export interface Sessions {
  /**
   * The nsenter command line that puts a call of `session` in the session's namespace (made on its
   * first call). The namespace is held for the call until `Scope` closes, even if the session is
   * let go meanwhile: a descriptor is never closed, and its number reused, while a call may still
   * enter through it.
   */
  readonly join: (session: string) => Effect.Effect<ReadonlyArray<string>, Sandbox.SandboxError, Scope.Scope>
  /** The sessions whose namespace is held now, least recently used first. */
  readonly held: Effect.Effect<ReadonlyArray<string>>
}

interface Held {
  /** Where the namespace's descriptors are open. */
  readonly scope: Scope.Closeable
  readonly namespace: Effect.Effect<Namespace, Sandbox.SandboxError>
  /** Calls using it now. */
  users: number
  /** Let go (the layer closed, or more sessions came): closed when its last call ends. */
  released: boolean
}

/**
 * The session namespaces of one sandbox layer: each made on its session's first call, kept until
 * the layer's scope closes; past `max` sessions the least recently used is let go.
 */
export const make = Effect.fn("BubblewrapSession.make")(function*(options: {
  readonly bwrap: string
  readonly join: Join
  readonly mounts: ReadonlyArray<string>
  readonly max?: number | undefined
}): Effect.fn.Return<Sessions, never, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> {
  const services = yield* Effect.context<ChildProcessSpawner.ChildProcessSpawner>()
  const max = options.max ?? SandboxLimits.MAX_SESSIONS
  // Insertion order is use order: an entry is moved to the end on each use.
  const sessions = new Map<string, Held>()
  const lock = yield* Semaphore.make(1)
  let closed = false

  const closeIfUnused = (held: Held) => held.released && held.users === 0 ? Scope.close(held.scope, Exit.void) : Effect.void
  const release = (held: Held) =>
    Effect.suspend(() => {
      held.released = true
      return closeIfUnused(held)
    })
  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      closed = true
      const all = [...sessions.values()]
      sessions.clear()
      return Effect.forEach(all, release, { discard: true })
    })
  )

  /** The session's entry, made if new, counted as used by one more call. */
  const acquire = (session: string) =>
    lock.withPermits(1)(Effect.gen(function*() {
      if (closed) return yield* setupError("the sandbox layer was closed")
      let held = sessions.get(session)
      if (held !== undefined) sessions.delete(session)
      else {
        const scope = yield* Scope.make()
        const namespace = yield* Effect.cached(create(options.bwrap, options.mounts, scope).pipe(Effect.provideContext(services)))
        held = { scope, namespace, users: 0, released: false }
      }
      sessions.set(session, held)
      held.users++
      while (sessions.size > max) {
        const [oldest, old] = sessions.entries().next().value!
        sessions.delete(oldest)
        yield* release(old)
      }
      return held
    }))

  const join = Effect.fn("BubblewrapSession.join")(function*(session: string) {
    const held = yield* Effect.acquireRelease(acquire(session), (held) =>
      Effect.suspend(() => {
        held.users--
        return closeIfUnused(held)
      }))
    const namespace = yield* held.namespace.pipe(
      // A failed start is not kept: the session's next call tries again.
      Effect.tapError(() =>
        Effect.suspend(() => {
          if (sessions.get(session) === held) sessions.delete(session)
          return release(held)
        })
      )
    )
    return joinArguments(options.join.nsenter, options.join.entry, namespace)
  })
  return { join, held: Effect.sync(() => [...sessions.keys()]) } satisfies Sessions
})
