/**
 * The Linux sandbox for shell commands: each call runs under bubblewrap (`bwrap`) in fresh user,
 * PID and IPC namespaces, and unless the network is `allow` in a network namespace of its own or,
 * for a call of a session, the one its session's calls share (`BubblewrapSession`); under `proxy`,
 * HTTP(S) goes out through `NetworkProxy`. Its root holds only:
 *
 * - the system directories a program needs (`/usr`, `/bin`, `/lib*`, `/etc`, the directories on
 *   PATH, Node's install directory, `extraReadable`), read-only;
 * - the workspace, writable, and `extraWritable`, except its control files (`ProtectedPaths`:
 *   `.git/config`, `.git/hooks`, `agent-tools.json`, …), which are mounted read-only over it —
 *   each one that exists; its parent directories inside the workspace are mount points too, so
 *   neither a file nor a directory holding one can be renamed or replaced; one missing in an
 *   existing `.git` directory (`.git/commondir`) cannot be mounted, so if the call creates it, it
 *   is removed when the call ends;
 * - the paths approved for this call (the policy's `readable` / `writable`);
 * - a private temp directory at the OS temp dir's path, and a private, empty, writable home
 *   directory at HOME holding only the user's git config read-only — size-capped tmpfs mounts,
 *   gone when the call ends (tools that write caches or dot files there work; nothing of the real
 *   home leaks, nothing is left on the host);
 * - fresh `/dev` and `/proc` (only the call's own processes are visible).
 *
 * Root inside gains nothing (`SandboxHardening`): no capabilities, no nested user namespace, a
 * new session, the host's secret files masked, the keyring refused (`SandboxSeccomp`). A call
 * runs at most `maxProcesses` processes (`SandboxLimits`), and sees only the allow-listed
 * environment (`SandboxEnv`).
 *
 * Everything else is absent, so a read of an outside path fails with "No such file or directory"
 * and a write with "Read-only file system". The shell is PID 2 of its own namespace and bwrap's
 * init is PID 1: when the shell exits, or bwrap is killed, the kernel kills every process left in
 * the namespace — `setsid` and double-forked daemons included. `--die-with-parent` ends it if this
 * process dies.
 *
 * bwrap itself (and nsenter) is found once by absolute path (`TrustedProgram.find`: never in the
 * workspace, a relative PATH entry or a writable extra path) and checked again before each call.
 *
 * `layer` probes once, on first use, whether bwrap can create the namespaces here (user namespaces
 * may be disabled, or bwrap absent) and falls back to `Sandbox.none` with the reason,
 * logging a one-line warning (on the logger: stderr for the CLI and the MCP server).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import type * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type { PlatformError } from "effect/PlatformError"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as Scope from "effect/Scope"
import { EnvVar, ProtectedPaths, Sandbox, SandboxEnv, TrustedProgram } from "@agent-tools/core"
import { probeOnce } from "./BubblewrapProbe.ts"
import { bwrapArguments, HOME_FILES, splitPath, SYSTEM_DIRECTORIES, type SystemEntry, systemEntries } from "./BubblewrapArguments.ts"
import * as DataDir from "./DataDir.ts"
import * as BubblewrapSession from "./BubblewrapSession.ts"
import * as NetworkProxy from "./NetworkProxy.ts"
import * as SandboxHardening from "./SandboxHardening.ts"
import * as SandboxLimits from "./SandboxLimits.ts"
import * as SandboxSeccomp from "./SandboxSeccomp.ts"

export type Mode = "auto" | "required" | "off"

export interface Options {
  /** `auto` (default): sandbox when possible; `required`: refuse to run commands without it; `off`. */
  readonly mode?: Mode | undefined
  /** Default network access of a call (default `proxy`). */
  readonly network?: Sandbox.Network | undefined
  /** Absolute paths every call may write (besides the workspace). */
  readonly extraWritable?: ReadonlyArray<string> | undefined
  /** Absolute paths every call may read. */
  readonly extraReadable?: ReadonlyArray<string> | undefined
  /** The platform (default `process.platform`); bubblewrap runs on Linux only. */
  readonly platform?: string | undefined
  /** The bwrap program (default `bwrap` in a trusted PATH directory: `TrustedProgram.find`). */
  readonly bwrap?: string | undefined
  /** The workspace root: a bwrap inside it is never run (nor one in `extraWritable`). */
  readonly root?: string | undefined
  /** Directories on PATH, mounted read-only (default: the PATH variable). */
  readonly path?: ReadonlyArray<string> | undefined
  /** Host environment variables every command sees besides `SandboxEnv.PASSED` (names). */
  readonly env?: ReadonlyArray<string> | undefined
  /** The most processes a call may run at once (default `SandboxLimits.DEFAULT_MAX_PROCESSES`). */
  readonly maxProcesses?: number | undefined
  /** The size of the private temp directory and of the private home, each, in bytes (default `SandboxLimits.DEFAULT_TMP_MAX_BYTES`). */
  readonly tmpMaxBytes?: number | undefined
  /** The nsenter program calls of a session join its network with (default `nsenter` in a trusted PATH directory). */
  readonly nsenter?: string | undefined
}

