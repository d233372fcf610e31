/**
 * What keeps a sandboxed command from undoing its sandbox, or reading what the host keeps from
 * its users, when the agent runs as root:
 *
 * - no capabilities (`--cap-drop ALL`): root inside the namespace cannot remount a read-only bind
 *   writable, mount over a mask, or bypass file permissions;
 * - a new session (`--new-session`): no TIOCSTI into the terminal the agent runs in;
 * - no nested user namespaces (`--disable-userns`, which needs `--unshare-user`): a command cannot
 *   make itself a namespace where it holds every capability again. bwrap refuses this on some
 *   hosts; the probe then falls back to running without it and says so;
 * - the host's secret files masked: files by an empty read-only file, directories by an empty
 *   read-only tmpfs. As root, file permissions do not keep `/etc/shadow` from the command;
 *   being absent does;
 * - the keyring refused (`SandboxSeccomp`) and `/proc/keys` masked.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"

/** The flags every sandboxed call (and the probe) runs with. */
export const FLAGS: ReadonlyArray<string> = ["--new-session", "--cap-drop", "ALL"]

/** The user namespace flags: without nested namespaces where bwrap can, else as bwrap may. */
export const userNamespace = (nested: boolean): ReadonlyArray<string> =>
  nested ? ["--unshare-user-try"] : ["--unshare-user", "--disable-userns"]

/**
 * Host paths a command never sees, masked where they exist: password hashes, private keys, sudo
 * rules, stored credentials. A `*` stands for any characters within the last path segment.
 */
export const SECRETS: ReadonlyArray<string> = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/security/opasswd",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/ssh/ssh_host_*_key",
  "/etc/ssl/private",
  "/etc/pki/tls/private",
  "/etc/letsencrypt",
  "/etc/krb5.keytab",
  "/etc/ipsec.secrets",
  "/etc/ipsec.d/private",
  "/etc/wireguard",
  "/etc/NetworkManager/system-connections",
  "/etc/ppp/chap-secrets",
  "/etc/ppp/pap-secrets",
  "/etc/credstore",
  "/etc/credstore.encrypted",
  "/etc/libvirt/secrets",
  "/etc/docker/key.json",
  "/etc/rancher",
  "/etc/kubernetes"
]

/** Kernel files in the sandbox's own `/proc` that still show the host: the keys the caller may view. */
export const PROC_SECRETS: ReadonlyArray<string> = ["/proc/keys", "/proc/key-users"]

/** The secret paths that exist here, as files or directories (symbolic links are not followed). */
export interface Secrets {
  readonly files: ReadonlyArray<string>
  readonly directories: ReadonlyArray<string>
}

const pattern = (glob: string) => new RegExp(`^${glob.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}$`)

/**
 * Resolves `SECRETS` on this host (once per layer: the list of files does not change per call).
 * Every candidate is looked at at once: one after the other, their ~60 file-system round trips
 * were most of the sandbox's set-up, on the first bash call's path.
 */
export const existingSecrets = Effect.fn("SandboxHardening.existingSecrets")(function*(candidates: ReadonlyArray<string> = SECRETS) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const expand = (entry: string) =>
    entry.includes("*")
      ? fs.readDirectory(path.dirname(entry)).pipe(
        Effect.map((names) => names.filter((name) => pattern(path.basename(entry)).test(name)).map((name) => path.join(path.dirname(entry), name))),
        Effect.orElseSucceed(() => [] as Array<string>)
      )
      : Effect.succeed([entry])
  /** The kind of what is at `p`: undefined when nothing is, or a symbolic link (never followed). */
  const kindOf = (p: string) =>
    Effect.gen(function*() {
      if ((yield* fs.readLink(p).pipe(Effect.option))._tag === "Some") return undefined
      const info = yield* fs.stat(p).pipe(Effect.option)
      return info._tag === "None" ? undefined : info.value.type === "Directory" ? "directory" as const : "file" as const
    })
  const paths = (yield* Effect.forEach(candidates, expand, { concurrency: "unbounded" })).flat()
  const kinds = yield* Effect.forEach(paths, kindOf, { concurrency: "unbounded" })
  return {
    files: paths.filter((_, i) => kinds[i] === "file"),
    directories: paths.filter((_, i) => kinds[i] === "directory")
  } satisfies Secrets
})

const within = (parent: string, child: string) => child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`)

/**
 * The bwrap arguments that mask `secrets` (after the binds that show them) with `empty`, an
 * empty file. A secret inside `shown` (the workspace, paths approved for this call) stays as it
 * is: the user chose to show it.
 */
export const maskArguments = (secrets: Secrets, empty: string, shown: ReadonlyArray<string>): Array<string> => {
  const masked = (p: string) => !shown.some((s) => within(s, p))
  return [
    ...secrets.files.filter(masked).flatMap((p) => ["--ro-bind", empty, p]),
    ...secrets.directories.filter(masked).flatMap((p) => ["--perms", "0000", "--tmpfs", p, "--remount-ro", p])
  ]
}

/** The bwrap arguments that mask `PROC_SECRETS` in the sandbox's `/proc` (after `--proc`). */
export const procMaskArguments = (empty: string): Array<string> => PROC_SECRETS.flatMap((p) => ["--ro-bind-try", empty, p])
