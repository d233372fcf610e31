/**
 * A registry with the session and agent tools (plus read and write, for batch) over an in-memory
 * workspace at /ws (`Testing.layer`): the real Permission, Truncate and Workspace layers, a memory
 * TodoStore, and the question responder / sub-agent runner a test gives (none by default).
 */
import { Effect, Layer } from "effect"
import { Permission, QuestionResponder, SubagentRunner, TodoStore, Tool, ToolRegistry, type Truncate, type Workspace } from "@agent-tools/core"
import { type Fixtures, Testing } from "@agent-tools/testing"
import {
  BatchConfig,
  BatchTool,
  InvalidTool,
  QuestionTool,
  ReadTool,
  SkillTool,
  Skills,
  TaskTool,
  TodoReadTool,
  TodoWriteTool,
  WriteTool
} from "@agent-tools/tools"

export const allowAll: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

export interface Options<Extra = never> {
  readonly files?: Fixtures.Files | undefined
  /** link path → target, like `Testing.layer`'s. */
  readonly symlinks?: Readonly<Record<string, string>> | undefined
  readonly rules?: Permission.Ruleset | undefined
  /** A question responder, and whatever else its layer provides (a recorder). */
  readonly questions?: Layer.Layer<QuestionResponder.QuestionResponder | Extra> | undefined
  readonly runner?: Layer.Layer<SubagentRunner.SubagentRunner | Extra> | undefined
  readonly batch?: boolean | undefined
  readonly skillDirectories?: ReadonlyArray<string> | undefined
  readonly truncation?: Truncate.Config | undefined
  /** Registry options (hooks, …). */
  readonly registryOptions?: ToolRegistry.Options | undefined
  /** What an `ask` does (default: reject at once). */
  readonly unattended?: Permission.LayerOptions["unattended"]
}

export const tools: ReadonlyArray<Tool.Definition<string, any, any>> = [ReadTool, WriteTool, TodoWriteTool, TodoReadTool, QuestionTool, TaskTool, BatchTool, SkillTool, InvalidTool]

export const registry = <Extra = never>(
  options: Options<Extra> = {}
): Layer.Layer<Testing.Services | Extra | TodoStore.TodoStore | QuestionResponder.QuestionResponder | SubagentRunner.SubagentRunner, Workspace.WorkspaceRootError> =>
  Testing.layer({
    tools,
    files: options.files,
    symlinks: options.symlinks,
    rules: options.rules ?? allowAll,
    unattended: options.unattended ?? "reject",
    truncation: options.truncation,
    fileTime: { disabled: true },
    registry: options.registryOptions,
    services: Layer.mergeAll(
      TodoStore.layerMemory,
      (options.questions ?? QuestionResponder.layerNone) as Layer.Layer<QuestionResponder.QuestionResponder | Extra>,
      (options.runner ?? SubagentRunner.layerNone) as Layer.Layer<SubagentRunner.SubagentRunner | Extra>,
      Layer.succeed(BatchConfig, { enabled: options.batch ?? false }),
      Layer.succeed(Skills.SkillConfig, { directories: options.skillDirectories ?? Skills.DEFAULT_DIRECTORIES })
    )
  })

export const context = (sessionID = "s1", callID = "c1") => Tool.makeContext({ sessionID, callID })

/** Calls a tool through the registry. */
export const call = (tool: string, args: unknown, sessionID = "s1") => Testing.call(tool, args, { sessionID, callID: "c1" })

/** The message of a call's failure. */
export const callError = (tool: string, args: unknown, sessionID = "s1") =>
  Effect.map(Effect.flip(call(tool, args, sessionID)), (e) => e.message)

/** The ids the registry offers. */
export const offered = ToolRegistry.ToolRegistry.use((reg) => Effect.map(reg.tools(), (list) => list.map((t) => t.id)))
