/**
 * A registry with the file tools over a given FileSystem, for the file and patch tests: the real
 * Permission (rules), FileTime, Workspace and Truncate layers, so calls go the way a runtime's do.
 */
import { Effect, FileSystem, Layer, Path } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { MemoryFileSystem, ScriptedPermission } from "@agent-tools/testing"
import { Events, FileTime, ModuleLoader, Permission, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { ApplyPatchConfig, ApplyPatchTool, EditTool, MultiEditTool, ReadTool, WriteTool } from "@agent-tools/tools"

export const allowAll: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

export interface Options {
  readonly root: string
  readonly rules?: Permission.Ruleset | undefined
  readonly mode?: "atomic" | "sequential" | undefined
  /** A file-system spill store in this directory (else an in-memory one). */
  readonly spillDir?: string | undefined
  /** Replaces the rule-based Permission (e.g. ScriptedPermission.layer to record asks). */
  readonly permission?: Layer.Layer<Permission.Permission | ScriptedPermission.Recorder> | undefined
}

export const tools = [ReadTool, WriteTool, EditTool, MultiEditTool, ApplyPatchTool]

/** The registry and its services over `platform` (a FileSystem and a Path). */
export const registry = (options: Options, platform: Layer.Layer<FileSystem.FileSystem | Path.Path>) => {
  const spill = options.spillDir === undefined ? SpillStorage.layerMemory() : SpillStorage.layer({ dir: options.spillDir })
  const services = Layer.mergeAll(
    Truncate.layer(),
    options.permission ??
      Layer.merge(
        Permission.layer({ rules: options.rules ?? allowAll, unattended: "reject" }),
        Layer.succeed(ScriptedPermission.Recorder, { asked: Effect.succeed([]) }) // nothing is recorded with real rules
      ),
    FileTime.layer(),
    Workspace.layer({ root: options.root, spillDirectories: options.spillDir === undefined ? [] : [options.spillDir] }),
    Layer.succeed(ApplyPatchConfig, { mode: options.mode ?? "atomic" })
  ).pipe(Layer.provideMerge(spill))
  return ToolRegistry.layer(tools).pipe(
    Layer.provideMerge(services),
    Layer.provideMerge(Layer.mergeAll(platform, ModuleLoader.layerMemory({}), Events.layer()))
  )
}

export const memory = (options: Options, files: MemoryFileSystem.Init | Record<string, string | Uint8Array>) =>
  registry(options, Layer.mergeAll(MemoryFileSystem.layer(files), Path.layer))

export const node = (options: Options) => registry(options, Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))

export const context = (sessionID = "s1") => Tool.makeContext({ sessionID, callID: "c1" })

/** Calls a tool through the registry; the result or the failure's message. */
export const call = (tool: string, args: unknown, sessionID = "s1") =>
  Effect.gen(function*() {
    const reg = yield* ToolRegistry.ToolRegistry
    return yield* reg.execute(tool, args, yield* context(sessionID))
  })

export const callError = (tool: string, args: unknown, sessionID = "s1") =>
  Effect.map(Effect.flip(call(tool, args, sessionID)), (e) => e.message)

export const bytes = (s: string) => new TextEncoder().encode(s)

export const readBytes = (file: string) => FileSystem.FileSystem.use((fs) => fs.readFile(file))
/** The file as text, a BOM included. */
export const readText = (file: string) => Effect.map(readBytes(file), (b) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(b))