/** A call's network when neither the config nor the policy says: its own, HTTP(S) through the proxy. */
export const DEFAULT_NETWORK: Sandbox.Network = "proxy"

export { probe, probeOnce, type Probe } from "./BubblewrapProbe.ts"
export {
  bwrapArguments,
  HOME_FILES,
  protectedMounts,
  SYSTEM_DIRECTORIES,
  type SystemEntry
} from "./BubblewrapArguments.ts"

/** What a call is hardened with on this host, and what cannot be enforced here (in sentences). */
const hardeningOf = Effect.fn("Bubblewrap.hardening")(function*(options: Options) {
  const unenforced: Array<string> = []
  const seccomp = SandboxSeccomp.forArch()
  if (seccomp === undefined) unenforced.push(`the kernel keyring stays reachable (no seccomp filter for ${process.arch})`)
  const maxProcesses = options.maxProcesses ?? SandboxLimits.DEFAULT_MAX_PROCESSES
  const pids = yield* SandboxLimits.detectPids()
  if (pids._tag === "none") unenforced.push(`no process limit: ${pids.reason}`)
  return {
    seccomp,
    secrets: yield* SandboxHardening.existingSecrets(),
    pids: pids._tag === "cgroup" ? pids.parent : undefined,
    ownCgroup: pids._tag === "cgroup" ? pids.own : undefined,
    maxProcesses,
    tmpMaxBytes: options.tmpMaxBytes ?? SandboxLimits.DEFAULT_TMP_MAX_BYTES,
    unenforced
  }
})

/**
 * The program that starts bwrap: a shell that moves itself into the call's pids cgroup (so every
 * process of the call counts) and opens the seccomp filter on the descriptor bwrap reads, then
 * replaces itself with bwrap (same pid and process group), or with nsenter, which enters the
 * session's network and replaces itself with bwrap in turn. Without a cgroup or a filter, bwrap
 * (or nsenter) itself.
 */
const launcher = (options: {
  readonly bwrap: string
  readonly filter: string | undefined
  readonly procs: string | undefined
  /** nsenter and its arguments, when the call joins its session's network. */
  readonly join?: ReadonlyArray<string> | undefined
  /** A terminal call: bwrap ignores the terminal's signals (`TERMINAL_SIGNALS`). */
  readonly terminal?: boolean | undefined
}) => {
  const [program, ...rest] = [...(options.join ?? []), options.bwrap]
  if (options.filter === undefined && options.procs === undefined && options.terminal !== true) return { command: program!, args: rest }
  const ignore = options.terminal === true ? `trap '' ${TERMINAL_SIGNALS.split(",").join(" ")}; ` : ""
  const cgroup = options.procs === undefined ? "" : `echo $$ >"$1" || exit 125; shift; `
  const open = options.filter === undefined ? "" : ` ${SandboxSeccomp.FD}<"$0"`
  return {
    command: "/bin/sh",
    args: ["-c", `${ignore}${cgroup}exec "$@"${open}`, options.filter ?? "sh", ...(options.procs === undefined ? [] : [options.procs]), program!, ...rest]
  }
}

