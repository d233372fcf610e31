/**
 * The user's data directory for agent-tools, where spilled tool outputs live by default:
 *
 * - Linux and other Unix: `$XDG_DATA_HOME/agent-tools` (default `~/.local/share/agent-tools`)
 * - macOS: `~/Library/Application Support/agent-tools`
 * - Windows: `%LOCALAPPDATA%\agent-tools` (default `%USERPROFILE%\AppData\Local\agent-tools`)
 *
 * and the user's config directory, where the user's own `agent-tools.json` and the list of trusted
 * workspaces (`trusted.json`) live:
 *
 * - Linux, macOS and other Unix: `$XDG_CONFIG_HOME/agent-tools` (default `~/.config/agent-tools`;
 *   command-line tools on macOS commonly follow XDG here too)
 * - Windows: `%APPDATA%\agent-tools` (default `%USERPROFILE%\AppData\Roaming\agent-tools`)
 *
 * The environment is read through Effect `Config`, so tests swap it with a ConfigProvider.
 */
import { homedir } from "node:os"
import * as Effect from "effect/Effect"
import { EnvVar } from "@agent-tools/core"

export const APP_NAME = "agent-tools"
export const SPILL_SUBDIR = "tool-output"

export interface Env {
  readonly XDG_DATA_HOME?: string | undefined
  readonly LOCALAPPDATA?: string | undefined
  readonly XDG_CONFIG_HOME?: string | undefined
  readonly APPDATA?: string | undefined
}

const join = (platform: string, ...parts: ReadonlyArray<string>): string => {
  const sep = platform === "win32" ? "\\" : "/"
  return parts.map((p, i) => i === 0 ? p.replace(/[\\/]+$/, "") : p.replace(/^[\\/]+|[\\/]+$/g, "")).join(sep)
}

// XDG says a relative XDG_DATA_HOME is invalid and must be ignored.
const absolute = (platform: string, dir: string | undefined): dir is string =>
  dir !== undefined && dir !== "" && (platform === "win32" ? /^(?:[A-Za-z]:[\\/]|\\\\)/.test(dir) : dir.startsWith("/"))

/** The data directory for a platform, environment and home directory (pure). */
export const select = (platform: string, env: Env, home: string): string => {
  if (platform === "win32") {
    const local = absolute(platform, env.LOCALAPPDATA) ? env.LOCALAPPDATA : join(platform, home, "AppData", "Local")
    return join(platform, local, APP_NAME)
  }
  if (platform === "darwin") return join(platform, home, "Library", "Application Support", APP_NAME)
  const data = absolute(platform, env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : join(platform, home, ".local", "share")
  return join(platform, data, APP_NAME)
}

/** The config directory for a platform, environment and home directory (pure). */
export const selectConfig = (platform: string, env: Env, home: string): string => {
  if (platform === "win32") {
    const roaming = absolute(platform, env.APPDATA) ? env.APPDATA : join(platform, home, "AppData", "Roaming")
    return join(platform, roaming, APP_NAME)
  }
  const config = absolute(platform, env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(platform, home, ".config")
  return join(platform, config, APP_NAME)
}

// An unset (or unreadable) variable is simply absent.
const optionalVar = EnvVar.get

/** The home directory: `HOME` (or `USERPROFILE` on Windows) from Config, else the OS's answer. */
export const home = Effect.fn("DataDir.home")(function*(platform: string = process.platform) {
  const fromEnv = yield* optionalVar(platform === "win32" ? "USERPROFILE" : "HOME")
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : homedir()
})

/** The data directory of this platform, from the environment in Config. */
export const dataDir = Effect.fn("DataDir.dataDir")(function*(platform: string = process.platform) {
  const env: Env = {
    XDG_DATA_HOME: yield* optionalVar("XDG_DATA_HOME"),
    LOCALAPPDATA: yield* optionalVar("LOCALAPPDATA")
  }
  return select(platform, env, yield* home(platform))
})

/** Where spills go by default: `<data dir>/tool-output`. */
export const spillDir = Effect.fn("DataDir.spillDir")(function*(platform: string = process.platform) {
  return join(platform, yield* dataDir(platform), SPILL_SUBDIR)
})

/** The user's config directory of this platform, from the environment in Config. */
export const configDir = Effect.fn("DataDir.configDir")(function*(platform: string = process.platform) {
  const env: Env = {
    XDG_CONFIG_HOME: yield* optionalVar("XDG_CONFIG_HOME"),
    APPDATA: yield* optionalVar("APPDATA")
  }
  return selectConfig(platform, env, yield* home(platform))
})
