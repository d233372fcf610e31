/**
 * What a shell command may reach, enforced by the kernel: the boundary between a tool that runs a
 * program (the bash tool) and an OS sandbox that confines it.
 *
 * Static analysis of a command decides what to *ask*; the sandbox decides what the command *can
 * reach*, so a path the analysis missed (a symlink made mid-script, an interpreter's code string,
 * `eval`) still cannot be read or written. Per call, the tool hands over a `Policy` (the workspace,
 * the paths the user approved for this call, who decides the hosts it connects to) and the
 * program it would spawn; `wrap` returns the program to spawn instead, valid while the scope it
 * runs in is open (per-call resources such as a private temp directory or the network proxy are
 * released when it closes).
 *
 * Implementations: `layerNone(reason)` here (runs the program as is, and says why), the
 * bubblewrap layer in `@agent-tools/node` (Linux), and a recording twin in `@agent-tools/testing`.
 * `Sandbox` is a required service with no default: it is a security boundary, so a composition
 * that runs commands must choose one, and running them unconfined is a choice written down
 * (`layerNone` with its reason, reported as `sandboxed: false` on every result), never what
 * happens when a layer was forgotten.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SandboxEnv from "./SandboxEnv.ts"

/**
 * What network a call has:
 * - `proxy`: its own network namespace (only its own loopback) and outbound HTTP(S) through a
 *   proxy the host runs, which asks the policy's `authorize` for every host;
 * - `allow`: the host's network, as any program outside the sandbox has it;
 * - `deny`: its own empty network namespace, nothing outside it reachable.
 */
export type Network = "proxy" | "allow" | "deny"

/**
 * The answer for one host a call connects to through the proxy. `privateAddresses`: the host may
 * resolve to loopback, private or link-local addresses (otherwise those are refused after DNS).
 */
export type Access =
  | { readonly _tag: "allow"; readonly privateAddresses: boolean }
  | { readonly _tag: "deny"; readonly reason: string }

/** Decides, while the call runs, whether it may connect to `host` (lower case, no brackets) at `port`. */
export type Authorize = (host: string, port: number) => Effect.Effect<Access>

/**
 * How much of the file system outside the workspace a call sees:
 * - `hidden`: only the system directories needed to run programs (read-only), the workspace, a
 *   private temp directory and the paths listed in the policy;
 * - `writable`: everything, as outside the sandbox (the permission config allows every outside path).
 */
export type Outside = "hidden" | "writable"

/** What one call may reach. Paths are absolute real paths. */
export interface Policy {
  /** The workspace root: readable and writable. */
  readonly root: string
  /** The working directory of the command. */
  readonly cwd: string
  /** Paths outside the workspace the call may write (approved for this call, or configured). */
  readonly writable: ReadonlyArray<string>
  /** Paths outside the workspace the call may read. */
  readonly readable: ReadonlyArray<string>
  readonly outside: Outside
  /** Network access; the layer's configured default when absent. */
  readonly network?: Network | undefined
  /**
   * Under `proxy`: who decides each host the call connects to (the bash tool asks the permission
   * service). Absent: every host is refused.
   */
  readonly authorize?: Authorize | undefined
  /**
   * The session the call belongs to. Calls (and background jobs) of one session share one loopback
   * under `proxy` and `deny`: a server a job started on `localhost` is reachable from the session's
   * later calls and from nothing else. Absent: the call's loopback is its own.
   */
  readonly session?: string | undefined
  /**
   * The command runs on a pseudo-terminal this process opened for it (a terminal job): it stays in
   * the terminal's session so the terminal's Ctrl-C reaches its foreground program. The terminal is
   * private to the call, so nothing it injects there reaches the user's own terminal.
   */
  readonly terminal?: boolean | undefined
}

