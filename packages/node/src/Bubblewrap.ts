/**
 * The Linux sandbox for shell commands: each call runs under bubblewrap (`bwrap`) in fresh user,
 * PID and IPC namespaces (and a network namespace of its own unless the network is `allow`; under
 * `proxy`, HTTP(S) goes out through `NetworkProxy`), on a root that holds only:
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
 *   directory at HOME holding only the user's git config read-only — both deleted when the
 *   call ends (tools that write caches or dot files there work; nothing of the real home leaks);
 * - fresh `/dev` and `/proc` (only the call's own processes are visible).
 *
 * Everything else is absent, so a read of an outside path fails with "No such file or directory"
 * and a write with "Read-only file system". The shell is PID 2 of its own namespace and bwrap's
 * init is PID 1: when the shell exits, or bwrap is killed, the kernel kills every process left in
 * the namespace — `setsid` and double-forked daemons included. `--die-with-parent` ends it if this
 * process dies.
 *
 * bwrap itself is found once by absolute path (`TrustedProgram.find`: never in the workspace, a
 * relative PATH entry or a writable extra path) and checked again before each call.
 *
 * `layer` probes once, on first use, whether bwrap can create the namespaces here (user namespaces
 * may be disabled, or bwrap absent) and falls back to `Sandbox.unsandboxed` with the reason,
 * logging a one-line warning (on the logger: stderr for the CLI and the MCP server).
 */
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { ProtectedPaths, Sandbox, TrustedProgram } from "@agent-tools/core"
import * as NetworkProxy from "./NetworkProxy.ts"

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
}

/** A call's network when neither the config nor the policy says: its own, HTTP(S) through the proxy. */
export const DEFAULT_NETWORK: Sandbox.Network = "proxy"

/** The system directories mounted read-only when they exist (a symbolic link stays a link). */
export const SYSTEM_DIRECTORIES: ReadonlyArray<string> = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/nix/store",
  "/run/systemd/resolve"
]

/** The user's files every call sees read-only in its private home (no secrets: no keys, no tokens). */
export const HOME_FILES: ReadonlyArray<string> = [".gitconfig", ".config/git"]

/** A system path: a directory bound read-only, or a symbolic link recreated as it is. */
export type SystemEntry =
  | { readonly _tag: "bind"; readonly path: string }
  | { readonly _tag: "symlink"; readonly path: string; readonly target: string }

interface Mount {
  readonly path: string
  readonly writable: boolean
  /** Mounted from elsewhere (the private home); the path itself otherwise. */
  readonly source?: string | undefined
}

const depth = (path: string) => path === "/" ? 0 : path.split("/").length - 1

