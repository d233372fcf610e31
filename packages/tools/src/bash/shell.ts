/**
 * Which shell runs the command, and how its process tree is killed. Pure over an `Environment`
 * and an `exists` check, so every platform's branch is unit-tested on Linux with fakes.
 *
 * - POSIX: `$SHELL` when it is a POSIX shell (fish, nu, csh… are refused: the command is bash
 *   syntax), else `bash` on PATH (absolute entries only), else `/bin/sh` (macOS: then `/bin/zsh`
 *   before `/bin/sh`). The bash tool's `exists` admits only trusted programs
 *   (`TrustedProgram.check`: none in the workspace or a sandbox-writable path).
 * - Windows: Git Bash (`AGENT_TOOLS_GIT_BASH`, next to `git.exe` on PATH, or under Program
 *   Files), else `cmd.exe`. A process tree there is killed with `taskkill /pid N /T /F`.
 */
import * as NodePath from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { PlatformError } from "effect/PlatformError"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import type { Environment } from "./config.ts"

export interface Shell {
  readonly path: string
  /** Lower-case file name without extension: `bash`, `zsh`, `cmd`. */
  readonly name: string
  /** `posix`: runs `-c <command>`; `cmd`: cmd.exe (`/d /s /c`), set up by the spawner. */
  readonly kind: "posix" | "cmd"
}

export class ShellNotFoundError extends Schema.TaggedError<ShellNotFoundError>()("ShellNotFoundError", {
  message: Schema.String
}) {}

/** Shells that run the command as the analysis understood it. */
const POSIX_SHELLS: ReadonlySet<string> = new Set(["bash", "zsh", "ksh", "mksh", "dash", "sh", "ash"])
/** Refused even when asked for explicitly: their syntax is not bash's (`[[ ]]`, `&&`, `$(…)`). */
const REFUSED: ReadonlySet<string> = new Set(["fish", "nu", "csh", "tcsh", "elvish", "xonsh", "pwsh", "powershell"])

const pathOf = (platform: string) => platform === "win32" ? NodePath.win32 : NodePath.posix

export const name = (file: string, platform: string): string => pathOf(platform).parse(file).name.toLowerCase()

const make = (file: string, platform: string): Shell => {
  const n = name(file, platform)
  return { path: file, name: n, kind: n === "cmd" ? "cmd" : "posix" }
}

type Exists = (path: string) => Effect.Effect<boolean>

const firstExisting = Effect.fnUntraced(function*(candidates: ReadonlyArray<string>, exists: Exists) {
  for (const candidate of candidates) if (yield* exists(candidate)) return candidate
  return undefined
})

const onPath = (env: Environment, file: string): ReadonlyArray<string> => {
  const p = pathOf(env.platform)
  const separator = env.platform === "win32" ? ";" : ":"
  // A relative entry (`.`, `node_modules/.bin`) names a directory of whatever the working directory is.
  return (env.PATH ?? "").split(separator).filter((d) => d !== "" && p.isAbsolute(d)).map((d) => p.join(d, file))
}

/** Git Bash: next to git.exe on PATH (`Git\cmd\git.exe` → `Git\bin\bash.exe`), or under Program Files. */
const gitBashCandidates = Effect.fnUntraced(function*(env: Environment, exists: Exists) {
  const p = NodePath.win32
  const candidates: Array<string> = env.gitBash === undefined ? [] : [env.gitBash]
  for (const git of onPath(env, "git.exe")) {
    if (!(yield* exists(git))) continue
    candidates.push(p.resolve(p.dirname(git), "..", "bin", "bash.exe"), p.resolve(p.dirname(git), "..", "..", "bin", "bash.exe"))
  }
  for (const dir of env.programFiles) candidates.push(p.join(dir, "Git", "bin", "bash.exe"))
  return candidates
})

const acceptable = (file: string, platform: string, explicit: boolean) => {
  const n = name(file, platform)
  if (REFUSED.has(n)) return false
  return explicit || POSIX_SHELLS.has(n)
}

