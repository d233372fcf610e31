/**
 * The test twin of `@agent-tools/runtime`'s layer: one layer with everything a tool call needs — a
 * registry of the given tools, permission rules, a spill store, Truncate, FileTime, Events,
 * Workspace, a portable Ripgrep and a Sandbox (none unless given) — over an in-memory workspace
 * holding `files` (or over the platform a test brings). A test states its files, rules and tools instead of assembling services.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import {
  Events,
  FileTime,
  ModuleLoader,
  Permission,
  Ripgrep,
  RipgrepPortable,
  Sandbox,
  SpillStorage,
  Tool,
  ToolRegistry,
  Truncate,
  Workspace
} from "@agent-tools/core"
import * as Fixtures from "./Fixtures.ts"

/** Allows everything: for tests where permissions do not matter. */
export const allowAll: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

export interface Options<S = never> {
  /** The workspace's files: relative keys under `root`, absolute keys where they say (in memory only). */
  readonly files?: Fixtures.Files | undefined
  /** Symlinks and empty directories of the in-memory workspace (see `Fixtures.memoryWorkspace`). */
  readonly symlinks?: Fixtures.MemoryOptions["symlinks"]
  readonly directories?: Fixtures.MemoryOptions["directories"]
  /** The permission rules (default `allowAll`). */
  readonly rules?: Permission.Ruleset | undefined
  /** What an ask the rules leave open does (default `reject`: nobody answers in a test). */
  readonly unattended?: Permission.LayerOptions["unattended"]
  /**
   * Where spills go: `"memory"` (default, `SpillStorage.layerMemory`), `{ dir }` for a file store
   * in that directory (readable by read and grep without asking), or a store of your own.
   */
  readonly spill?: "memory" | { readonly dir: string } | Layer.Layer<SpillStorage.SpillStorage> | undefined
  /** The tools of the registry (default none). */
  readonly tools?: ReadonlyArray<Tool.Definition<string, any, any>> | undefined
  /** Registry options (hooks, agents, disabled ids, truncation policy, …). */
  readonly registry?: ToolRegistry.Options | undefined
  readonly truncation?: Truncate.Config | undefined
  readonly fileTime?: FileTime.LayerOptions | undefined
  /** The workspace root (default `Fixtures.root`, `/ws`); with `platform`, a real directory. */
  readonly root?: string | undefined
  /**
   * The FileSystem and Path (default: the in-memory workspace holding `files`). Pass
   * `NodeFileSystem.layer` + `NodePath.layer` to run on a real directory (`root`); `files` is then unused.
   */
  readonly platform?: Layer.Layer<FileSystem.FileSystem | Path.Path> | undefined
  /**
   * Extra services the tools need (a Sandbox, a ChildProcessSpawner, ApplyPatchConfig, …) or
   * replacements of the ones built here (a `ScriptedPermission.layer`, a fake Truncate): they win,
   * for the tools and for every service built here.
   */
  readonly services?: Layer.Layer<S, never, FileSystem.FileSystem | Path.Path> | undefined
  /**
   * The sandbox commands run in. Default: `Sandbox.layerNone` with the reason `noSandbox`, so a
   * test's bash results say `sandboxed: false`; pass `RecordingSandbox.make().layer` to see what a
   * tool asks the sandbox for, or the bubblewrap layer for real confinement.
   */
  readonly sandbox?: Layer.Layer<Sandbox.Sandbox> | undefined
  /** Modules custom tools and plugins import by name (`ModuleLoader.layerMemory`). */
  readonly modules?: Record<string, Record<string, unknown>> | undefined
}

/** What `layer` provides. */
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
  | FileSystem.FileSystem
  | Path.Path

/** The reason `layer`'s default sandbox gives for running commands unconfined. */
export const noSandbox = "the test kit runs commands without a sandbox (pass `sandbox` to Testing.layer for one)"

const spillLayer = (spill: Options["spill"]): Layer.Layer<SpillStorage.SpillStorage, never, FileSystem.FileSystem | Path.Path> =>
  spill === undefined || spill === "memory"
    ? SpillStorage.layerMemory()
    : "dir" in spill
    ? SpillStorage.layer({ dir: spill.dir })
    : spill

/** The services of a tool call over a test workspace (see the module doc). */
export const layer = <S = never>(options: Options<S> = {}): Layer.Layer<Services | S, Workspace.WorkspaceRootError> => {
  const platform = options.platform ??
    Fixtures.memoryWorkspace(options.files ?? {}, { symlinks: options.symlinks, directories: options.directories })
  // As in the node layer: the test's services are merged in before anything is built on them and
  // again over what is built here, so a replacement is the one every service and tool sees.
  // Without services S is never, and the empty layer provides exactly that.
  const user = options.services ?? (Layer.empty as unknown as Layer.Layer<S>)
  const base = Layer.mergeAll(
    spillLayer(options.spill),
    Events.layer(),
    ModuleLoader.layerMemory(options.modules ?? {}),
    FileTime.layer(options.fileTime),
    options.sandbox ?? Sandbox.layerNone(noSandbox)
  ).pipe(Layer.merge(user))
  const core = Layer.mergeAll(
    Truncate.layer(options.truncation),
    Permission.layer({ rules: options.rules ?? allowAll, unattended: options.unattended ?? "reject" }),
    Workspace.layerWithSpillStorage({ root: options.root ?? Fixtures.root }),
    RipgrepPortable.layer()
  ).pipe(Layer.provideMerge(base))
  const services = Layer.merge(core, user)
  // Tools are typed with open requirements; what they need beyond these comes from `services`.
  const registry = ToolRegistry.layer(options.tools ?? [], options.registry) as Layer.Layer<
    ToolRegistry.ToolRegistry,
    never,
    Exclude<Services, ToolRegistry.ToolRegistry>
  >
  return registry.pipe(Layer.provideMerge(services), Layer.provideMerge(platform))
}

/** Context options of `call` (default session `s1`). */
export type CallOptions = Partial<Parameters<typeof Tool.makeContext>[0]>

/** Calls a tool through the registry in context, as a runtime does, with a fresh context. */
export const call = (id: string, args: unknown, options: CallOptions = {}) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "s1", tool: id, ...options })
    return yield* registry.execute(id, args, ctx)
  })