const within = (parent: string, child: string) =>
  child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`)

/**
 * The bwrap arguments for one call (everything before the program). Pure: the layer resolves the
 * system entries and creates the private temp directory.
 */
export const bwrapArguments = (options: {
  readonly policy: Sandbox.Policy
  readonly network: Sandbox.Network
  readonly system: ReadonlyArray<SystemEntry>
  readonly extraWritable: ReadonlyArray<string>
  readonly extraReadable: ReadonlyArray<string>
  /** The private directory, and where it appears (the OS temp dir); none when nothing is hidden. */
  readonly tmp: { readonly source: string; readonly target: string } | undefined
  /**
   * A private, empty, writable home directory for the call (so caches and dot files written there
   * work and vanish), and the user's files mounted read-only into it (`.gitconfig`).
   */
  readonly home?: { readonly source: string; readonly target: string; readonly files: ReadonlyArray<string> } | undefined
  /** Existing paths inside the workspace mounted read-only over it (its control files), parents first. */
  readonly protected?: ReadonlyArray<string> | undefined
}): Array<string> => {
  const { policy } = options
  const args = ["--die-with-parent", "--unshare-user-try", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
  if (options.network !== "allow") args.push("--unshare-net")
  // Later mounts cover earlier ones: parents first, and at one path a writable mount wins.
  const mounts = new Map<string, Mount>()
  const add = (path: string, writable: boolean) => {
    const known = mounts.get(path)
    mounts.set(path, { path, writable: writable || known?.writable === true })
  }
  if (policy.outside === "writable") add("/", true)
  else {
    for (const entry of options.system) {
      // A system path inside the workspace (node_modules/.bin on PATH) is the workspace's.
      if (within(policy.root, entry.path)) continue
      if (entry._tag === "symlink") args.push("--symlink", entry.target, entry.path)
      else add(entry.path, false)
    }
    if (options.home !== undefined && !within(policy.root, options.home.target)) {
      mounts.set(options.home.target, { path: options.home.target, writable: true, source: options.home.source })
    }
    for (const path of [...(options.home?.files ?? []), ...options.extraReadable, ...policy.readable]) add(path, false)
  }
  for (const path of [...options.extraWritable, ...policy.writable]) add(path, true)
  add(policy.root, true)
  const ordered = [...mounts.values()].sort((a, b) => depth(a.path) - depth(b.path))
  const bind = (m: Mount) =>
    m.source === undefined ? [m.writable ? "--bind-try" : "--ro-bind-try", m.path, m.path] : ["--bind", m.source, m.path]
  const { tmp } = options
  if (tmp === undefined) args.push(...ordered.flatMap(bind))
  else {
    // The private temp directory replaces the OS one; paths under it (a workspace in /tmp) come after.
    const before = ordered.filter((m) => depth(m.path) <= depth(tmp.target) && !within(tmp.target, m.path))
    args.push(...before.flatMap(bind))
    args.push("--bind", tmp.source, tmp.target)
    args.push(...ordered.filter((m) => !before.includes(m)).flatMap(bind))
  }
  args.push(...protectedMounts(policy.root, options.protected ?? []))
  args.push("--dev", "/dev", "--proc", "/proc")
  // The skeleton bwrap builds the mount points in stays read-only: writes there fail with EROFS.
  if (policy.outside !== "writable") args.push("--remount-ro", "/")
  args.push("--chdir", policy.cwd)
  return args
}

/**
 * The mounts that make `paths` (inside `root`) read-only, after every writable one: each directory
 * between the root and a protected path is bound to itself first (a mount point cannot be renamed
 * or removed, so `mv .git .old` cannot swap in a fresh `.git/config`), then each path read-only (a
 * write fails with EROFS, a rename over it with EBUSY). Only existing paths: a bind of a missing
 * one would create its mount point in the host's workspace.
 */
export const protectedMounts = (root: string, paths: ReadonlyArray<string>): Array<string> => {
  const inside = paths.filter((p) => p !== root && within(root, p))
  const pins = new Set<string>()
  for (const p of inside) {
    for (let dir = p.slice(0, p.lastIndexOf("/")); dir.length > root.length && within(root, dir); dir = dir.slice(0, dir.lastIndexOf("/"))) {
      if (!inside.includes(dir)) pins.add(dir)
    }
  }
  const byDepth = (a: string, b: string) => depth(a) - depth(b)
  return [
    ...[...pins].sort(byDepth).flatMap((dir) => ["--bind", dir, dir]),
    ...[...inside].sort(byDepth).flatMap((p) => ["--ro-bind", p, p])
  ]
}

const splitPath = (value: string | undefined) => (value ?? "").split(":").filter((d) => d.startsWith("/"))

/** Resolves which system paths exist here, and which are symbolic links. */
const systemEntries = Effect.fnUntraced(function*(candidates: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const entries: Array<SystemEntry> = []
  const seen = new Set<string>()
  for (const path of candidates) {
    // Under a directory bound already (/usr/local/bin on PATH): nothing to add.
    if (seen.has(path) || entries.some((e) => e._tag === "bind" && within(e.path, path))) continue
    seen.add(path)
    const link = yield* fs.readLink(path).pipe(Effect.option)
    if (Option.isSome(link)) {
      entries.push({ _tag: "symlink", path, target: link.value })
      // A link whose target is absolute and outside the list (/etc/alternatives style) is bound too.
      const real = yield* fs.realPath(path).pipe(Effect.option)
      if (Option.isSome(real) && !candidates.some((c) => within(c, real.value))) entries.push({ _tag: "bind", path: real.value })
      continue
    }
    if (yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false))) entries.push({ _tag: "bind", path })
  }
  // A link on the list that points into another listed directory must come after that directory.
  return entries.sort((a, b) => (a._tag === "symlink" ? 1 : 0) - (b._tag === "symlink" ? 1 : 0))
})

const PROBE_TIMEOUT = Duration.seconds(10)

export type Probe = { readonly ok: true; readonly backend: string } | { readonly ok: false; readonly reason: string }

/**
 * Probe results of this process, by bwrap program and network mode: whether bwrap works does not
 * change while the process runs, and a host that builds many layers (one per workspace, or per
 * CLI call in tests) then pays the two start-up spawns once.
 */
const probed = new Map<string, Probe>()

/** `probe`, answered from this process's earlier probes when there is one. */
export const probeOnce = (bwrap: string, network: Sandbox.Network): Effect.Effect<Probe, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.suspend(() => {
    const key = `${network} ${bwrap}`
    const known = probed.get(key)
    return known !== undefined ? Effect.succeed(known) : Effect.tap(probe(bwrap, network), (result) => Effect.sync(() => probed.set(key, result)))
  })

/** Whether bwrap can create the namespaces a call uses; the reason when it cannot. */
export const probe = Effect.fn("Bubblewrap.probe")(function*(bwrap: string, network: Sandbox.Network): Effect.fn.Return<Probe, never, ChildProcessSpawner.ChildProcessSpawner> {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  // Not detached: the probes leave no process group behind to wait for. bwrap's namespace init is
  // reparented to PID 1 when bwrap exits, and where PID 1 reaps slowly (containers) its zombie kept
  // a detached group "alive" until the force-kill timeout: a second at every start.
  const version = yield* spawner.string(ChildProcess.make(bwrap, ["--version"], { stdin: "ignore", detached: false })).pipe(
    Effect.timeoutOption(PROBE_TIMEOUT),
    Effect.result
  )
  if (version._tag === "Failure") {
    const notFound = version.failure.reason._tag === "NotFound"
    return {
      ok: false as const,
      reason: notFound
        ? `${bwrap} not found (install bubblewrap: apt-get install bubblewrap, dnf install bubblewrap)`
        : `${bwrap} --version failed: ${version.failure.message}`
    }
  }
  const args = [
    "--die-with-parent",
    "--unshare-user-try",
    "--unshare-pid",
    ...(network === "allow" ? [] : ["--unshare-net"]),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "true"
  ]
  const output = yield* Effect.scoped(Effect.gen(function*() {
    const handle = yield* spawner.spawn(ChildProcess.make(bwrap, args, { stdin: "ignore", detached: false, forceKillAfter: "1 second" }))
    const text = yield* handle.all.pipe(Stream.decodeText(), Stream.mkString)
    const code = yield* handle.exitCode
    return { code: Number(code), text }
  })).pipe(Effect.timeoutOption(PROBE_TIMEOUT), Effect.result)
  if (output._tag === "Failure") return { ok: false as const, reason: `bwrap could not start: ${output.failure.message}` }
  if (Option.isNone(output.success)) return { ok: false as const, reason: "bwrap did not finish its start-up check in time" }
  const { code, text } = output.success.value
  if (code !== 0) {
    const why = text.trim().split("\n").at(-1) ?? ""
    return { ok: false as const, reason: `bwrap cannot create namespaces here (${why || `exit code ${code}`}); user namespaces may be disabled` }
  }
  return { ok: true as const, backend: Option.getOrElse(version.success, () => "bubblewrap").trim() || "bubblewrap" }
})

/** The sandbox service for a probed bwrap. */
export const make = Effect.fn("Bubblewrap.make")(function*(options: Options & { readonly backend: string; readonly bwrap: string }) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const network = options.network ?? DEFAULT_NETWORK
  const nodeDir = path.dirname(path.dirname(process.execPath))
  const pathVariable = yield* Config.option(Config.String("PATH")).pipe(Effect.orElseSucceed(() => Option.none<string>()))
  const onPath = options.path ?? splitPath(Option.getOrUndefined(pathVariable))
  const system = yield* systemEntries([...SYSTEM_DIRECTORIES, ...onPath, nodeDir])
  const homeVariable = yield* Config.option(Config.String("HOME")).pipe(Effect.orElseSucceed(() => Option.none<string>()))
  const homeValue = Option.getOrUndefined(homeVariable)
  const home = homeValue !== undefined && homeValue.startsWith("/") && homeValue !== "/" ? homeValue : undefined
  const homeFiles: Array<string> = []
  for (const file of HOME_FILES) {
    const full = home === undefined ? undefined : path.join(home, file)
    if (full !== undefined && (yield* fs.exists(full).pipe(Effect.orElseSucceed(() => false)))) homeFiles.push(full)
  }
  const absolute = (paths: ReadonlyArray<string> | undefined) => (paths ?? []).map((p) => path.resolve(p))
  const extraWritable = absolute(options.extraWritable)
  const extraReadable = absolute(options.extraReadable)
  const status: Sandbox.Status = {
    sandboxed: true,
    backend: options.backend,
    network,
    readable: [...system.map((e) => e.path), ...extraReadable],
    writable: extraWritable
  }
  const platform = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))
  const wrap = Effect.fn("Bubblewrap.wrap")(function*(command: Sandbox.Command, policy: Sandbox.Policy) {
    const setup = (cause: PlatformError) =>
      new Sandbox.SandboxError({ reason: "setup", message: `cannot create the call's private directories: ${cause.message}`, cause })
    // bwrap was trusted when the layer found it; it must still be, now that commands have run.
    yield* TrustedProgram.check(options.bwrap, [policy.root, ...extraWritable]).pipe(
      Effect.mapError((e) => new Sandbox.SandboxError({ reason: "setup", message: e.message })),
      platform
    )
    // Read now, not when the layer was built: the user may have set core.hooksPath since.
    const guarded = yield* platform(ProtectedPaths.resolve(policy.root))
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
    // One directory per call holding its private `tmp` and `home`; removed when the call's scope
    // closes. A process of the call may still be dying then, so the removal is retried and never
    // fails the call. When nothing outside is hidden, the host's temp and home are used as they are.
    const dir = policy.outside === "writable" ? undefined : yield* Effect.acquireRelease(
      fs.makeTempDirectory({ prefix: "agent-tools-sandbox-" }).pipe(Effect.mapError(setup)),
      (dir) =>
        fs.remove(dir, { recursive: true, force: true }).pipe(
          Effect.retry({ times: 5, schedule: Schedule.spaced(Duration.millis(50)) }),
          Effect.ignore
        )
    )
    if (dir !== undefined) {
      yield* fs.makeDirectory(path.join(dir, "tmp")).pipe(Effect.mapError(setup))
      if (home !== undefined) yield* fs.makeDirectory(path.join(dir, "home")).pipe(Effect.mapError(setup))
    }
    const callNetwork = policy.network ?? network
    // Under `proxy`: the call's proxy, listening before bwrap starts, closed with the call's scope.
    const proxy = callNetwork === "proxy"
      ? yield* NetworkProxy.start({ authorize: policy.authorize }).pipe(
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provideService(Path.Path, path)
      )
      : undefined
    const args = bwrapArguments({
      policy,
      network: callNetwork,
      system,
      extraWritable,
      extraReadable,
      tmp: dir === undefined ? undefined : { source: path.join(dir, "tmp"), target: path.dirname(dir) },
      home: dir === undefined || home === undefined
        ? undefined
        : { source: path.join(dir, "home"), target: home, files: homeFiles },
      protected: guarded.existing
    })
    const inner = proxy === undefined ? command : proxy.wrap(command)
    if (proxy !== undefined) args.push(...proxy.bwrapArguments)
    return { command: options.bwrap, args: [...args, "--", inner.command, ...inner.args], sandboxed: true } satisfies Sandbox.Wrapped
  })
  return { status: Effect.succeed(status), wrap } satisfies Sandbox.Service
})

