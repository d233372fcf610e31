/**
 * Finds custom tools and plugins: `*.ts` / `*.js` files in configured directories (default export
 * or named exports) and npm modules exporting a plugin. Every failure becomes a `ToolLoadError`
 * naming the file and the reason; nothing is dropped silently.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import * as CustomTool from "./CustomTool.ts"
import type * as Hooks from "./Hooks.ts"
import { ModuleLoader } from "./ModuleLoader.ts"
import * as Tool from "./Tool.ts"

export class ToolLoadError extends Schema.TaggedError<ToolLoadError>()("ToolLoadError", {
  /** The file or module the tool came from. */
  source: Schema.String,
  /** The export, when the module loaded but one export is not a tool. */
  exportName: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  override get message() {
    const where = this.exportName === undefined ? this.source : `${this.source} (export "${this.exportName}")`
    return `Failed to load custom tool from ${where}: ${this.reason}`
  }
}

/** A plugin module's default export (or the result of calling it with `{ directory }`). */
export interface Plugin {
  readonly name?: string | undefined
  readonly tools?: Record<string, unknown> | undefined
  readonly hooks?: Hooks.Hooks | undefined
}

export interface Loaded {
  readonly source: string
  readonly definition: Tool.Definition<string, any, unknown>
}

export interface LoadResult {
  readonly tools: ReadonlyArray<Loaded>
  readonly hooks: ReadonlyArray<Hooks.Hooks>
  readonly errors: ReadonlyArray<ToolLoadError>
}

const TOOL_FILE = /\.(?:ts|js|mjs|mts)$/
const isDeclarationFile = (name: string) => /\.d\.[mc]?ts$/.test(name)

/** Turns one module's exports into tools: default → the file name, named → `<file>_<export>`. */
const fromExports = (
  source: string,
  baseName: string,
  mod: Record<string, unknown>,
  directory: string
): { tools: Array<Loaded>; errors: Array<ToolLoadError> } => {
  const tools: Array<Loaded> = []
  const errors: Array<ToolLoadError> = []
  const entries = Object.entries(mod).filter(([, value]) => value !== undefined)
  if (entries.length === 0) {
    errors.push(new ToolLoadError({ source, reason: "the module exports nothing (expected a default or named tool export)" }))
  }
  for (const [exportName, value] of entries) {
    const problem = CustomTool.problemOf(value)
    if (problem !== undefined) {
      errors.push(new ToolLoadError({ source, exportName, reason: problem }))
      continue
    }
    const id = Tool.isDefinition(value)
      ? value.id
      : exportName === "default"
      ? baseName
      : `${baseName}_${exportName}`
    const definition = Tool.isDefinition(value)
      ? value
      : CustomTool.toDefinition(id, value as CustomTool.CustomTool, directory)
    tools.push({ source, definition })
  }
  return { tools, errors }
}

/** Loads every tool file of `directories` (missing directories are reported, not fatal). */
export const loadDirectories = Effect.fn("ToolLoader.loadDirectories")(function*(
  directories: ReadonlyArray<string>,
  workspaceRoot: string
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const loader = yield* ModuleLoader
  const tools: Array<Loaded> = []
  const errors: Array<ToolLoadError> = []
  for (const dir of directories) {
    const absolute = path.resolve(workspaceRoot, dir)
    const names = yield* fs.readDirectory(absolute).pipe(
      Effect.catch((e) => {
        errors.push(new ToolLoadError({ source: absolute, reason: `cannot list the tool directory: ${e.message}` }))
        return Effect.succeed([] as Array<string>)
      })
    )
    for (const name of [...names].sort()) {
      if (!TOOL_FILE.test(name) || isDeclarationFile(name)) continue
      const file = path.join(absolute, name)
      const mod = yield* Effect.result(loader.load(file))
      if (mod._tag === "Failure") {
        errors.push(new ToolLoadError({ source: file, reason: mod.failure.reason }))
        continue
      }
      const found = fromExports(file, name.replace(TOOL_FILE, ""), mod.success, workspaceRoot)
      tools.push(...found.tools)
      errors.push(...found.errors)
    }
  }
  return { tools, hooks: [], errors } satisfies LoadResult
})

/** Loads plugins: module specifiers resolved from the workspace root, or inline plugin objects. */
export const loadPlugins = Effect.fn("ToolLoader.loadPlugins")(function*(
  plugins: ReadonlyArray<string | Plugin>,
  workspaceRoot: string
) {
  const loader = yield* ModuleLoader
  const tools: Array<Loaded> = []
  const hooks: Array<Hooks.Hooks> = []
  const errors: Array<ToolLoadError> = []
  for (const spec of plugins) {
    const source = typeof spec === "string" ? spec : `plugin ${spec.name ?? "(inline)"}`
    let plugin: unknown = spec
    if (typeof spec === "string") {
      const mod = yield* Effect.result(loader.load(spec, { from: workspaceRoot }))
      if (mod._tag === "Failure") {
        errors.push(new ToolLoadError({ source, reason: mod.failure.reason }))
        continue
      }
      plugin = mod.success.default ?? mod.success
    }
    if (typeof plugin === "function") {
      const made = yield* Effect.result(Effect.tryPromise({
        try: async () => await (plugin as (input: { directory: string }) => unknown)({ directory: workspaceRoot }),
        catch: (cause) => cause instanceof Error ? cause.message : String(cause)
      }))
      if (made._tag === "Failure") {
        errors.push(new ToolLoadError({ source, reason: `the plugin function failed: ${made.failure}` }))
        continue
      }
      plugin = made.success
    }
    if (typeof plugin !== "object" || plugin === null) {
      errors.push(new ToolLoadError({ source, reason: "a plugin must export an object { tools?, hooks? } or a function returning one" }))
      continue
    }
    const { tools: pluginTools, hooks: pluginHooks } = plugin as Plugin
    if (pluginTools === undefined && pluginHooks === undefined) {
      errors.push(new ToolLoadError({ source, reason: "the plugin has neither `tools` nor `hooks`" }))
      continue
    }
    if (pluginHooks !== undefined) hooks.push(pluginHooks)
    for (const [id, value] of Object.entries(pluginTools ?? {})) {
      const problem = CustomTool.problemOf(value)
      if (problem !== undefined) {
        errors.push(new ToolLoadError({ source, exportName: id, reason: problem }))
        continue
      }
      tools.push({
        source,
        definition: Tool.isDefinition(value) ? value : CustomTool.toDefinition(id, value as CustomTool.CustomTool, workspaceRoot)
      })
    }
  }
  return { tools, hooks, errors } satisfies LoadResult
})
