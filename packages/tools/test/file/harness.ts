/**
 * A registry with the file tools over a given FileSystem, for the file and patch tests: the real
 * Permission (rules), FileTime, Workspace and Truncate layers, so calls go the way a runtime's do.
 */
import { Effect, FileSystem, Layer, Path, Stream } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { MemoryFileSystem, ScriptedPermission, Testing } from "@agent-tools/testing"
import { Events, FileTime, Permission, Tool, ToolRegistry, Workspace } from "@agent-tools/core"
import { ApplyPatchConfig, ApplyPatchTool, EditTool, MultiEditTool, ReadTool, WriteTool } from "@agent-tools/tools"

export const allowAll: Permission.Ruleset = Testing.allowAll

export interface Options {
  readonly root: string
  readonly rules?: Permission.Ruleset | undefined
  readonly mode?: "atomic" | "sequential" | undefined
  /** A file-system spill store in this directory (else an in-memory one). */
  readonly spillDir?: string | undefined
  /** Replaces the rule-based Permission (e.g. ScriptedPermission.layer to record asks). */
  readonly permission?: Layer.Layer<Permission.Permission | ScriptedPermission.Recorder> | undefined
  /** Replaces the event bus (e.g. `recordingEvents` to assert on what was published). */
  readonly events?: Layer.Layer<Events.Events> | undefined
}

export const tools: ReadonlyArray<Tool.Definition<string, any, any>> = [ReadTool, WriteTool, EditTool, MultiEditTool, ApplyPatchTool]

export type Services = Testing.Services | ScriptedPermission.Recorder

/** The registry and its services over `platform` (a FileSystem and a Path). */
export const registry = (
  options: Options,
  platform: Layer.Layer<FileSystem.FileSystem | Path.Path>
): Layer.Layer<Services, Workspace.WorkspaceRootError> => {
  const applyPatch = Layer.succeed(ApplyPatchConfig, { mode: options.mode ?? "atomic" })
  // A replacement Permission (it wins over the rules), or the rules with nothing recorded.
  const permission: Layer.Layer<ScriptedPermission.Recorder> = options.permission ??
    Layer.succeed(ScriptedPermission.Recorder, { asked: Effect.succeed([]) })
  return Testing.layer({
    tools,
    root: options.root,
    platform,
    rules: options.rules ?? allowAll,
    unattended: "reject",
    spill: options.spillDir === undefined ? "memory" : { dir: options.spillDir },
    services: Layer.mergeAll(applyPatch, permission, options.events ?? Layer.empty)
  })
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

/**
 * Records a read of every file under `dir` for the session, as a model that read the files it is
 * about to patch: apply_patch, like edit, refuses a file this session has not read.
 */
export const readAll = (dir: string, sessionID = "s1"): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path | FileTime.FileTime> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const fileTime = yield* FileTime.FileTime
    const walk = (at: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const info = yield* fs.stat(at)
        if (info.type === "File") return yield* fileTime.read(sessionID, at)
        if (info.type !== "Directory") return
        for (const name of yield* fs.readDirectory(at)) {
          if (!name.endsWith(FileTime.LOCK_SUFFIX)) yield* walk(path.join(at, name))
        }
      }).pipe(Effect.ignore)
    yield* walk(dir)
  })

/** apply_patch through the registry, once every file of the workspace was read in the session. */
export const callPatch = (args: unknown, sessionID = "s1") =>
  Effect.gen(function*() {
    yield* readAll((yield* Workspace.Workspace).root, sessionID)
    return yield* call("apply_patch", args, sessionID)
  })

export const callPatchError = (args: unknown, sessionID = "s1") =>
  Effect.map(Effect.flip(callPatch(args, sessionID)), (e) => e.message)

export const bytes = (s: string) => new TextEncoder().encode(s)

export const readBytes = (file: string) => FileSystem.FileSystem.use((fs) => fs.readFile(file))
/** The file as text, a BOM included. */
export const readText = (file: string) => Effect.map(readBytes(file), (b) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(b))

/** An event bus that keeps every published event in `published`, in order. */
export const recordingEvents = (published: Array<Events.Event>): Layer.Layer<Events.Events> =>
  Layer.succeed(Events.Events, Events.Events.of({ publish: (e) => Effect.sync(() => void published.push(e)), subscribe: Stream.empty }))
