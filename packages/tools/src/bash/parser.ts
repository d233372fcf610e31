/**
 * tree-sitter-bash, loaded lazily: the wasm runtime and grammar load on the first parse, once per
 * process (the runtime is global in web-tree-sitter anyway), so building the layer costs nothing
 * and a CLI that never runs bash never pays for the wasm.
 */
import { createRequire } from "node:module"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Language, Parser } from "web-tree-sitter"
import type { Tree } from "./syntax.ts"

export class BashParserError extends Schema.TaggedError<BashParserError>()("BashParserError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/** A loaded parser. `parse` is synchronous; `withTree` deletes the tree afterwards (wasm memory). */
export interface SyncParser {
  readonly parse: (source: string) => Tree | null
  readonly withTree: <A>(source: string, f: (tree: Tree | null) => A) => A
}

let loading: Promise<{ readonly Parser: typeof Parser; readonly language: Language }> | undefined

// Resolved from this file, so pnpm's symlinked node_modules and `dist` builds both find the wasm.
const loadOnce = () =>
  loading ??= (async () => {
    const require = createRequire(import.meta.url)
    const ts = await import("web-tree-sitter")
    const runtime = require.resolve("web-tree-sitter/web-tree-sitter.wasm")
    await ts.Parser.init({ locateFile: () => runtime })
    // tree-sitter-bash has no "exports" map, so the subpath resolves directly.
    const language = await ts.Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"))
    return { Parser: ts.Parser, language }
  })().catch((cause: unknown) => {
    loading = undefined // a later call may retry (e.g. after the package is installed)
    throw cause
  })

const makeSync = (parser: Parser): SyncParser => {
  const parse = (source: string) => parser.parse(source)
  return {
    parse,
    withTree: (source, f) => {
      const tree = parse(source)
      try {
        return f(tree)
      } finally {
        tree?.delete()
      }
    }
  }
}

export class BashParser extends Context.Service<BashParser, {
  /** The parser, loading the wasm on first use. */
  readonly parser: Effect.Effect<SyncParser, BashParserError>
}>()("@agent-tools/tools/bash/BashParser") {}

export const layer: Layer.Layer<BashParser> = Layer.effect(
  BashParser,
  Effect.gen(function*() {
    let instance: Parser | undefined
    const load = Effect.tryPromise({
      try: loadOnce,
      catch: (cause) =>
        new BashParserError({ message: `failed to load tree-sitter-bash: ${String(cause)}`, cause })
    }).pipe(
      Effect.map(({ Parser, language }) => {
        instance = new Parser()
        instance.setLanguage(language)
        return makeSync(instance)
      }),
      Effect.withSpan("BashParser.load")
    )
    const parser = yield* Effect.cached(load)
    yield* Effect.addFinalizer(() => Effect.sync(() => instance?.delete()))
    return BashParser.of({ parser })
  })
)
