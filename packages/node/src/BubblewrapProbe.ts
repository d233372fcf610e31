/**
 * Whether bubblewrap can confine commands on this host: a start-up check run with the same
 * isolation flags a call uses (the seccomp filter included), so a host where one of them fails
 * falls back with the reason instead of failing every call. Only nested user namespaces may stay
 * possible, where bwrap cannot forbid them; the probe says why.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import type { Sandbox } from "@agent-tools/core"
import * as SandboxHardening from "./SandboxHardening.ts"
import * as SandboxSeccomp from "./SandboxSeccomp.ts"

const PROBE_TIMEOUT = Duration.seconds(10)

export type Probe =
  | {
    readonly ok: true
    readonly backend: string
    /** Why commands may still make user namespaces of their own, when bwrap cannot forbid it here. */
    readonly nestedUserNamespaces?: string | undefined
  }
  | { readonly ok: false; readonly reason: string }

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
  const versionOf = spawner.string(ChildProcess.make(bwrap, ["--version"], { stdin: "ignore", detached: false })).pipe(
    Effect.timeoutOption(PROBE_TIMEOUT),
    Effect.result
  )
  // The same isolation flags a call uses (the seccomp filter read from stdin here), so a host where
  // one fails falls back here, with the reason, instead of failing every call. Only nested user
  // namespaces may stay possible: bwrap refuses `--disable-userns` where it cannot unshare the
  // user namespace itself.
  const filter = SandboxSeccomp.forArch()
  const attempt = (nested: boolean) =>
    Effect.scoped(Effect.gen(function*() {
      const args = [
        "--die-with-parent",
        ...SandboxHardening.FLAGS,
        ...SandboxHardening.userNamespace(nested),
        ...(filter === undefined ? [] : ["--seccomp", "0"]),
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
      const stdin = filter === undefined ? "ignore" as const : Stream.succeed(filter)
      const handle = yield* spawner.spawn(ChildProcess.make(bwrap, args, { stdin, detached: false, forceKillAfter: "1 second" }))
      const text = yield* handle.all.pipe(Stream.decodeText(), Stream.mkString)
      const code = yield* handle.exitCode
      return { code: Number(code), text }
    })).pipe(Effect.timeoutOption(PROBE_TIMEOUT), Effect.result)
  // The version and the first attempt at once: two spawns, one wait. A bwrap that cannot say its
  // version is reported as such, whatever the attempt did.
  const [version, first] = yield* Effect.all([versionOf, attempt(false)], { concurrency: 2 })
  if (version._tag === "Failure") {
    const notFound = version.failure.reason._tag === "NotFound"
    return {
      ok: false as const,
      reason: notFound
        ? `${bwrap} not found (install bubblewrap: apt-get install bubblewrap, dnf install bubblewrap)`
        : `${bwrap} --version failed: ${version.failure.message}`
    }
  }
  const backend = Option.getOrElse(version.success, () => "bubblewrap").trim() || "bubblewrap"
  let nestedReason: string | undefined
  for (const nested of [false, true]) {
    const output = nested ? yield* attempt(true) : first
    if (output._tag === "Failure") return { ok: false as const, reason: `bwrap could not start: ${output.failure.message}` }
    if (Option.isNone(output.success)) return { ok: false as const, reason: "bwrap did not finish its start-up check in time" }
    const { code, text } = output.success.value
    const why = text.trim().split("\n").at(-1) || `exit code ${code}`
    if (code === 0) return { ok: true as const, backend, ...(nested ? { nestedUserNamespaces: nestedReason } : {}) }
    if (nested) return { ok: false as const, reason: `bwrap cannot create namespaces here (${why}); user namespaces may be disabled` }
    nestedReason = `nested user namespaces stay possible (bwrap --disable-userns: ${why})`
  }
  return { ok: false as const, reason: "bwrap cannot create namespaces here" }
})