/** A program and its arguments, as spawned. */
export interface Command {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /**
   * Given to `wrap`: the variables the caller sets. Returned by `wrap`: the program's whole
   * environment (spawn it with nothing else inherited), the host's passed variables included
   * (`SandboxEnv`). Absent: the spawner's own environment.
   */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * What `wrap` returns: the program to spawn, and whether it is the sandbox (true only when this
 * command is the confining wrapper itself, so a result can say `sandboxed` of the very process
 * that ran, never of a status read earlier).
 */
export interface Wrapped extends Command {
  readonly sandboxed: boolean
}

export type Status =
  | {
    readonly sandboxed: true
    /** What confines the command, e.g. `bubblewrap 0.8.0`. */
    readonly backend: string
    readonly network: Network
    /** What every call sees read-only besides the policy's paths (system directories, extras). */
    readonly readable: ReadonlyArray<string>
    /** What every call may write besides the policy's paths. */
    readonly writable: ReadonlyArray<string>
    /** What this sandbox cannot enforce on this host, in sentences (absent: everything it offers holds). */
    readonly unenforced?: ReadonlyArray<string> | undefined
  }
  | {
    readonly sandboxed: false
    /** Why commands run unconfined, in a sentence a user can act on. */
    readonly reason: string
    /** `sandbox.mode: required`: commands must not run at all. */
    readonly required: boolean
  }

/** A call cannot be sandboxed (or must not run without a sandbox). */
export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  reason: Schema.Literals(["unavailable", "setup"]),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export interface Service {
  /**
   * Whether commands are confined, and by what or why not. An effect: finding out may take a probe
   * (spawning the backend), which a process that never runs a command should not pay; it runs
   * once, on first use, and its answer is kept.
   */
  readonly status: Effect.Effect<Status>
  /**
   * The program to spawn instead of `command`, confined to `policy`, with its whole environment
   * and `sandboxed: true`. Without a sandbox: `command` itself with the same environment and
   * `sandboxed: false`, or a `SandboxError` (`unavailable`) when the mode requires one. A result's
   * `sandboxed` is this flag of the wrap that was spawned.
   */
  readonly wrap: (command: Command, policy: Policy) => Effect.Effect<Wrapped, SandboxError, Scope.Scope>
  /**
   * Optional: a command is about to be wrapped. Lets the sandbox begin slow kernel work its wrap
   * will wait for while the caller still checks and plans the call; returns at once, never fails,
   * and a wrap without it is just as confined.
   */
  readonly prepare?: Effect.Effect<void> | undefined
}

export interface NoneOptions {
  /** `sandbox.mode: required`: `wrap` refuses to run anything. */
  readonly required?: boolean | undefined
  /** Variable names passed to commands besides `SandboxEnv`'s own list. */
  readonly env?: ReadonlyArray<string> | undefined
}

/**
 * Runs commands unconfined; `status` carries the reason. With `required`, `wrap` refuses instead.
 * The environment is the same a sandbox passes (`SandboxEnv`, plus the names in `env`).
 */
export const none = (reason: string, options: NoneOptions = {}): Service => {
  const required = options.required === true
  return {
    status: Effect.succeed({ sandboxed: false, reason, required }),
    wrap: (command) =>
      required
        ? Effect.fail(
          new SandboxError({
            reason: "unavailable",
            message: `sandbox.mode is "required" but no sandbox can run here: ${reason}`
          })
        )
        : Effect.map(SandboxEnv.environment(options.env ?? [], command.env), (env) => ({ ...command, env, sandboxed: false }))
  }
}

export class Sandbox extends Context.Service<Sandbox, Service>()("@agent-tools/core/Sandbox") {}

/**
 * No sandbox, said out loud: every command runs unconfined and every result says
 * `sandboxed: false`; `reason` (a sentence a user can act on) is the status's reason.
 */
export const layerNone = (reason: string, options: NoneOptions = {}): Layer.Layer<Sandbox> =>
  Layer.succeed(Sandbox, none(reason, options))

/** The one-line notice for a host's log when commands run unconfined (null when sandboxed). */
export const warning = (status: Status): string | null =>
  status.sandboxed
    ? null
    : status.required
    ? `Sandbox: unavailable (${status.reason}); sandbox.mode is "required", so bash commands will not run.`
    : `Sandbox: bash commands run without a sandbox: ${status.reason}.`