/**
 * The signals a terminal sends its foreground process group (Ctrl-C, Ctrl-\, Ctrl-Z). bwrap (and
 * its namespace's init) are in that group too, and die of SIGINT, taking the whole call with them
 * (`--die-with-parent`): in a terminal call they ignore these, and the command inside gets them
 * back to their defaults (`env --default-signal`), so Ctrl-C reaches only the program.
 */
const TERMINAL_SIGNALS = "INT,QUIT,TSTP"
/** The env inside the sandbox (the host's /usr, read-only) that restores them. */
const ENV = "/usr/bin/env"

/** The system directories as bwrap mounts: each bound read-only, or its symbolic link recreated. */
const systemMounts = (system: ReadonlyArray<SystemEntry>): Array<string> =>
  system.flatMap((e) => e._tag === "symlink" ? ["--symlink", e.target, e.path] : ["--ro-bind", e.path, e.path])

/**
 * The program the sandbox runs, by absolute path: the configured one checked, or `name` found in
 * a trusted directory of PATH; never one inside the workspace or a directory commands may write.
 */
const trustedProgram = (name: string, configured: string | undefined, options: Options) =>
  Effect.gen(function*() {
    const untrusted = [...(options.root === undefined ? [] : [options.root]), ...(options.extraWritable ?? [])]
    if (configured !== undefined) return yield* TrustedProgram.check(configured, untrusted)
    const pathVariable = yield* EnvVar.option("PATH")
    return yield* TrustedProgram.find([name], { path: Option.getOrElse(pathVariable, () => "").split(":"), untrusted })
  })

/**
 * Whether calls of one session can share a network namespace here (`BubblewrapSession`): nsenter
 * found in a trusted directory and a join probed; the layer's session namespaces when they can.
 */
const sessionsOf = Effect.fn("Bubblewrap.sessions")(function*(
  options: { readonly bwrap: string; readonly host: Host; readonly nestedUserNamespaces?: string | undefined }
) {
  const mounts = systemMounts(options.host.system)
  const probe = yield* joinProbeOf(options.bwrap, options.host.nsenter, mounts, options.nestedUserNamespaces !== undefined)
  if (!probe.ok) return probe
  const sessions = yield* BubblewrapSession.make({ bwrap: options.bwrap, join: probe.join, mounts })
  return { ok: true as const, join: probe.join, sessions }
})

/** Whether a call can join a session's network here (answered once per process: `probeJoin`). */
const joinProbeOf = (
  bwrap: string,
  nsenter: Result.Result<string, TrustedProgram.UntrustedProgramError>,
  mounts: ReadonlyArray<string>,
  nestedUserNamespaces: boolean
): Effect.Effect<BubblewrapSession.JoinProbe, never, ChildProcessSpawner.ChildProcessSpawner> =>
  nsenter._tag === "Failure"
    ? Effect.succeed({ ok: false as const, reason: `${nsenter.failure.message} (nsenter is in util-linux)` })
    : BubblewrapSession.probeJoin({ bwrap, nsenter: nsenter.success, mounts, nestedUserNamespaces })

/** What tells a file's state apart: its inode, size, mode and modification time. */
const stampOf = (info: FileSystem.File.Info) =>
  `${Option.getOrUndefined(info.ino)} ${info.size} ${info.mode} ${Option.getOrUndefined(info.mtime)?.getTime()}`

/**
 * What the sandbox needs to know of the host, whatever the probe finds: the system paths, the
 * files of the user's home it guards, nsenter, and the hardening. Looked at while `bwrap` is
 * probed, and the session probe run as soon as it can.
 */
