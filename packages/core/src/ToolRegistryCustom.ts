/**
 * A registry's custom tools (from directories) and plugins: built with the registry's own
 * services, never replacing a built-in unless `allowOverride`; a failure to load or build one is
 * a diagnostic (and a logged warning), never a failure of the registry.
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Hooks from "./Hooks.ts"
import * as Tool from "./Tool.ts"
import * as ToolLoader from "./ToolLoader.ts"
import type { Options } from "./ToolRegistry.ts"
import * as Workspace from "./Workspace.ts"

/** Loads the custom tools and plugins of `options` into `tools`, each built with `services`. */
export const loadCustom = Effect.fnUntraced(function*(
  tools: Map<string, Effect.Effect<Tool.Built>>,
  options: Pick<Options, "directories" | "plugins" | "hooks" | "allowOverride">,
  services: Context.Context<unknown>
) {
  const builtinIds = new Set(tools.keys())
  // Custom tool directories and plugins resolve against the workspace root.
  const root = (yield* Workspace.Workspace).root
  const loaded = yield* ToolLoader.loadDirectories(options.directories ?? [], root).pipe(
    Effect.zip(ToolLoader.loadPlugins(options.plugins ?? [], root))
  )
  const diagnostics: Array<ToolLoader.ToolLoadError> = [...loaded[0].errors, ...loaded[1].errors]
  const hooks: Array<Hooks.Hooks> = [...(options.hooks ?? []), ...loaded[1].hooks]
  for (const { source, definition } of [...loaded[0].tools, ...loaded[1].tools]) {
    if (builtinIds.has(definition.id) && options.allowOverride !== true) {
      diagnostics.push(
        new ToolLoader.ToolLoadError({
          source,
          reason: `"${definition.id}" would replace the built-in tool of that name; set allowOverride to allow it`
        })
      )
      continue
    }
    const built = yield* Tool.build(definition).pipe(
      Effect.provideContext(services),
      Effect.catchDefect((cause) =>
        Effect.succeed(
          new ToolLoader.ToolLoadError({
            source,
            reason: `init failed: ${cause instanceof Error ? cause.message : String(cause)}`
          })
        )
      )
    )
    if (built instanceof ToolLoader.ToolLoadError) diagnostics.push(built)
    else tools.set(built.id, Effect.succeed(built))
  }
  for (const error of diagnostics) yield* Effect.logWarning(error.message)
  return { diagnostics, hooks }
})
