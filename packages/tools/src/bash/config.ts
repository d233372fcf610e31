/**
 * The bash tool's options, as a `Context.Reference` with defaults: provide `BashConfig.layer({…})`
 * (or `Layer.succeed(BashConfig.BashConfig, …)`) to change them. The process environment (HOME,
 * SHELL, PATH, COMSPEC) is read through Effect `Config`, so tests set it with a ConfigProvider.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EnvVar } from "@agent-tools/core"

export interface Options {
  /** Timeout when the call gives none, in ms (opencode: 2 minutes). */
  readonly defaultTimeout: number
  /** The largest timeout a call may ask for, in ms; larger values are clamped (and say so). */
  readonly maxTimeout: number
  /** After SIGTERM to the process group, SIGKILL follows after this many ms. */
  readonly killGrace: number
  /**
   * After the shell exits, how long to keep reading output that background processes still
   * write; then they are killed and the call returns (`sleep 100 &` never holds a call).
   */
  readonly exitDrain: number
  /** A shell to use instead of the selected one (fish and nu are still refused). */
  readonly shell: string | undefined
  /** The home directory for `~` / `$HOME` in permission checks (default: the HOME variable). */
  readonly home: string | undefined
  /** The platform shell selection and killing follow (default: the running one). */
  readonly platform: string | undefined
  /** Extra environment for every command (on top of the process environment and the defaults below). */
  readonly env: Readonly<Record<string, string>>
  /** The live preview sent through `ctx.metadata`: at most this many characters… */
  readonly previewChars: number
  /** …and at most one update per this many ms. */
  readonly previewInterval: number
}

/**
 * Set for every command so nothing waits for a terminal: editors exit at once, pagers pass
 * output through, git never prompts for credentials. `extraEnv` and the call cannot unset them…
 * but can override them.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  DEBIAN_FRONTEND: "noninteractive"
}

export const defaults: Options = {
  defaultTimeout: 120_000,
  maxTimeout: 600_000,
  killGrace: 500,
  exitDrain: 250,
  shell: undefined,
  home: undefined,
  platform: undefined,
  env: {},
  previewChars: 30_000,
  previewInterval: 250
}

export const BashConfig = Context.Reference<Options>("@agent-tools/tools/bash/BashConfig", {
  defaultValue: () => defaults
})

/** The config with some options changed. */
export const layer = (options: Partial<Options>): Layer.Layer<never> =>
  Layer.succeed(BashConfig, { ...defaults, ...options })

/** What the tool reads from the process environment (through Effect Config). */
export interface Environment {
  readonly platform: string
  readonly home: string
  readonly SHELL: string | undefined
  readonly PATH: string | undefined
  readonly COMSPEC: string | undefined
  /** `AGENT_TOOLS_GIT_BASH`: the Git Bash to use on Windows. */
  readonly gitBash: string | undefined
  readonly programFiles: ReadonlyArray<string>
}

const optional = EnvVar.get

/** Reads the environment; the config's `home` and `platform` win over it. */
export const environment = Effect.fnUntraced(function*(options: Options) {
  const platform = options.platform ?? globalThis.process.platform
  const home = options.home ?? (yield* optional("HOME")) ?? (yield* optional("USERPROFILE")) ?? ""
  const programFiles = [yield* optional("ProgramFiles"), yield* optional("ProgramW6432")]
    .filter((p): p is string => p !== undefined)
  const env: Environment = {
    platform,
    home,
    SHELL: yield* optional("SHELL"),
    PATH: (yield* optional("PATH")) ?? (yield* optional("Path")),
    COMSPEC: yield* optional("COMSPEC"),
    gitBash: yield* optional("AGENT_TOOLS_GIT_BASH"),
    programFiles
  }
  return env
})
