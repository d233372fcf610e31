/**
 * Everything the tool layer needs on Node, in one layer: the workspace's config, the built-in and
 * custom tools in a registry, permissions, truncation with a filesystem spill store in the user's
 * data directory, staleness tracking and path containment.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import type { ChildProcessSpawner } from "effect/process"
// The module, not the package index: the index loads every Node module (HTTP, sockets, redis…).
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import {
  EnvVar,
  Events,
  FileTime,
  ModuleLoader,
  Permission,
  PermissionRules,
  ProtectedPaths,
  QuestionResponder,
  Ripgrep,
  Sandbox,
  SpillStorage,
  SubagentRunner,
  TodoStore,
  Tool,
  ToolNames,
  ToolRegistry,
  Truncate,
  Workspace
} from "@agent-tools/core"
import { ApplyPatchConfig, BackgroundJobs, Bash, BatchConfig, builtins, LspToolConfig, searchTools, Skills, Web } from "@agent-tools/tools"
import * as AgentConfig from "./AgentConfig.ts"
import { AnalysisWorker, Bubblewrap, DataDir, NativeRealPath, NodeGrammar, NodeStat, NodeTerminal, WebFetchClient } from "@agent-tools/node"
import * as Defaults from "./Defaults.ts"
import * as OptionalPackages from "./OptionalPackages.ts"
import * as WorkspaceTrust from "./WorkspaceTrust.ts"

export interface Options {
  /** The workspace root. */
  readonly cwd: string
  /**
   * The config: an object with the file's content, or a file path (relative to `cwd`); it is
   * trusted and is the whole config. Default: the user's `agent-tools.json` (in the user's config
   * directory), then `agent-tools.json` in `cwd` over it: in full when the user trusted that folder
   * with that file (`agent-tools trust`), else only what narrows (see WorkspaceTrust).
   */
  readonly config?: AgentConfig.Input | string | undefined
  /**
   * What a permission `ask` does: `wait` for a `Permission.reply` (default; a UI or prompt answers),
   * `reject` at once (no one to ask), or `allow` at once (pre-approved, e.g. `--yes`).
   * Deny rules deny in every mode.
   */
  readonly unattended?: Permission.LayerOptions["unattended"]
  /** The tool definitions (default: the built-ins of `@agent-tools/tools`). */
  readonly tools?: ReadonlyArray<Tool.Definition<string, any, any>> | undefined
  /** Registry options beyond the config file's (hooks, agents, inline plugins, allowOverride, …). */
  readonly registry?: ToolRegistry.Options | undefined
  /** How grep, glob and list find ripgrep (default: `rg` when found, else the portable walker). */
  readonly ripgrep?: Ripgrep.LayerOptions | undefined
  /** FileTime options; `{ disabled: true }` for one-shot calls that never read first. */
  readonly fileTime?: FileTime.LayerOptions | undefined
  /**
   * Extra services for the tools, or replacements of the embedded ones (they win, for the tools
   * and for every service built here): an Lsp implementation, a remote SpillStorage (Truncate
   * spills to it, read pages it), a fake Permission in tests.
   */
  readonly services?: Layer.Layer<any, never, Platform> | undefined
  /** Selects the data directory and path matching (default `process.platform`). */
  readonly platform?: string | undefined
  /**
   * Analyse big bash commands on a worker thread, so a server keeps answering other calls
   * meanwhile (default true). A one-shot call has nothing else to serve and skips its start-up.
   */
  readonly analysisWorker?: boolean | undefined
  /**
   * How the optional packages (MCP client, S3 spill store, language servers) are imported when the
   * config asks for them (default: `import()` of `@agent-tools/mcp`, `@agent-tools/spill-s3`,
   * `@agent-tools/lsp`).
   */
  readonly optionalPackages?: Partial<OptionalPackages.Importers> | undefined
  /**
   * Background jobs (bash `run_in_background`, bash_output, bash_kill) owned by the layer's scope,
   * the session: when it closes, every job is killed with its process tree (default true). A
   * one-shot call sets false: nothing it starts may outlive it, so the job tools refuse with the reason.
   */
  readonly jobs?: boolean | undefined
}

/** What the node layer needs from the platform (`NodeServices` supplies it). */
export type Platform = FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner

/** The workspace settings after the config was loaded and the defaults applied. */
export interface Settings {
  /** The workspace root (absolute). */
  readonly cwd: string
  /** The explicit config file, else the workspace's `agent-tools.json` when present, else the user's. */
  readonly file: string | undefined
  /** The combined config (the permission rules are in `rules`). */
  readonly config: AgentConfig.AgentConfig
  /** Whether the workspace's own config was trusted, and what of it was ignored. */
  readonly trust: WorkspaceTrust.Trust
  /** The embedded default rules followed by the user's, then the workspace's rules. */
  readonly rules: Permission.Ruleset
  /** The spill store's root; each workspace's spills live in a subdirectory of it. */
  readonly spillDir: string
  readonly retentionDays: number | undefined
  /** The most bytes one spill keeps (undefined: the store's default). */
  readonly spillMaxBytes: number | undefined
  /** The most bytes all of the workspace's spills take together (undefined: the store's default). */
  readonly spillMaxTotalBytes?: number | undefined
  /** Spills in this S3 bucket instead of `spillDir` (config `spill.s3`). */
  readonly spillS3: AgentConfig.S3Spill | undefined
  readonly platform: string
  /** The sandbox config, extra paths absolute. */
  readonly sandbox: Bubblewrap.Options
  /** Where the skill tool looks for skills (absolute). */
  readonly skillDirectories: ReadonlyArray<string>
  /** The Exa endpoint and key when websearch is enabled (websearch and codesearch are offered then). */
  readonly search: Web.ExaSettings | undefined
  /** The enabled MCP servers by name, local servers' `cwd` absolute. */
  readonly mcp: Record<string, OptionalPackages.McpServer>
}

export class NodeSettings extends Context.Service<NodeSettings, Settings>()("@agent-tools/runtime/Settings") {}

/** The services the node layer provides. */
export type Services =
  | ToolRegistry.ToolRegistry
  | Permission.Permission
  | SpillStorage.SpillStorage
  | Truncate.Truncate
  | Events.Events
  | FileTime.FileTime
  | Workspace.Workspace
  | ModuleLoader.ModuleLoader
  | Ripgrep.Ripgrep
  | Sandbox.Sandbox
  | Bash.BashParser
  | TodoStore.TodoStore
  | QuestionResponder.QuestionResponder
  | SubagentRunner.SubagentRunner
  | NodeSettings

export type LayerError =
  | AgentConfig.ConfigError
  | Workspace.WorkspaceRootError
  | Ripgrep.RipgrepNotFoundError
  | OptionalPackages.MissingPackageError

/** Loads the config and applies the defaults, without building any service. */
export const settings = Effect.fn("NodeAgentTools.settings")(function*(options: Pick<Options, "cwd" | "config" | "platform">) {
  const path = yield* Path.Path
  const platform = options.platform ?? process.platform
  const cwd = path.resolve(options.cwd)
  const { config, file, permissions, trust } = yield* WorkspaceTrust.load({ cwd, config: options.config, platform })
  const home = yield* DataDir.home(platform)
  const toConfigError = (file: string | undefined) => (e: PermissionRules.PermissionConfigError) =>
    new AgentConfig.ConfigError({ ...(file === undefined ? {} : { file }), problems: [{ path: e.path, reason: e.reason }] })
  const defaults = yield* PermissionRules.fromConfig(Defaults.permission, { home }).pipe(Effect.mapError(toConfigError(undefined)))
  const own: Array<Permission.Ruleset> = []
  for (const source of permissions) {
    own.push(yield* PermissionRules.fromConfig(source.permission, { home }).pipe(Effect.mapError(toConfigError(source.file))))
  }
  const dir = config.spill?.dir
  const spillDir = dir === undefined
    ? yield* DataDir.spillDir(platform)
    : path.resolve(cwd, PermissionRules.expandHome(dir, home))
  const absolute = (paths: ReadonlyArray<string> | undefined) =>
    paths?.map((p) => path.resolve(cwd, PermissionRules.expandHome(p, home)))
  const sandbox: Bubblewrap.Options = {
    mode: config.sandbox?.mode,
    network: config.sandbox?.network,
    extraWritable: absolute(config.sandbox?.extraWritable),
    extraReadable: absolute(config.sandbox?.extraReadable),
    env: config.sandbox?.env,
    maxProcesses: config.sandbox?.maxProcesses,
    tmpMaxBytes: config.sandbox?.tmpMaxBytes,
    platform,
    root: cwd
  }
  const search = yield* searchSettings(config, file)
  const mcp: Record<string, OptionalPackages.McpServer> = {}
  for (const [name, server] of Object.entries(config.mcp ?? {})) {
    if (server.enabled === false) continue
    mcp[name] = server.type === "local" && server.cwd !== undefined ? { ...server, cwd: path.resolve(cwd, server.cwd) } : server
  }
  return {
    cwd,
    file,
    config,
    trust,
    rules: PermissionRules.merge(defaults, ...own),
    spillDir,
    retentionDays: config.spill?.retentionDays,
    spillMaxBytes: config.spill?.maxBytes,
    spillMaxTotalBytes: config.spill?.maxTotalBytes,
    spillS3: config.spill?.s3,
    platform,
    sandbox,
    skillDirectories: absolute(config.skills?.directories ?? Skills.DEFAULT_DIRECTORIES)!,
    search,
    mcp
  } satisfies Settings
})

