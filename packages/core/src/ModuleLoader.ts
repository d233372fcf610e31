/**
 * Loads JavaScript / TypeScript modules for custom tools and plugins. A service so tests can load
 * modules from memory and runtimes can add their own resolution (e.g. a bundler).
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as NodeModule from "node:module"
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

/**
 * Tool modules are ES modules (`export default …`), whatever the project's package.json says:
 * `npm init -y` writes `"type": "commonjs"`, under which Node would read a `.ts` or `.js` tool as
 * CommonJS and fail on its first `export`. Files loaded with this query parameter, and the relative
 * files they import (outside node_modules), are loaded as ES modules; `.cjs`/`.cts` files and
 * packages keep their own format. Needs `module.registerHooks` (Node 22.15+); without it the
 * project's type decides, as before.
 */
const ESM_MARK = "agent-tools-esm"

// Runs for every module the process resolves once the hooks are in: the cheap test first.
const marked = (url: string) => url.includes(ESM_MARK) && url.startsWith("file:") && new URL(url).searchParams.has(ESM_MARK)

const withMark = (url: string) => {
  const u = new URL(url)
  u.searchParams.set(ESM_MARK, "")
  return u.href
}

let hooksInstalled: boolean | undefined

/** Installs the hooks once per process; whether they are in place. */
const forceEsm = (): boolean => {
  if (hooksInstalled !== undefined) return hooksInstalled
  const register = (NodeModule as { registerHooks?: typeof NodeModule.registerHooks }).registerHooks
  hooksInstalled = register !== undefined
  register?.({
    resolve: (specifier, context, nextResolve) => {
      const resolved = nextResolve(specifier, context)
      const local = (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:")) &&
        resolved.url.startsWith("file:") && !resolved.url.includes("/node_modules/")
      return context.parentURL !== undefined && marked(context.parentURL) && local && !marked(resolved.url)
        ? { ...resolved, url: withMark(resolved.url) }
        : resolved
    },
    load: (url, context, nextLoad) => {
      if (!marked(url)) return nextLoad(url, context)
      const path = new URL(url).pathname
      if (/\.c[jt]s$/.test(path) || !/\.(m?[jt]s|[jt]sx)$/.test(path)) return nextLoad(url, context)
      return nextLoad(url, { ...context, format: /\.m?ts$/.test(path) ? "module-typescript" : "module" })
    }
  })
  return hooksInstalled
}

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
            if (specifier.startsWith("/") || /^[A-Za-z]:[\\/]/.test(specifier)) {
              const url = pathToFileURL(specifier).href
              return forceEsm() ? withMark(url) : url
            }
            const from = loadOptions?.from
            const require = NodeModule.createRequire(from === undefined ? import.meta.url : `${from}/package.json`)
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