/** Selects the shell; `override` is the config's `shell`. */
export const select = Effect.fn("Bash.selectShell")(function*(
  env: Environment,
  exists: Exists,
  override?: string | undefined
): Effect.fn.Return<Shell, ShellNotFoundError> {
  const { platform } = env
  if (override !== undefined) {
    if (!acceptable(override, platform, true)) {
      return yield* new ShellNotFoundError({ message: `the configured shell ${override} is not a POSIX shell` })
    }
    if (yield* exists(override)) return make(override, platform)
    return yield* new ShellNotFoundError({ message: `the configured shell ${override} does not exist` })
  }
  if (platform === "win32") {
    const bash = yield* firstExisting(yield* gitBashCandidates(env, exists), exists)
    if (bash !== undefined) return make(bash, platform)
    const cmd = yield* firstExisting([env.COMSPEC ?? "", "C:\\Windows\\System32\\cmd.exe"].filter((c) => c !== ""), exists)
    if (cmd !== undefined) return make(cmd, platform)
    return yield* new ShellNotFoundError({ message: "neither Git Bash nor cmd.exe was found" })
  }
  const candidates = [
    ...(env.SHELL !== undefined && env.SHELL.startsWith("/") && acceptable(env.SHELL, platform, false) ? [env.SHELL] : []),
    ...onPath(env, "bash"),
    ...(platform === "darwin" ? ["/bin/zsh"] : []),
    "/bin/sh"
  ]
  const found = yield* firstExisting(candidates, exists)
  if (found !== undefined) return make(found, platform)
  return yield* new ShellNotFoundError({ message: "no POSIX shell found (tried $SHELL, bash on PATH, /bin/sh)" })
})

export type KillPlan =
  | { readonly _tag: "group"; readonly signal: ChildProcess.Signal; readonly forceAfter: number }
  | { readonly _tag: "taskkill"; readonly command: string; readonly args: ReadonlyArray<string> }

/** How the tree of `pid` is killed on `platform`. */
export const killPlan = (platform: string, pid: number, grace: number): KillPlan =>
  platform === "win32"
    ? { _tag: "taskkill", command: "taskkill", args: ["/pid", String(pid), "/T", "/F"] }
    : { _tag: "group", signal: "SIGTERM", forceAfter: grace }

/**
 * Kills the whole tree, bounded in time (the call must return by its deadline even if something
 * does not die). On POSIX the command runs `detached` (its own process group), and
 * NodeChildProcessSpawner's `handle.kill` already signals the group, `-pid`, with SIGTERM, waits
 * up to `forceKillAfter` and then sends SIGKILL to the group: no `process.kill(-pid)` of our own.
 * On Windows we run `taskkill /T /F` through the spawner (testable with a fake one), then
 * `handle.kill` as a fallback for a leader taskkill missed.
 */
export const killTree = Effect.fn("Bash.killTree")(function*(
  handle: ChildProcessSpawner.ChildProcessHandle,
  platform: string,
  grace: number
) {
  const plan = killPlan(platform, handle.pid, grace)
  const bound = Duration.millis(grace + 2_000)
  if (plan._tag === "taskkill") {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    yield* spawner.exitCode(ChildProcess.make(plan.command, plan.args, { stdin: "ignore", stdout: "ignore", stderr: "ignore" }))
      .pipe(Effect.timeoutOption(bound), Effect.ignore)
  }
  yield* handle.kill({ killSignal: "SIGTERM", forceKillAfter: Duration.millis(grace) }).pipe(
    Effect.timeoutOption(bound),
    Effect.ignore
  )
})

/**
 * The signal that ended a process: the spawner fails `exitCode` with a cause "…receipt of signal:
 * 'SIGTERM'" for a signal death. `unknown` when the text names none.
 */
export const signalOf = (error: PlatformError, unknown = "unknown"): string => {
  const text = `${String(error.reason.cause)} ${error.message}`
  return /(SIG[A-Z0-9]+)/.exec(text)?.[1] ?? unknown
}