const hostOf = Effect.fn("Bubblewrap.host")(function*(options: Options, bwrap: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const nodeDir = path.dirname(path.dirname(process.execPath))
  const pathVariable = yield* EnvVar.option("PATH")
  const onPath = options.path ?? splitPath(Option.getOrUndefined(pathVariable))
  const homeVariable = yield* EnvVar.option("HOME")
  const homeValue = Option.getOrUndefined(homeVariable)
  const home = homeValue !== undefined && homeValue.startsWith("/") && homeValue !== "/" ? homeValue : undefined
  const homeFile = (file: string) =>
    home === undefined
      ? Effect.succeed(undefined)
      : Effect.map(fs.exists(path.join(home, file)).pipe(Effect.orElseSucceed(() => false)), (exists) => exists ? path.join(home, file) : undefined)
  // First what the session probe needs, alone: the rest would queue before it in the thread pool.
  const [system, nsenter] = yield* Effect.all([
    systemEntries([...SYSTEM_DIRECTORIES, ...onPath, nodeDir]),
    Effect.result(trustedProgram("nsenter", options.nsenter, options))
  ], { concurrency: 2 })
  // The session probe assumes what the probe finds on most hosts (bwrap can forbid nested user
  // namespaces); where it finds otherwise, the service probes again with them allowed.
  const [, homeFiles, hardening] = yield* Effect.all([
    joinProbeOf(bwrap, nsenter, systemMounts(system), false),
    Effect.forEach(HOME_FILES, homeFile, { concurrency: "unbounded" }),
    hardeningOf(options)
  ], { concurrency: "unbounded" })
  return { system, home, homeFiles: homeFiles.filter((f) => f !== undefined), nsenter, hardening }
})
type Host = Effect.Success<ReturnType<typeof hostOf>>

