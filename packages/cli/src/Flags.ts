/**
 * Flags shared by several commands, and the tool layer they select.
 */
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ChildProcessSpawner } from "effect/process"
import type { Tool } from "@agent-tools/core"
import type { AgentConfig } from "@agent-tools/runtime"
import { Flag } from "effect/cli"
import { NodeAgentTools } from "@agent-tools/runtime"
import { NativeRealPath } from "@agent-tools/node"

export const cwd = Flag.String("cwd").pipe(
  Flag.withMetavar("DIR"),
  Flag.withDescription("The workspace root (default: the current directory)"),
  Flag.withDefault(".")
)

export const config = Flag.String("config").pipe(
  Flag.withMetavar("FILE"),
  Flag.withDescription(
    "The config file, trusted and used alone (default: your agent-tools.json in ~/.config/agent-tools, then the " +
      "workspace's agent-tools.json over it: in full once you ran `agent-tools trust`, else only what narrows yours)"
  ),
  Flag.optional
)

export const json = (description: string) =>
  Flag.Boolean("json").pipe(Flag.withDescription(description), Flag.withDefault(false))

export const yes = (description: string) =>
  Flag.Boolean("yes").pipe(Flag.withAlias("y"), Flag.withDescription(description), Flag.withDefault(false))

/** Spelled out (not NodeAgentTools.Platform) so the commands' declared types stay portable. */
type Platform = FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner

export interface Workspace {
  readonly cwd: string
  readonly config: Option.Option<string>
}

/** The tool definitions the commands use; undefined: the built-ins (embedders and tests set it). */
export const Tools = Context.Reference<ReadonlyArray<Tool.Definition<string, any, any>> | undefined>(
  "@agent-tools/cli/Tools",
  { defaultValue: () => undefined }
)

/**
 * The tool layer for a command's `--cwd` and `--config`, on the CLI's platform services (Node's:
 * paths resolved by `NativeRealPath`).
 */
export const agentLayer = (
  flags: Workspace,
  options: Omit<NodeAgentTools.Options, "cwd" | "config"> = {}
): Layer.Layer<NodeAgentTools.Services, NodeAgentTools.LayerError, Platform> =>
  Layer.unwrap(Effect.map(Tools, (tools) =>
    NodeAgentTools.layerWithoutPlatform({
      ...options,
      ...(tools === undefined ? {} : { tools }),
      cwd: flags.cwd,
      config: Option.getOrUndefined(flags.config)
    }))).pipe(Layer.provide(NativeRealPath.layer))

/** Only the settings (config file, defaults, spill directory), without building any service. */
export const settings = (
  flags: Workspace
): Effect.Effect<NodeAgentTools.Settings, AgentConfig.ConfigError, FileSystem.FileSystem | Path.Path> =>
  NodeAgentTools.settings({ cwd: flags.cwd, config: Option.getOrUndefined(flags.config) })
