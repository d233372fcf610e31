/**
 * Which config a workspace runs with, and which workspaces the user trusts.
 *
 * The user's config is trusted: `agent-tools.json` in the user's config directory (DataDir), or
 * instead the config given explicitly (`--config FILE`, the `config` option), which then is the
 * whole config (the workspace's file is not read). A workspace's own `agent-tools.json` is someone
 * else's input until the user trusts that folder (`agent-tools trust`): until then only the parts
 * that narrow the user's config apply (ConfigNarrowing), the rest is named in a warning.
 *
 * Trust is kept in `trusted.json` in the user's config directory, bound to the folder's real path
 * and to a hash of its `agent-tools.json`: a config rewritten after the user trusted it (by a
 * command run in the workspace, a pull) is untrusted again until the user trusts it anew.
 */
import { createHash } from "node:crypto"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Random from "effect/Random"
import { PermissionRules } from "@agent-tools/core"
import * as AgentConfig from "./AgentConfig.ts"
import * as ConfigNarrowing from "./ConfigNarrowing.ts"
import { DataDir } from "@agent-tools/node"

/** The list of trusted workspaces, in the user's config directory. */
export const TRUST_FILE = "trusted.json"

/** One trusted folder: the hash of its `agent-tools.json` when trusted (null: it had none). */
export interface Entry {
  readonly sha256: string | null
  readonly trustedAt: string
}

export interface Store {
  readonly version: 1
  /** By the folder's real path. */
  readonly folders: Readonly<Record<string, Entry>>
}

/** How the workspace's own config was treated. */
export interface Trust {
  /** The workspace's `agent-tools.json` when one was read (never with an explicit config). */
  readonly file: string | undefined
  /** The folder's real path, the key of the trust list. */
  readonly folder: string
  /** The folder is trusted with this very config: it applies in full. */
  readonly trusted: boolean
  /** The folder was trusted with another config than the one it has now. */
  readonly changed: boolean
  /** The workspace config's key paths left out because it is not trusted. */
  readonly ignored: ReadonlyArray<string>
}

/** One config's permission rules, with the file they came from (for errors). */
export interface PermissionSource {
  readonly permission: PermissionRules.Config
  readonly file: string | undefined
}

export interface Loaded {
  /** The combined config; its permission rules are in `permissions`. */
  readonly config: AgentConfig.AgentConfig
  /** The explicit config file, else the workspace's when it has one, else the user's. */
  readonly file: string | undefined
  /** The user's config file, when it was read. */
  readonly userFile: string | undefined
  /** Each config's permission rules in order: the user's (or explicit) first, the workspace's after. */
  readonly permissions: ReadonlyArray<PermissionSource>
  readonly trust: Trust
}

/** The hex SHA-256 of a config file's text; null when there is no file. */
export const hash = (text: string | undefined): string | null =>
  text === undefined ? null : createHash("sha256").update(text, "utf8").digest("hex")

const storeError = (file: string, reason: string) => new AgentConfig.ConfigError({ file, problems: [{ path: "", reason }] })

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A file's text; undefined when it does not exist, an error naming it when it cannot be read. */
const readText = (file: string) =>
  FileSystem.FileSystem.use((fs) => fs.readFileString(file)).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catchTag("PlatformError", (e) =>
      e.reason._tag === "NotFound" ? Effect.succeed(undefined) : Effect.fail(storeError(file, `cannot read: ${e.message}`)))
  )

/** The trust list (empty when the file does not exist); a damaged file is an error naming it. */
export const readStore = Effect.fn("WorkspaceTrust.readStore")(function*(configDir: string) {
  const path = yield* Path.Path
  const file = path.join(configDir, TRUST_FILE)
  const text = yield* readText(file)
  if (text === undefined) return { version: 1, folders: {} } satisfies Store
  const json = yield* Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) => storeError(file, `invalid JSON: ${cause instanceof Error ? cause.message : String(cause)}`)
  })
  const folders = isRecord(json) && isRecord(json.folders) ? json.folders : undefined
  if (folders === undefined) return yield* storeError(file, "expected {\"version\": 1, \"folders\": {…}}")
  const valid: Record<string, Entry> = {}
  for (const [folder, entry] of Object.entries(folders)) {
    if (isRecord(entry) && (typeof entry.sha256 === "string" || entry.sha256 === null)) {
      valid[folder] = { sha256: entry.sha256, trustedAt: typeof entry.trustedAt === "string" ? entry.trustedAt : "" }
    }
  }
  return { version: 1, folders: valid } satisfies Store
})

/** Writes the trust list whole (a temporary file renamed over it), private to the user. */
const writeStore = Effect.fnUntraced(function*(configDir: string, store: Store) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = path.join(configDir, TRUST_FILE)
  const fail = (e: { readonly message: string }) => storeError(file, `cannot write: ${e.message}`)
  yield* fs.makeDirectory(configDir, { recursive: true, mode: 0o700 }).pipe(Effect.mapError(fail))
  const temp = `${file}.${(yield* Random.nextInt).toString(36).replace("-", "")}.tmp`
  yield* fs.writeFileString(temp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 }).pipe(
    Effect.andThen(fs.rename(temp, file)),
    Effect.mapError(fail),
    Effect.tapError(() => fs.remove(temp).pipe(Effect.ignore))
  )
})

/**
 * A folder's real path and the text of its `agent-tools.json` (undefined when it has none). A
 * folder that does not exist has no config; `required` makes it an error instead.
 */