/** The Exa endpoint and key of an enabled websearch; a key variable that is not set is a config error. */
const searchSettings = Effect.fnUntraced(function*(config: AgentConfig.AgentConfig, file: string | undefined) {
  const search = config.websearch
  if (search?.enabled !== true) return undefined
  const endpoint = search.endpoint ?? Web.DEFAULT_ENDPOINT
  if (search.apiKey !== undefined) return { endpoint, apiKey: Redacted.make(search.apiKey) } satisfies Web.ExaSettings
  const name = search.apiKeyEnv ?? ""
  const value = yield* EnvVar.option(name)
  if (Option.isNone(value) || value.value === "") {
    return yield* new AgentConfig.ConfigError({
      ...(file === undefined ? {} : { file }),
      problems: [{ path: "websearch.apiKeyEnv", reason: `the environment variable ${name} is not set` }]
    })
  }
  return { endpoint, apiKey: Redacted.make(value.value) } satisfies Web.ExaSettings
})

/**
 * The spill store of the settings: files in this workspace's private subdirectory of `spillDir`,
 * deleted after `retentionDays`, each at most `spillMaxBytes` long. Commands write their output
 * straight into its files (`direct`): they are on the disk the commands see. With `spillS3`, the
 * spills are objects in that bucket instead.
 */
export const spillLayer = (
  s: Settings,
  importers: OptionalPackages.Importers = OptionalPackages.importers
): Layer.Layer<SpillStorage.SpillStorage, OptionalPackages.MissingPackageError, FileSystem.FileSystem | Path.Path> =>
  s.spillS3 === undefined
    ? SpillStorage.layer({
      dir: s.spillDir,
      workspace: s.cwd,
      retentionDays: s.retentionDays,
      maxBytes: s.spillMaxBytes,
      maxTotalBytes: s.spillMaxTotalBytes,
      direct: true
    })
    : s3SpillLayer(s.spillS3, s, importers)

/**
 * The spill store in an S3 bucket (config `spill.s3`), credentials from the AWS SDK's default
 * chain. The package and the SDK are loaded only here: a process without `spill.s3` never loads them.
 */
const s3SpillLayer = (
  s3: AgentConfig.S3Spill,
  s: Settings,
  importers: OptionalPackages.Importers
): Layer.Layer<SpillStorage.SpillStorage, OptionalPackages.MissingPackageError> =>
  Layer.unwrap(
    Effect.map(
      OptionalPackages.load(importers, "spillS3"),
      ({ S3SpillStorage }) => S3SpillStorage.layer({ ...s3, retentionDays: s.retentionDays, maxBytes: s.spillMaxBytes })
    )
  )

const registryOptions = (s: Settings, extra: ToolRegistry.Options = {}): ToolRegistry.Options => ({
  ...extra,
  disabled: [...(s.config.tools?.disabled ?? []), ...(extra.disabled ?? [])],
  directories: [...(s.config.tools?.directories ?? []), ...(extra.directories ?? [])],
  plugins: [...(s.config.tools?.plugins ?? []), ...(extra.plugins ?? [])]
})

