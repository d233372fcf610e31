/**
 * What an untrusted workspace's `agent-tools.json` may change, and how configs combine.
 *
 * A workspace the user has not trusted is someone else's input: its config may only make the
 * user's setup stricter (ask and deny rules, shorter outputs, fewer tools, a stricter sandbox).
 * Everything that runs code (MCP servers, custom tools, plugins, language servers) or widens access
 * (allow rules, sandbox paths, private network, where spills go) is dropped and named.
 *
 * The classification is a table, key by key. A key the table does not name is dropped: a new
 * config key is treated as widening until someone classifies it here.
 */
import { Jobs, Wildcard } from "@agent-tools/core"
import type * as AgentConfig from "./AgentConfig.ts"
import { Bubblewrap, SandboxLimits } from "@agent-tools/node"

export interface Context {
  /** The trusted config the workspace's would narrow (the user's, or `--config`'s). */
  readonly user: AgentConfig.AgentConfig
  /** Whether a path of the config (as written: relative to the workspace root, `~`) stays inside the workspace. */
  readonly inside: (path: string) => boolean
}

export interface Narrowed {
  readonly config: AgentConfig.AgentConfig
  /** The key paths dropped, in the config's order, e.g. `mcp`, `permission.bash["git *"]=allow`. */
  readonly ignored: ReadonlyArray<string>
}

/** Keeps the part of a value that narrows (undefined: nothing) and names the parts dropped. */
type Classifier = (value: unknown, path: string, ctx: Context) => { readonly kept: unknown; readonly ignored: ReadonlyArray<string> }

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** `a.b` for a plain key, `a["git *"]` for any other. */
export const keyPath = (base: string, key: string): string =>
  IDENTIFIER.test(key)
    ? (base === "" ? key : `${base}.${key}`)
    : `${base}[${JSON.stringify(key)}]`

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Harmless: kept as written. */
const keep: Classifier = (value) => ({ kept: value, ignored: [] })

/** Runs code or widens: dropped whole. */
const ignore: Classifier = (_value, path) => ({ kept: undefined, ignored: [path] })

/** Kept only when `narrows` says the value turns something off. */
const keepWhen = (narrows: (value: unknown) => boolean): Classifier => (value, path) =>
  narrows(value) ? { kept: value, ignored: [] } : { kept: undefined, ignored: [`${path}=${JSON.stringify(value)}`] }

/**
 * An enum ordered from loosest to strictest: the workspace's value is kept when it is at least as
 * strict as the user's (or the default when the user set none). A value not in the order is dropped.
 */
const atLeastAsStrict = (order: ReadonlyArray<string>, userValue: (user: AgentConfig.AgentConfig) => unknown, fallback: string): Classifier =>
(value, path, ctx) => {
  const rank = order.indexOf(String(value))
  const user = userValue(ctx.user)
  const userRank = order.indexOf(typeof user === "string" ? user : fallback)
  return rank !== -1 && rank >= userRank ? { kept: value, ignored: [] } : { kept: undefined, ignored: [`${path}=${JSON.stringify(value)}`] }
}

/** A limit: the workspace's number is kept when it is at most the user's (or the default). */
const noMoreThan = (userValue: (user: AgentConfig.AgentConfig) => number | undefined, fallback: number): Classifier =>
(value, path, ctx) =>
  typeof value === "number" && value <= (userValue(ctx.user) ?? fallback)
    ? { kept: value, ignored: [] }
    : { kept: undefined, ignored: [`${path}=${JSON.stringify(value)}`] }

/** Paths kept only when they stay inside the workspace. */
const insideOnly: Classifier = (value, path, ctx) => {
  if (!Array.isArray(value)) return ignore(value, path, ctx)
  const kept = value.filter((p): p is string => typeof p === "string" && ctx.inside(p))
  const ignored = value.flatMap((p, i) => typeof p === "string" && ctx.inside(p) ? [] : [`${path}[${i}]=${JSON.stringify(p)}`])
  return { kept, ignored }
}