const folderOf = Effect.fnUntraced(function*(dir: string, required: boolean) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const real = yield* fs.realPath(dir).pipe(
    Effect.map((real): string | undefined => real),
    Effect.catchTag("PlatformError", (e) =>
      e.reason._tag === "NotFound" && !required
        ? Effect.succeed(undefined)
        : Effect.fail(new AgentConfig.ConfigError({ problems: [{ path: "", reason: `${dir}: ${e.message}` }] })))
  )
  const folder = real ?? dir
  const file = path.join(folder, AgentConfig.FILE_NAME)
  if (real === undefined) return { folder, file, text: undefined }
  const text = yield* readText(file)
  return { folder, file, text }
})

export interface TrustResult {
  /** The folder's real path. */
  readonly folder: string
  /** The config file trusted with it, when it has one. */
  readonly file: string | undefined
  readonly sha256: string | null
}

/**
 * Trusts a folder with its current `agent-tools.json` (or with none: a config that appears later
 * is not trusted). The config must be valid: trusting a file the tools would refuse helps no one.
 */
export const trust = Effect.fn("WorkspaceTrust.trust")(function*(dir: string, options: { readonly platform?: string | undefined } = {}) {
  const configDir = yield* DataDir.configDir(options.platform)
  const { folder, file, text } = yield* folderOf(dir, true)
  if (text !== undefined) yield* AgentConfig.decodeText(text, file)
  const store = yield* readStore(configDir)
  const sha256 = hash(text)
  const trustedAt = DateTime.formatIso(yield* DateTime.now)
  yield* writeStore(configDir, { version: 1, folders: { ...store.folders, [folder]: { sha256, trustedAt } } })
  return { folder, file: text === undefined ? undefined : file, sha256 } satisfies TrustResult
})

/** Removes a folder from the trust list; false when it was not in it. */
export const revoke = Effect.fn("WorkspaceTrust.revoke")(function*(dir: string, options: { readonly platform?: string | undefined } = {}) {
  const configDir = yield* DataDir.configDir(options.platform)
  const { folder } = yield* folderOf(dir, true)
  const store = yield* readStore(configDir)
  if (!Object.hasOwn(store.folders, folder)) return { folder, revoked: false }
  const { [folder]: _, ...rest } = store.folders
  yield* writeStore(configDir, { version: 1, folders: rest })
  return { folder, revoked: true }
})

/** Reads an optional config file: undefined when it does not exist. */
const loadOptional = Effect.fnUntraced(function*(file: string) {
  const text = yield* readText(file)
  return text === undefined ? undefined : { text, config: yield* AgentConfig.decodeText(text, file) }
})

const sources = (...configs: ReadonlyArray<{ readonly config: AgentConfig.AgentConfig; readonly file: string | undefined }>) =>
  configs.flatMap(({ config, file }): Array<PermissionSource> => config.permission === undefined ? [] : [{ permission: config.permission, file }])

/**
 * The config a workspace runs with. An explicit `config` (object or file) is the whole, trusted
 * config. Otherwise the user's config, then the workspace's `agent-tools.json` over it: in full
 * when the folder is trusted with this very file, else only what narrows it.
 */
export const load = Effect.fn("WorkspaceTrust.load")(function*(options: {
  readonly cwd: string
  readonly config?: AgentConfig.Input | string | undefined
  readonly platform?: string | undefined
}) {
  const path = yield* Path.Path
  const cwd = path.resolve(options.cwd)
  if (options.config !== undefined) {
    const { config, file } = yield* AgentConfig.load({ cwd, config: options.config })
    return {
      config,
      file,
      userFile: undefined,
      permissions: sources({ config, file }),
      trust: { file: undefined, folder: cwd, trusted: true, changed: false, ignored: [] }
    } satisfies Loaded
  }
  const configDir = yield* DataDir.configDir(options.platform)
  const userFile = path.join(configDir, AgentConfig.FILE_NAME)
  const user = yield* loadOptional(userFile)
  const userConfig = user?.config ?? {}
  const { folder, file, text } = yield* folderOf(cwd, false)
  const entry = (yield* readStore(configDir)).folders[folder]
  const sha256 = hash(text)
  const trusted = entry !== undefined && entry.sha256 === sha256
  const changed = entry !== undefined && !trusted
  const userSource = { config: userConfig, file: user === undefined ? undefined : userFile }
  if (text === undefined) {
    return {
      config: userConfig,
      file: userSource.file,
      userFile: userSource.file,
      permissions: sources(userSource),
      trust: { file: undefined, folder, trusted, changed, ignored: [] }
    } satisfies Loaded
  }
  const own = yield* AgentConfig.decodeText(text, file)
  const home = yield* DataDir.home(options.platform)
  const inside = (p: string) => {
    const resolved = path.resolve(cwd, PermissionRules.expandHome(p, home))
    const relative = path.relative(cwd, resolved)
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))
  }
  const narrowed = trusted ? { config: own, ignored: [] } : ConfigNarrowing.narrow(own, { user: userConfig, inside })
  return {
    config: ConfigNarrowing.merge(userConfig, narrowed.config),
    file,
    userFile: userSource.file,
    permissions: sources(userSource, { config: narrowed.config, file }),
    trust: { file, folder, trusted, changed, ignored: narrowed.ignored }
  } satisfies Loaded
})

/** A shell word for a folder in the command to run (quoted when it needs to be). */
const shellWord = (s: string) => /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`

/**
 * The warning for a workspace config that was only partly applied (undefined when nothing was left
 * out): what was ignored, and the command that applies it.
 */
export const warning = (trust: Trust): string | undefined => {
  if (trust.ignored.length === 0 || trust.file === undefined) return undefined
  const command = `agent-tools trust ${shellWord(trust.folder)}`
  return trust.changed
    ? `workspace config changed since it was trusted (${trust.file}): ignored ${trust.ignored.join(", ")} — ` +
      `check the file, then run \`${command}\` to apply them`
    : `workspace config untrusted (${trust.file}): ignored ${trust.ignored.join(", ")} — run \`${command}\` to apply them`
}