/**
 * Language servers when the config's `lsp` enables them, else nothing (the tools see the no-op
 * `Lsp`). The server client is loaded only then: a process without LSP never imports it.
 */
const lspLayer = (
  s: Settings,
  importers: OptionalPackages.Importers
): Layer.Layer<never, OptionalPackages.MissingPackageError, Platform> => {
  const lsp = s.config.lsp
  if (lsp === undefined || lsp === false || (typeof lsp === "object" && lsp.enabled === false)) return Layer.empty
  const diagnosticsTimeout = typeof lsp === "object" ? lsp.diagnosticsTimeout : undefined
  const workspaceTypeScript = typeof lsp === "object" ? lsp.workspaceTypeScript : undefined
  return Layer.unwrap(
    Effect.map(
      OptionalPackages.load(importers, "lsp"),
      ({ NodeLsp }) => NodeLsp.layer({ root: s.cwd, diagnosticsTimeout, workspaceTypeScript })
    )
  )
}

/** The layer for already-loaded settings. */
export const layerFromSettings = (
  s: Settings,
  options: Omit<Options, "cwd" | "config" | "platform"> = {}
): Layer.Layer<Services, LayerError, Platform> => {
  // The user's services are merged in before anything is built on them and again over what is
  // built here, so each replacement (a remote SpillStorage, a fake Permission, …) is the one every
  // service and tool sees: Truncate spills to the user's store, Workspace and read page it.
  const user = options.services ?? Layer.empty
  const importers = { ...OptionalPackages.importers, ...options.optionalPackages }
  const base = Layer.mergeAll(
    spillLayer(s, importers),
    Events.layer(),
    ModuleLoader.layer(),
    FileTime.layer(options.fileTime),
    Layer.succeed(NodeSettings, s),
    // The workspace's control files: read-only in the sandbox, always asked by the file tools.
    ProtectedPaths.layer(s.config.sandbox?.protectedPaths ?? []),
    // Real pseudo-terminals for terminal jobs (the PTY package is loaded when the first one opens).
    NodeTerminal.layer(),
    // Replaceable through `services`: a persistent todo store, the host's question responder and
    // sub-agent runner (without them, question and task are not offered).
    TodoStore.layerMemory,
    QuestionResponder.layerNone,
    SubagentRunner.layerNone
  ).pipe(Layer.merge(user))
  const core = Layer.mergeAll(
    Truncate.layer(s.config.truncation),
    Permission.layer({ rules: s.rules, unattended: options.unattended, platform: s.platform }),
    // This workspace's spill directory (of the SpillStorage below) is readable without asking.
    Workspace.layerWithSpillStorage({ root: s.cwd }),
    // rg from the configured path, PATH or the download cache, else the portable walker; glob's
    // mtimes stat'ed in this process and kept for the session by directory watches. Never an rg the
    // workspace or a sandboxed command could plant.
    Ripgrep.layer({ statBatch: NodeStat.statBatch, watch: NodeStat.directoryWatch, untrusted: [s.cwd, ...(s.sandbox.extraWritable ?? [])], ...options.ripgrep }),
    // The bash tool's tree-sitter parser (wasm, loaded once; the grammar compiled by V8's baseline compiler only).
    Bash.parserLayer.pipe(Layer.provide(NodeGrammar.layer)),
    // Big bash commands are analysed on a worker thread: other calls are served meanwhile.
    options.analysisWorker === false ? Layer.empty : AnalysisWorker.layer,
    // Every bash call in a bubblewrap sandbox where it can run (probed once; warns when not).
    Bubblewrap.layer(s.sandbox),
    Layer.succeed(ApplyPatchConfig, { mode: s.config.apply_patch?.mode ?? "atomic" }),
    Layer.succeed(BatchConfig, { enabled: s.config.experimental?.batch_tool === true }),
    Layer.succeed(LspToolConfig, { enabled: s.config.experimental?.lsp_tool === true }),
    lspLayer(s, importers),
    Layer.succeed(Skills.SkillConfig, { directories: s.skillDirectories }),
    // webfetch's client refuses private, link-local and loopback addresses unless allowed.
    WebFetchClient.layer({ allowPrivateNetwork: s.config.webfetch?.allowPrivateNetwork }),
    s.search === undefined ? Layer.empty : Layer.merge(Layer.succeed(Web.ExaConfig, s.search), NodeHttpClient.layerNodeHttp)
  ).pipe(Layer.provideMerge(base))
  // Jobs live as long as this layer (the session) and are killed with their trees when it closes.
  const jobs = options.jobs === false
    ? core
    : BackgroundJobs.layer({ ...s.config.jobs, platform: s.platform }).pipe(Layer.provideMerge(core))
  // The workspace config's ignored keys are told once, as the layer is built (stderr for the CLI).
  const warning = WorkspaceTrust.warning(s.trust)
  const services = Layer.mergeAll(jobs, user, warning === undefined ? Layer.empty : Layer.effectDiscard(Effect.logWarning(warning)))
  // Built-in tools are typed with open requirements; this layer provides everything listed above.
  // websearch and codesearch, when enabled, are offered right after webfetch.
  const afterWebFetch = builtins.findIndex((t) => t.id === "webfetch") + 1
  const tools = options.tools ??
    (s.search === undefined ? builtins : [...builtins.slice(0, afterWebFetch), ...searchTools, ...builtins.slice(afterWebFetch)])
  const registry = ToolRegistry.layer(tools, registryOptions(s, options.registry)) as Layer.Layer<
    ToolRegistry.ToolRegistry,
    never,
    Exclude<Services, ToolRegistry.ToolRegistry> | Platform
  >
  // A typo in `tools.disabled` would silently leave the tool enabled: refuse it instead.
  const checked = Layer.effect(
    ToolRegistry.ToolRegistry,
    Effect.gen(function*() {
      const built = yield* ToolRegistry.ToolRegistry
      yield* checkDisabled(s, yield* built.ids)
      return built
    })
  ).pipe(Layer.provide(registry))
  return withMcpServers(s, checked.pipe(Layer.provideMerge(services)), importers)
}

