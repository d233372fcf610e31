/**
 * The bwrap arguments of one call, worked out from its policy and what the layer found on this
 * host (the system directories, the private temp and home, the masks): a pure function, so tests
 * can read exactly what a call would be confined by. The layer in `Bubblewrap.ts` resolves the
 * host's entries and runs it.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import type { Sandbox } from "@agent-tools/core"
import * as SandboxHardening from "./SandboxHardening.ts"

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
  /** A fresh tmpfs of this many bytes (the private home); the path itself bound otherwise. */
  readonly tmpfs?: number | undefined
}

/** The flag that starts the command in a new terminal session. */
const NEW_SESSION = "--new-session"

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
  /**
   * The call runs in its session's network namespace, entered before bwrap starts
   * (`BubblewrapSession`): no `--unshare-net`, whatever the network.
   */
  readonly sessionNetwork?: boolean | undefined
  readonly system: ReadonlyArray<SystemEntry>
  readonly extraWritable: ReadonlyArray<string>
  readonly extraReadable: ReadonlyArray<string>
  /** The private temp directory (a tmpfs of `size` bytes) at the OS temp dir's path; none when nothing is hidden. */
  readonly tmp: { readonly target: string; readonly size: number } | undefined
  /**
   * A private, empty, writable home directory for the call (a tmpfs of `size` bytes, so caches
   * and dot files written there work and vanish), and the user's files mounted read-only into it
   * (`.gitconfig`).
   */
  readonly home?: { readonly target: string; readonly files: ReadonlyArray<string>; readonly size: number } | undefined
  /** Nested user namespaces stay possible (where bwrap cannot disable them); default: disabled. */
  readonly nestedUserNamespaces?: boolean | undefined
  /** The file descriptor bwrap reads the seccomp filter from (opened by the wrapper shell). */
  readonly seccompFd?: number | undefined
  /** The host's secret paths to mask, and the empty file that masks files. */
  readonly masks?: { readonly secrets: SandboxHardening.Secrets; readonly empty: string } | undefined
  /** Existing paths inside the workspace mounted read-only over it (its control files), parents first. */
  readonly protected?: ReadonlyArray<string> | undefined
  /**
   * Host paths that stay read-only wherever a writable mount would show them (the user's own config
   * directory, which holds the trusted config and the list of trusted folders): a command allowed to
   * write outside the workspace still cannot trust a folder or widen the user's rules.
   */
  readonly readOnly?: ReadonlyArray<string> | undefined
}): Array<string> => {
  const { policy } = options
  const args = [
    "--die-with-parent",
    // On a terminal of its own (a terminal job) the command stays in the terminal's session, so
    // the Ctrl-C typed there reaches its foreground program. `--new-session` keeps a command from
    // typing into the terminal the agent runs in (TIOCSTI); this terminal is private to the call,
    // opened by the agent for it, so what is typed into it reaches only the call's own programs.
    ...(policy.terminal === true ? SandboxHardening.FLAGS.filter((f) => f !== NEW_SESSION) : SandboxHardening.FLAGS),
    ...SandboxHardening.userNamespace(options.nestedUserNamespaces === true),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts"
  ]
  if (options.seccompFd !== undefined) args.push("--seccomp", String(options.seccompFd))
  if (options.network !== "allow" && options.sessionNetwork !== true) args.push("--unshare-net")
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
      mounts.set(options.home.target, { path: options.home.target, writable: true, tmpfs: options.home.size })
    }
    for (const path of [...(options.home?.files ?? []), ...options.extraReadable, ...policy.readable]) add(path, false)
  }
  for (const path of [...options.extraWritable, ...policy.writable]) add(path, true)
  add(policy.root, true)
  const ordered = [...mounts.values()].sort((a, b) => depth(a.path) - depth(b.path))
  const bind = (m: Mount) =>
    m.tmpfs === undefined ? [m.writable ? "--bind-try" : "--ro-bind-try", m.path, m.path] : ["--size", String(m.tmpfs), "--tmpfs", m.path]
  const { tmp } = options
  if (tmp === undefined) args.push(...ordered.flatMap(bind))
  else {
    // The private temp directory replaces the OS one; paths under it (a workspace in /tmp) come after.
    const before = ordered.filter((m) => depth(m.path) <= depth(tmp.target) && !within(tmp.target, m.path))
    args.push(...before.flatMap(bind))
    args.push("--size", String(tmp.size), "--tmpfs", tmp.target)
    args.push(...ordered.filter((m) => !before.includes(m)).flatMap(bind))
  }
  args.push(...protectedMounts(policy.root, options.protected ?? []))
  const writableMounts = ordered.filter((m) => m.writable && m.tmpfs === undefined).map((m) => m.path)
  for (const path of options.readOnly ?? []) {
    if (writableMounts.some((w) => within(w, path))) args.push("--ro-bind-try", path, path)
  }
  // Masks come after every bind that could show what they hide.
  const { masks } = options
  if (masks !== undefined) {
    args.push(...SandboxHardening.maskArguments(masks.secrets, masks.empty, [policy.root, ...policy.readable, ...policy.writable]))
  }
  args.push("--dev", "/dev", "--proc", "/proc")
  if (masks !== undefined) args.push(...SandboxHardening.procMaskArguments(masks.empty))
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

export const splitPath = (value: string | undefined) => (value ?? "").split(":").filter((d) => d.startsWith("/"))

/**
 * Resolves which system paths exist here, and which are symbolic links. Every path is looked at at
 * once (a link, its real path, or whether it exists), then the list is built in its order.
 */
export const systemEntries = Effect.fnUntraced(function*(candidates: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const unique = [...new Set(candidates)]
  const looked = yield* Effect.forEach(unique, (path) =>
    Effect.gen(function*() {
      const link = yield* fs.readLink(path).pipe(Effect.option)
      if (Option.isSome(link)) return { link: link.value, real: Option.getOrUndefined(yield* fs.realPath(path).pipe(Effect.option)) }
      return { exists: yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false)) }
    }), { concurrency: "unbounded" })
  const entries: Array<SystemEntry> = []
  unique.forEach((path, i) => {
    // Under a directory bound already (/usr/local/bin on PATH): nothing to add.
    if (entries.some((e) => e._tag === "bind" && within(e.path, path))) return
    const found = looked[i]!
    if ("link" in found) {
      entries.push({ _tag: "symlink", path, target: found.link })
      // A link whose target is absolute and outside the list (/etc/alternatives style) is bound too.
      if (found.real !== undefined && !candidates.some((c) => within(c, found.real!))) entries.push({ _tag: "bind", path: found.real })
      return
    }
    if (found.exists) entries.push({ _tag: "bind", path })
  })
  // A link on the list that points into another listed directory must come after that directory.
  return entries.sort((a, b) => (a._tag === "symlink" ? 1 : 0) - (b._tag === "symlink" ? 1 : 0))
})
