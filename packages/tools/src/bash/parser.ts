/**
 * tree-sitter-bash, loaded lazily: the wasm runtime and grammar load on the first parse, once per
 * process (the runtime is global in web-tree-sitter anyway), so building the layer costs nothing
 * and a CLI that never runs bash never pays for the wasm.
 *
 * How the grammar's wasm becomes a module is `GrammarCompiler`'s: by default web-tree-sitter reads
 * and compiles it; a platform layer may compile it its own way (the Node layer compiles it with V8's
 * baseline compiler only, see `@agent-tools/node`'s `NodeGrammar`).
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

/**
 * A compiled grammar (a `WebAssembly.Module`, which `Language.loadSync` takes). Typed on its own so
 * that the published declarations do not name web-tree-sitter's, which need Emscripten's types.
 */
export interface GrammarModule {
  readonly __grammar?: never
}

/**
 * Compiles the grammar's wasm file (its path) into a module, or leaves it to web-tree-sitter
 * (undefined). The first parser of a process loads the grammar; later ones share it.
 */
export const GrammarCompiler = Context.Reference<{ readonly compile: (file: string) => Promise<GrammarModule | undefined> }>(
  "@agent-tools/tools/bash/GrammarCompiler",
  { defaultValue: () => ({ compile: () => Promise.resolve(undefined) }) }
)

let loading: Promise<{ readonly Parser: typeof Parser; readonly language: Language }> | undefined

// Resolved from this file, so pnpm's symlinked node_modules and `dist` builds both find the wasm.
const loadOnce = (compiler: Context.Service.Shape<typeof GrammarCompiler>) =>
  loading ??= (async () => {
    const require = createRequire(import.meta.url)
    const ts = await import("web-tree-sitter")
    const runtime = require.resolve("web-tree-sitter/web-tree-sitter.wasm")
    await ts.Parser.init({ locateFile: () => runtime })
    // tree-sitter-bash has no "exports" map, so the subpath resolves directly.
    const file = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm")
    const compiled = await compiler.compile(file)
    const language = compiled === undefined
      ? await ts.Language.load(file)
      : ts.Language.loadSync(compiled as Parameters<typeof ts.Language.loadSync>[0])
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
    const compiler = yield* GrammarCompiler
    const load = Effect.tryPromise({
      try: () => loadOnce(compiler),
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