/**
 * The configured MCP servers as tool sources of the registry (started when their tools are first
 * listed or called). The client module is loaded only when servers are configured.
 */
const withMcpServers = <E, R>(
  s: Settings,
  layer: Layer.Layer<Services, E, R>,
  importers: OptionalPackages.Importers
): Layer.Layer<Services, E | OptionalPackages.MissingPackageError, R> =>
  Object.keys(s.mcp).length === 0 ? layer : Layer.effectDiscard(Effect.gen(function*() {
    const { McpServers } = yield* OptionalPackages.load(importers, "mcpClient")
    yield* McpServers.register(s.mcp, { cwd: s.cwd })
  })).pipe(Layer.provideMerge(layer))

/**
 * Fails with the config path of each `tools.disabled` entry that names no tool, listing the known
 * ids. An MCP server's tools are not known before it starts: an id with a server's prefix passes.
 */
const checkDisabled = (s: Settings, ids: ReadonlyArray<string>) => {
  const known = new Set(ids)
  const mcpPrefixes = [...ToolNames.assign(Object.keys(s.mcp)).toName.values()].map((prefix) => `${prefix}_`)
  const problems = (s.config.tools?.disabled ?? []).flatMap((id, i) =>
    known.has(id) || mcpPrefixes.some((prefix) => id.startsWith(prefix))
      ? []
      : [{ path: `tools.disabled[${i}]`, reason: `unknown tool id ${JSON.stringify(id)} (known: ${[...known].toSorted().join(", ")})` }]
  )
  return problems.length === 0
    ? Effect.void
    : Effect.fail(new AgentConfig.ConfigError({ ...(s.file === undefined ? {} : { file: s.file }), problems }))
}

/**
 * The tool layer for a workspace on the platform services in context (FileSystem, Path,
 * ChildProcessSpawner): for hosts that bring their own (the CLI, tests).
 */
export const layerWithoutPlatform = (options: Options): Layer.Layer<Services, LayerError, Platform> =>
  Layer.unwrap(Effect.map(settings(options), (s) => layerFromSettings(s, options)))

/** The tool layer for a workspace on Node, platform included (paths resolved by `NativeRealPath`). */
export const layer = (options: Options): Layer.Layer<Services | Platform, LayerError> =>
  layerWithoutPlatform(options).pipe(Layer.provide(NativeRealPath.layer), Layer.provideMerge(NodeServices.layer))