/** An object classified key by key; keys the table does not name are dropped. */
const object = (table: Readonly<Record<string, Classifier>>): Classifier => (value, path, ctx) => {
  if (!isRecord(value)) return ignore(value, path, ctx)
  const kept: Record<string, unknown> = {}
  const ignored: Array<string> = []
  for (const [key, child] of Object.entries(value)) {
    const classify = Object.hasOwn(table, key) ? table[key]! : ignore
    const result = classify(child, keyPath(path, key), ctx)
    if (result.kept !== undefined) kept[key] = result.kept
    ignored.push(...result.ignored)
  }
  return { kept: Object.keys(kept).length === 0 ? undefined : kept, ignored }
}

// ---------------------------------------------------------------------------------------------
// Permission rules

/** The permissions the user's own rules deny somewhere (`*` when the whole config is `deny`). */
const userDenied = (user: AgentConfig.AgentConfig): ReadonlyArray<string> => {
  const p = user.permission
  if (p === undefined) return []
  if (typeof p === "string") return p === "deny" ? ["*"] : []
  return Object.entries(p).flatMap(([permission, value]) =>
    value === "deny" || (isRecord(value) && Object.values(value).includes("deny")) ? [permission] : []
  )
}

/**
 * Ask and deny rules are kept, allow rules dropped. Rules are ordered (the last match wins), so a
 * workspace `ask` placed after a user's `deny` would turn it into an ask (and `--yes` allows asks):
 * an `ask` rule for a permission the user denies anything of is dropped too.
 */
const permission: Classifier = (value, path, ctx) => {
  const denied = userDenied(ctx.user)
  const overridesDeny = (permission: string) =>
    denied.some((d) => Wildcard.match(permission, d) || Wildcard.match(d, permission))
  const keepAction = (action: unknown, permission: string) =>
    action === "deny" || (action === "ask" && !overridesDeny(permission))
  if (typeof value === "string") {
    return keepAction(value, "*") ? { kept: value, ignored: [] } : { kept: undefined, ignored: [`${path}=${value}`] }
  }
  if (!isRecord(value)) return ignore(value, path, ctx)
  const kept: Record<string, unknown> = {}
  const ignored: Array<string> = []
  for (const [name, rule] of Object.entries(value)) {
    const at = keyPath(path, name)
    if (typeof rule === "string") {
      if (keepAction(rule, name)) kept[name] = rule
      else ignored.push(`${at}=${rule}`)
      continue
    }
    if (!isRecord(rule)) {
      ignored.push(at)
      continue
    }
    const patterns: Record<string, unknown> = {}
    for (const [pattern, action] of Object.entries(rule)) {
      if (keepAction(action, name)) patterns[pattern] = action
      else ignored.push(`${at}[${JSON.stringify(pattern)}]=${String(action)}`)
    }
    if (Object.keys(patterns).length > 0) kept[name] = patterns
  }
  return { kept: Object.keys(kept).length === 0 ? undefined : kept, ignored }
}

// ---------------------------------------------------------------------------------------------
// The table

const lspOff = (value: unknown) => value === false || (isRecord(value) && value.enabled === false && Object.keys(value).length === 1)

/**
 * Every key of `agent-tools.json` and what an untrusted workspace may do with it. Sandbox keys not
 * named here (a new one) are dropped: a sandbox setting is presumed to widen until classified.
 */
