/**
 * Loads JavaScript / TypeScript modules for custom tools and plugins. A service so tests can load
 * modules from memory and runtimes can add their own resolution (e.g. a bundler).
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"

export class ModuleLoadError extends Schema.TaggedError<ModuleLoadError>()("ModuleLoadError", {
  specifier: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot load ${this.specifier}: ${this.reason}`
  }
}

export class ModuleLoader extends Context.Service<ModuleLoader, {
  /**
   * Imports a module: an absolute file path, or a package name resolved from `from` (a directory).
   * Returns the module namespace object.
   */
  readonly load: (specifier: string, options?: { readonly from?: string | undefined }) => Effect.Effect<
    Record<string, unknown>,
    ModuleLoadError
  >
}>()("@agent-tools/core/ModuleLoader") {}

const reasonOf = (cause: unknown): string => {
  if (cause instanceof Error) return cause.message.split("\n")[0] ?? cause.name
  return String(cause)
}

/** Node's `import()`, with a timeout so a module that never settles cannot hang start-up. */
export const layer = (options: { readonly timeout?: Duration.Input } = {}): Layer.Layer<ModuleLoader> =>
  Layer.succeed(
    ModuleLoader,
    ModuleLoader.of({
      load: Effect.fn("ModuleLoader.load")(function*(specifier, loadOptions) {
        const url = yield* Effect.try({
          try: () => {
            if (specifier.startsWith("/") || /^[A-Za-z]:[\\/]/.test(specifier)) return pathToFileURL(specifier).href
            const from = loadOptions?.from
            const require = createRequire(from === undefined ? import.meta.url : `${from}/package.json`)
            return pathToFileURL(require.resolve(specifier)).href
          },
          catch: (cause) => new ModuleLoadError({ specifier, reason: reasonOf(cause) })
        })
        return yield* Effect.tryPromise({
          try: () => import(url) as Promise<Record<string, unknown>>,
          catch: (cause) => new ModuleLoadError({ specifier, reason: reasonOf(cause) })
        }).pipe(
          Effect.timeoutOrElse({
            duration: options.timeout ?? "10 seconds",
            orElse: () =>
              Effect.fail(new ModuleLoadError({ specifier, reason: "timed out while loading (does it await forever?)" }))
          })
        )
      })
    })
  )

/** Serves modules from a map: for tests. */
export const layerMemory = (modules: Record<string, Record<string, unknown>>): Layer.Layer<ModuleLoader> =>
  Layer.succeed(
    ModuleLoader,
    ModuleLoader.of({
      load: (specifier) => {
        const mod = modules[specifier]
        return mod === undefined
          ? Effect.fail(new ModuleLoadError({ specifier, reason: "module not found" }))
          : Effect.succeed(mod)
      }
    })
  )