/** The sandbox service for a probed bwrap; `host` when it was looked at already (while probing). */
export const make = Effect.fn("Bubblewrap.make")(function*(
  options: Options & { readonly backend: string; readonly bwrap: string; readonly host?: Host | undefined; readonly nestedUserNamespaces?: string | undefined }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const layerScope = yield* Effect.scope
  const network = options.network ?? DEFAULT_NETWORK
  const host = options.host ?? (yield* hostOf(options, options.bwrap))
  const { system, home, homeFiles } = host
  // The user's config directory (trusted config, trusted folders): never writable from inside.
  const userConfig = yield* DataDir.configDir(options.platform ?? process.platform)
  const absolute = (paths: ReadonlyArray<string> | undefined) => (paths ?? []).map((p) => path.resolve(p))
  const extraWritable = absolute(options.extraWritable)
  const extraReadable = absolute(options.extraReadable)
  const sessions = yield* sessionsOf({ bwrap: options.bwrap, host, nestedUserNamespaces: options.nestedUserNamespaces })
  const hardening = {
    ...host.hardening,
    unenforced: [
      ...(options.nestedUserNamespaces === undefined ? [] : [options.nestedUserNamespaces]),
      ...host.hardening.unenforced,
      ...(sessions.ok ? [] : [`localhost is not shared between a session's calls: ${sessions.reason}`])
    ]
  }
  // The host's passed variables, read once: the environment does not change while the process runs.
  const environment = yield* SandboxEnv.environment(options.env ?? [])
  const status: Sandbox.Status = {
    sandboxed: true,
    backend: options.backend,
    network,
    readable: [...system.map((e) => e.path), ...extraReadable],
    writable: extraWritable,
    ...(hardening.unenforced.length > 0 ? { unenforced: hardening.unenforced } : {})
  }
  const platform = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))
  const setup = (cause: PlatformError) =>
    new Sandbox.SandboxError({ reason: "setup", message: `cannot create the sandbox's files: ${cause.message}`, cause })
  /**
   * The files bwrap reads, made once per layer in a directory of the OS temp dir (removed when the
   * layer closes) on its first call: the seccomp filter, and the empty file that masks secrets. No command can
   * change them: the directory lies under the private temp directory of a call that hides the
   * outside, and is mounted read-only into every call that could write it (`readOnly`). They are
   * still checked before each call (same inode, size, mode and time, as made), and made anew if
   * anything else changed them (a temp cleaner removed them).
   */
  const makeFiles = Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      fs.makeTempDirectory({ prefix: `agent-tools-sandbox-${process.pid}-` }),
      (dir) =>
        fs.remove(dir, { recursive: true, force: true }).pipe(
          Effect.retry({ times: 5, schedule: Schedule.spaced(Duration.millis(50)) }),
          Effect.ignore
        )
    ).pipe(Scope.provide(layerScope))
    // Those of agents that were killed before their layer closed are removed.
    const tmp = path.dirname(dir)
    yield* fs.readDirectory(tmp).pipe(
      Effect.flatMap((names) =>
        Effect.forEach(
          names.filter((n) => SandboxLimits.staleOwner(n, /^agent-tools-sandbox-(\d+)-[^/]+$/)),
          (n) => fs.remove(path.join(tmp, n), { recursive: true, force: true }).pipe(Effect.ignore),
          { discard: true }
        )
      ),
      Effect.ignore
    )
    const empty = path.join(dir, "empty")
    yield* fs.writeFileString(empty, "", { mode: 0o444 })
    const filter = path.join(dir, "seccomp")
    if (hardening.seccomp !== undefined) yield* fs.writeFile(filter, hardening.seccomp, { mode: 0o444 })
    const paths = hardening.seccomp === undefined ? [empty] : [empty, filter]
    const stamps = yield* Effect.forEach(paths, (p) => Effect.map(fs.stat(p), stampOf))
    return { dir, empty, filter, paths, stamps }
  }).pipe(Effect.mapError(setup))
  // The calls' pids cgroups, reused while empty; removed when the layer closes.
  const pids = hardening.pids === undefined ? undefined : yield* SandboxLimits.pidsPool(hardening.pids, hardening.maxProcesses)
  // Whether env can restore the terminal's signals (coreutils 8.31 and later), asked on the first terminal call.
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const restoresSignals = yield* Effect.cached(
    Effect.suspend(() =>
      spawner.exitCode(ChildProcess.make(ENV, [`--default-signal=${TERMINAL_SIGNALS}`, "/bin/true"], { stdin: "ignore", stdout: "ignore", stderr: "ignore", detached: false }))
    ).pipe(
      Effect.map((code) => Number(code) === 0),
      Effect.orElseSucceed(() => false),
      Effect.tap((ok) => ok ? Effect.void : Effect.logWarning("Sandbox: env cannot restore signals here (coreutils 8.31 or later needed): Ctrl-C ends a whole terminal job"))
    )
  )
  let files: Effect.Success<typeof makeFiles> | undefined
  const checkedFiles = Effect.suspend(() => {
    const known = files
    if (known === undefined) return Effect.tap(makeFiles, (made) => Effect.sync(() => files = made))
    return Effect.forEach(known.paths, (p) => Effect.map(fs.stat(p), stampOf).pipe(Effect.orElseSucceed(() => "")), { concurrency: "unbounded" })
      .pipe(
        Effect.flatMap((stamps) =>
          stamps.every((stamp, i) => stamp === known.stamps[i])
            ? Effect.succeed(known)
            : Effect.tap(makeFiles, (made) => Effect.sync(() => files = made))
        )
      )
  })
  // The wait of the launcher's move into its call's cgroup, begun early (at `prepare`, else when
  // the wrap starts); not waited for: it only has to begin before the launcher moves.
  // One write at a time: a second one would only hold another thread of libuv's pool (which the
  // wrap's checks use) for the same wait.
  const ownCgroup = pids === undefined ? undefined : hardening.ownCgroup
  let waiting = false
  const prepare = ownCgroup === undefined ? Effect.void : Effect.suspend(() => {
    if (waiting) return Effect.void
    waiting = true
    const write = SandboxLimits.startMigrationWait(fs, ownCgroup).pipe(Effect.ensuring(Effect.sync(() => waiting = false)))
    return Effect.asVoid(Effect.forkDetach(write))
  })
  const wrap = Effect.fn("Bubblewrap.wrap")(function*(command: Sandbox.Command, policy: Sandbox.Policy) {
    const untrusted = [policy.root, ...extraWritable]
    // bwrap (and nsenter) were trusted when the layer found them; they must still be, now that commands have run.
    const trusted = (program: string) =>
      TrustedProgram.check(program, untrusted).pipe(
        Effect.mapError((e) => new Sandbox.SandboxError({ reason: "setup", message: e.message })),
        platform
      )
    yield* prepare
    const callNetwork = policy.network ?? network
    const hidden = policy.outside !== "writable"
    // The steps below do not depend on each other: they run at once.
    const [, guarded, files, procs, join] = yield* Effect.all([
      trusted(options.bwrap),
      // Read now, not when the layer was built: the user may have set core.hooksPath since.
      platform(ProtectedPaths.resolve(policy.root)),
      checkedFiles,
      pids === undefined ? Effect.succeed(undefined) : pids.acquire.pipe(
        Effect.mapError((cause) =>
          new Sandbox.SandboxError({ reason: "setup", message: `cannot create the call's pids cgroup: ${cause.message}`, cause })
        )
      ),
      // A call of a session enters the session's network (its loopback shared with the session's
      // other calls) unless it uses the host's.
      policy.session === undefined || callNetwork === "allow" || !sessions.ok
        ? Effect.succeed(undefined)
        : Effect.andThen(trusted(sessions.join.nsenter), sessions.sessions.join(policy.session))
    ], { concurrency: "unbounded" })
    // What the call could create in `.git` unprotected is removed once its processes are gone.
    const absent = yield* platform(ProtectedPaths.absentGitEntries(guarded))
    if (absent.length > 0) {
      yield* Effect.addFinalizer(() =>
        platform(ProtectedPaths.removeCreated(absent)).pipe(
          Effect.flatMap((removed) =>
            removed.length === 0
              ? Effect.void
              : Effect.logWarning(`Sandbox: removed git control files a command created: ${removed.join(", ")}`)
          )
        )
      )
    }
    const { dir, empty, filter } = files
    // Under `proxy`: the call's proxy, listening before bwrap starts, closed with the call's scope.
    const proxy = callNetwork === "proxy" ? yield* platform(NetworkProxy.start({ authorize: policy.authorize })) : undefined
    const args = bwrapArguments({
      policy,
      network: callNetwork,
      sessionNetwork: join !== undefined,
      system,
      extraWritable,
      extraReadable,
      tmp: hidden ? { target: path.dirname(dir), size: hardening.tmpMaxBytes } : undefined,
      home: hidden && home !== undefined ? { target: home, files: homeFiles, size: hardening.tmpMaxBytes } : undefined,
      nestedUserNamespaces: options.nestedUserNamespaces !== undefined,
      seccompFd: hardening.seccomp === undefined ? undefined : SandboxSeccomp.FD,
      masks: { secrets: hardening.secrets, empty },
      protected: guarded.existing,
      // The pids cgroups too: a call that sees the host's `/sys` must not lift its own cap.
      readOnly: [userConfig, dir, ...(hardening.pids === undefined ? [] : [hardening.pids])]
    })
    const proxied = proxy === undefined ? command : proxy.wrap(command)
    // Where env cannot restore the signals, Ctrl-C ends the whole terminal call instead.
    const terminal = policy.terminal === true && (yield* restoresSignals)
    const inner = terminal ? { command: ENV, args: [`--default-signal=${TERMINAL_SIGNALS}`, proxied.command, ...proxied.args] } : proxied
    if (proxy !== undefined) args.push(...proxy.bwrapArguments)
    const start = launcher({ bwrap: options.bwrap, filter: hardening.seccomp === undefined ? undefined : filter, procs, join, terminal })
    return {
      command: start.command,
      args: [...start.args, ...args, "--", inner.command, ...inner.args],
      // Passed as the spawned process's environment, not as `--setenv` arguments: a command line
      // is readable by every user of the host, an environment only by its owner.
      env: { ...environment, ...command.env },
      sandboxed: true
    } satisfies Sandbox.Wrapped
  })
  return { status: Effect.succeed(status), wrap, prepare } satisfies Sandbox.Service
})