/**
 * The Sandbox for `options.mode`: bubblewrap when it works here, else `unsandboxed` with the
 * reason (refusing every command under `required`). Whether bwrap works is probed on first use
 * (the first `status` or `wrap`, i.e. when the bash tool is built), not when the layer is built:
 * a process that never runs a command spawns nothing. Logs one warning, when the first command is
 * wrapped, if commands run unconfined, except under `off`, which is the user's explicit choice:
 * a host that never runs bash is not told.
 */
export const layer = (options: Options = {}): Layer.Layer<
  never,
  never,
  FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner
> =>
  Layer.effect(
    Sandbox.Sandbox,
    Effect.gen(function*() {
      const mode = options.mode ?? "auto"
      if (mode === "off") return Sandbox.unsandboxed("sandbox.mode is \"off\"")
      const services = yield* Effect.context<FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner>()
      const resolved = yield* Effect.cached(resolve(options, mode).pipe(Effect.provideContext(services)))
      return {
        status: Effect.flatMap(resolved, (service) => service.status),
        wrap: (command, policy) => Effect.flatMap(resolved, (service) => service.wrap(command, policy))
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
        const service = Sandbox.unsandboxed(reason, { required })
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
    const untrusted = [...(options.root === undefined ? [] : [options.root]), ...(options.extraWritable ?? [])]
    const pathVariable = yield* Config.option(Config.String("PATH")).pipe(Effect.orElseSucceed(() => Option.none<string>()))
    const found = yield* Effect.result(
      options.bwrap === undefined
        ? TrustedProgram.find(["bwrap"], { path: Option.getOrElse(pathVariable, () => "").split(":"), untrusted })
        : TrustedProgram.check(options.bwrap, untrusted)
    )
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
    const result = yield* probeOnce(bwrap, options.network ?? DEFAULT_NETWORK)
    if (!result.ok) return yield* fallback(result.reason)
    const service = yield* make({ ...options, backend: result.backend, bwrap })
    yield* Effect.logDebug(`Sandbox: bash commands run in ${result.backend} (network ${options.network ?? DEFAULT_NETWORK})`)
    return service
  }).pipe(Effect.withSpan("Bubblewrap.resolve"))