export const TABLE: Readonly<Record<string, Classifier>> = {
  $schema: keep,
  permission,
  truncation: keep,
  spill: object({ retentionDays: keep, maxBytes: keep, maxTotalBytes: keep }),
  tools: object({ disabled: keep }),
  sandbox: object({
    mode: atLeastAsStrict(["off", "auto", "required"], (u) => u.sandbox?.mode, "auto"),
    network: atLeastAsStrict(["allow", "proxy", "deny"], (u) => u.sandbox?.network, Bubblewrap.DEFAULT_NETWORK),
    // More read-only paths only narrow what a command may write.
    protectedPaths: keep,
    maxProcesses: noMoreThan((u) => u.sandbox?.maxProcesses, SandboxLimits.DEFAULT_MAX_PROCESSES),
    tmpMaxBytes: noMoreThan((u) => u.sandbox?.tmpMaxBytes, SandboxLimits.DEFAULT_TMP_MAX_BYTES)
  }),
  // Fewer jobs, less memory and shorter time limits only narrow; how long a start waits is neutral.
  jobs: object({
    maxJobs: noMoreThan((u) => u.jobs?.maxJobs, Jobs.defaults.maxJobs),
    ringBytes: noMoreThan((u) => u.jobs?.ringBytes, Jobs.defaults.ringBytes),
    idleTimeout: noMoreThan((u) => u.jobs?.idleTimeout, Infinity),
    timeLimit: noMoreThan((u) => u.jobs?.timeLimit, Infinity),
    startYield: keep
  }),
  apply_patch: keep,
  skills: object({ directories: insideOnly }),
  experimental: object({ batch_tool: keep, lsp_tool: keep }),
  lsp: keepWhen(lspOff),
  webfetch: object({ allowPrivateNetwork: keepWhen((v) => v === false) }),
  websearch: object({ enabled: keepWhen((v) => v === false) }),
  mcp: ignore
}

/** The part of an untrusted workspace config that only narrows the user's, and the key paths dropped. */
export const narrow = (workspace: AgentConfig.AgentConfig, ctx: Context): Narrowed => {
  const result = object(TABLE)(workspace, "", ctx)
  return { config: (result.kept ?? {}) as AgentConfig.AgentConfig, ignored: result.ignored }
}

// ---------------------------------------------------------------------------------------------
// Combining

/**
 * The workspace's config over the user's: objects merge key by key, lists join (the user's
 * `tools.disabled` stay disabled, both configs' tool directories load), any other value (a
 * string, a number, `lsp: true`) is the workspace's. An MCP server of the same name is the
 * workspace's whole, and a spill `dir` or `s3` replaces the other. `permission` is not merged here:
 * its rules are ordered, so each config's rules are kept as a list (see `WorkspaceTrust.load`);
 * the result carries the workspace's permission when it has one.
 */
export const merge = (user: AgentConfig.AgentConfig, workspace: AgentConfig.AgentConfig): AgentConfig.AgentConfig => {
  const { permission: userPermission, ...userRest } = user
  const { permission: workspacePermission, ...workspaceRest } = workspace
  const permission = workspacePermission ?? userPermission
  const merged = deepMerge(userRest, workspaceRest, "") as AgentConfig.AgentConfig
  return permission === undefined ? merged : { ...merged, permission }
}

/** Values replaced whole rather than merged: an MCP server's settings belong together. */
const REPLACED = (path: string) => path.startsWith("mcp.")

/** Keys that exclude each other: setting one drops the others of the base. */
const EXCLUSIVE: Readonly<Record<string, ReadonlyArray<string>>> = { spill: ["dir", "s3"] }

const deepMerge = (base: unknown, over: unknown, path: string): unknown => {
  if (over === undefined) return base
  if (Array.isArray(base) && Array.isArray(over)) return [...new Set([...base, ...over])]
  if (!isRecord(base) || !isRecord(over) || REPLACED(path)) return over
  const result: Record<string, unknown> = { ...base }
  const exclusive = EXCLUSIVE[path] ?? []
  if (exclusive.some((key) => over[key] !== undefined)) for (const key of exclusive) delete result[key]
  for (const [key, value] of Object.entries(over)) {
    result[key] = deepMerge(result[key], value, path === "" ? key : `${path}.${key}`)
  }
  return result
}
