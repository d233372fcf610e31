/**
 * The packages the runtime loads only when the config asks for them: the MCP client
 * (`@agent-tools/mcp`, config `mcp`), the S3 spill store (`@agent-tools/spill-s3`, config
 * `spill.s3`) and the language-server client (`@agent-tools/lsp`, config `lsp`). They are optional
 * peer dependencies: a user who uses none of them installs none of them (no MCP SDK, no AWS SDK, no
 * TypeScript), and a process whose config asks for none never imports them. When the config asks
 * for one that cannot be loaded, the layer fails with `MissingPackageError` naming the package to add.
 *
 * The importers are a parameter (`Options.optionalPackages` of the layer) so a test can stand in
 * for a package that is not installed.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import type { ChildProcessSpawner } from "effect/process"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { SpillStorage, ToolRegistry } from "@agent-tools/core"
import type * as AgentConfig from "./AgentConfig.ts"

// What the runtime uses of each package, declared here rather than as `typeof import(…)`: the
// runtime's published declarations must compile for a user who installed none of them. The
// default importers below are checked against these shapes when this package is compiled.

/** One MCP server of the config (`mcp.<name>`). */
export type McpServer = NonNullable<AgentConfig.AgentConfig["mcp"]>[string]

/** What the runtime uses of `@agent-tools/mcp/client`. */
export interface McpClientModule {
  readonly McpServers: {
    readonly register: (
      servers: Record<string, McpServer>,
      options: { readonly cwd: string }
    ) => Effect.Effect<void, never, ToolRegistry.ToolRegistry | Scope.Scope>
  }
}

/** What the runtime uses of `@agent-tools/spill-s3`. */
export interface SpillS3Module {
  readonly S3SpillStorage: {
    readonly layer: (
      options: AgentConfig.S3Spill & { readonly retentionDays?: number | undefined; readonly maxBytes?: number | undefined }
    ) => Layer.Layer<SpillStorage.SpillStorage>
  }
}

/** What the runtime uses of `@agent-tools/lsp`. */
export interface LspModule {
  readonly NodeLsp: {
    readonly layer: (options: {
      readonly root: string
      readonly diagnosticsTimeout?: number | undefined
      readonly workspaceTypeScript?: boolean | undefined
    }) => Layer.Layer<never, never, FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner>
  }
}

/** One importer per optional package; each is Node's `import()` of that package by default. */
export interface Importers {
  readonly mcpClient: () => Promise<McpClientModule>
  readonly spillS3: () => Promise<SpillS3Module>
  readonly lsp: () => Promise<LspModule>
}

/** The package each importer loads and the config key that asks for it. */
export const packages: { readonly [K in keyof Importers]: { readonly package: string; readonly key: string } } = {
  mcpClient: { package: "@agent-tools/mcp", key: "mcp" },
  spillS3: { package: "@agent-tools/spill-s3", key: "spill.s3" },
  lsp: { package: "@agent-tools/lsp", key: "lsp" }
}

export const importers: Importers = {
  mcpClient: () => import("@agent-tools/mcp/client"),
  spillS3: () => import("@agent-tools/spill-s3"),
  lsp: () => import("@agent-tools/lsp")
}

/** The config asks for a feature whose optional package could not be loaded. */
export class MissingPackageError extends Schema.TaggedError<MissingPackageError>()("MissingPackageError", {
  /** The npm package to add, e.g. `@agent-tools/spill-s3`. */
  package: Schema.String,
  /** The config key that asked for it, e.g. `spill.s3`. */
  key: Schema.String,
  /** Why it could not be loaded: `not installed`, or the import's own error. */
  reason: Schema.String
}) {
  override get message() {
    return `the config's \`${this.key}\` needs the package ${this.package} (${this.reason}); add it to the project: npm install ${this.package}`
  }
}

const reasonOf = (cause: unknown): string => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") return "not installed"
  if (cause instanceof Error) return cause.message.split("\n")[0] ?? cause.name
  return String(cause)
}

/** Loads one optional package, or fails naming it and the config key that asked for it. */
export const load = <K extends keyof Importers>(
  from: Importers,
  name: K
): Effect.Effect<Awaited<ReturnType<Importers[K]>>, MissingPackageError> =>
  Effect.tryPromise({
    try: () => from[name]() as Promise<Awaited<ReturnType<Importers[K]>>>,
    catch: (cause) => new MissingPackageError({ ...packages[name], reason: reasonOf(cause) })
  }).pipe(Effect.withSpan("OptionalPackages.load", { attributes: { package: packages[name].package } }))