/**
 * The Sandbox for `options.mode`: bubblewrap when it works here, else `Sandbox.none` with the
 * reason (refusing every command under `required`). Whether bwrap works is probed on first use
 * (the first `status` or `wrap`, i.e. when the bash tool is built), not when the layer is built:
 * a process that never runs a command spawns nothing. Logs one warning, when the first command is
 * wrapped, if commands run unconfined, except under `off`, which is the user's explicit choice:
 * a host that never runs bash is not told.
 */
export const layer = (options: Options = {}): Layer.Layer<
  Sandbox.Sandbox,
  never,
  FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> =>
  Layer.effect(
    Sandbox.Sandbox,
    Effect.gen(function*() {
      const mode = options.mode ?? "auto"
      if (mode === "off") return Sandbox.none("sandbox.mode is \"off\"", { env: options.env })
      // With the layer's scope: the session namespaces the service holds are let go when it closes.
      const services = yield* Effect.context<FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner | Scope.Scope>()
      const resolved = yield* Effect.cached(resolve(options, mode).pipe(Effect.provideContext(services)))
      return {
        status: Effect.flatMap(resolved, (service) => service.status),
        wrap: (command, policy) => Effect.flatMap(resolved, (service) => service.wrap(command, policy)),
        prepare: Effect.flatMap(resolved, (service) => service.prepare ?? Effect.void)
      } satisfies Sandbox.Service
    })
  )

