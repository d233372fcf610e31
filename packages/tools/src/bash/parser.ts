/**
 * tree-sitter-bash, loaded lazily: the wasm runtime and grammar load on the first parse, once per
 * process (the runtime is global in web-tree-sitter anyway), so building the layer costs nothing
 * and a CLI that never runs bash never pays for the wasm.
 *
 * The grammar is compiled by V8's baseline compiler only (`compileGrammar`): its lexer is one
 * function of 160 KB of wasm, which V8 would otherwise optimize on a background thread once it is
 * hot — 1 to 2 s of a CPU and about 30 MB of malloc memory at once (70 MB in all) that the process
 * keeps afterwards, landing on whatever call happens to run then. Parsing stays about as fast
 * (within a few per cent): most of its time is spent in the runtime's code, which V8 still optimizes.
 */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { setFlagsFromString } from "node:v8"
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
 * V8's flags while the grammar compiles: every function compiled at once by the baseline compiler
 * (Liftoff), none marked for later optimization. Which compiler a function gets, and whether its
 * code counts its way to an optimization, is decided when it is compiled, from the flags in force
 * then; so the grammar is compiled eagerly inside the window, and every later module (ours, the
 * runtime's, the user's) gets V8's defaults back.
 */
const BASELINE_ONLY = ["--no-wasm-lazy-compilation", "--no-wasm-dynamic-tiering", "--no-wasm-tier-up"]
/** V8's defaults for those flags (Node 20 and 22), restored right after. */
const DEFAULTS = ["--wasm-lazy-compilation", "--wasm-dynamic-tiering", "--wasm-tier-up"]
/** Command-line flags that mean the user chose how wasm compiles (or froze the flags): then none is touched. */
const USER_CHOICE = /--(no-)?(wasm-lazy-compilation|wasm-dynamic-tiering|wasm-tier-up|liftoff|liftoff-only|freeze-flags-after-init)\b/

/**
 * A compiled module (a `WebAssembly.Module`, which `Language.loadSync` takes). Typed on its own so
 * that the published declarations do not name web-tree-sitter's, which need Emscripten's types.
 */
interface GrammarModule {
  readonly __grammar?: never
}
/** The part of the WebAssembly API used here (the package is typed without DOM or Node globals). */
interface WasmHost {
  readonly WebAssembly?: { readonly Module: new(bytes: Uint8Array) => GrammarModule }
}

/**
 * The grammar's module, compiled by the baseline compiler only; undefined where the flags cannot
 * be set (not V8, or the user set them: then their choice stands and the grammar loads as usual).
 * Synchronous, so that no other code of this thread compiles wasm while the flags are changed.
 */
export const compileGrammar = (
  bytes: Uint8Array,
  commandLine: ReadonlyArray<string> = [...process.execArgv, process.env["NODE_OPTIONS"] ?? ""]
): GrammarModule | undefined => {
  const wasm = (globalThis as WasmHost).WebAssembly
  const chosen = commandLine.some((arg) => USER_CHOICE.test(arg))
  if (chosen || wasm === undefined || process.versions.v8 === undefined) return undefined
  try {
    setFlagsFromString(BASELINE_ONLY.join(" "))
  } catch {
    return undefined
  }
  try {
    return new wasm.Module(bytes)
  } finally {
    setFlagsFromString(DEFAULTS.join(" "))
  }
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
    const bytes = await readFile(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"))
    const compiled = compileGrammar(bytes)
    const language = compiled === undefined ? await ts.Language.load(bytes) : ts.Language.loadSync(compiled as Parameters<typeof ts.Language.loadSync>[0])
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