/** Probes bwrap and builds the service it allows. */
const resolve = (options: Options, mode: Exclude<Mode, "off">) =>
  Effect.gen(function*() {
    const platform = options.platform ?? process.platform
    const required = mode === "required"
    const fallback = (reason: string) =>
      Effect.sync((): Sandbox.Service => {
        const service = Sandbox.none(reason, { required, env: options.env })
        const warning = Sandbox.warning({ sandboxed: false, reason, required })
        if (warning === null) return service
        let warned = false
        const once = Effect.suspend(() => {
          if (warned) return Effect.void
          warned = true
          return Effect.logWarning(warning)
        })
        return { ...service, wrap: (command, policy) => Effect.andThen(once, service.wrap(command, policy)) }
      })
    if (platform !== "linux") return yield* fallback(`no sandbox is implemented for ${platform} (bubblewrap needs Linux)`)
    const found = yield* Effect.result(trustedProgram("bwrap", options.bwrap, options))
    if (found._tag === "Failure") {
      const install = "(install bubblewrap: apt-get install bubblewrap, dnf install bubblewrap)"
      return yield* fallback(
        found.failure.reason === "untrusted"
          ? found.failure.message
          : options.bwrap === undefined
          ? `${found.failure.message} ${install}`
          : `${options.bwrap} not found ${install}`
      )
    }
    const bwrap = found.success
    const [result, host] = yield* Effect.all([probeOnce(bwrap, options.network ?? DEFAULT_NETWORK), hostOf(options, bwrap)], { concurrency: 2 })
    if (!result.ok) return yield* fallback(result.reason)
    const service = yield* make({ ...options, backend: result.backend, bwrap, host, nestedUserNamespaces: result.nestedUserNamespaces })
    yield* Effect.logDebug(`Sandbox: bash commands run in ${result.backend} (network ${options.network ?? DEFAULT_NETWORK})`)
    const status = yield* service.status
    if (status.sandboxed && status.unenforced !== undefined) {
      yield* Effect.logDebug(`Sandbox: not enforced here: ${status.unenforced.join("; ")}`)
    }
    return service
  }).pipe(Effect.withSpan("Bubblewrap.resolve"))
