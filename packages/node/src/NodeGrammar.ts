/**
 * The bash grammar compiled by V8's baseline compiler only (`Bash.GrammarCompiler` for Node): its
 * lexer is one function of 160 KB of wasm, which V8 would otherwise optimize on a background thread
 * once it is hot — 1 to 2 s of a CPU and about 30 MB of malloc memory at once (70 MB in all) that
 * the process keeps afterwards, landing on whatever call happens to run then. Parsing stays about as
 * fast (within a few per cent): most of its time is in web-tree-sitter's runtime, which V8 still optimizes.
 */
import { readFile } from "node:fs/promises"
import { setFlagsFromString } from "node:v8"
import * as Layer from "effect/Layer"
import { Bash } from "@agent-tools/tools"

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

/** The part of the WebAssembly API used here (the package is typed without DOM globals). */
interface WasmHost {
  readonly WebAssembly: { readonly Module: new(bytes: Uint8Array) => Bash.GrammarModule }
}

/**
 * The grammar's module, compiled by the baseline compiler only; undefined where the flags cannot
 * be set (the user set them: then their choice stands and web-tree-sitter compiles it as usual).
 * Synchronous, so that no other code of this thread compiles wasm while the flags are changed.
 */
export const compileGrammar = (
  bytes: Uint8Array,
  commandLine: ReadonlyArray<string> = [...process.execArgv, process.env["NODE_OPTIONS"] ?? ""]
): Bash.GrammarModule | undefined => {
  if (commandLine.some((arg) => USER_CHOICE.test(arg))) return undefined
  try {
    setFlagsFromString(BASELINE_ONLY.join(" "))
  } catch {
    return undefined
  }
  try {
    return new (globalThis as unknown as WasmHost).WebAssembly.Module(bytes)
  } finally {
    setFlagsFromString(DEFAULTS.join(" "))
  }
}

/** `Bash.GrammarCompiler` compiling with the baseline compiler only. */
export const layer: Layer.Layer<never> = Layer.succeed(Bash.GrammarCompiler, {
  compile: async (file) => compileGrammar(await readFile(file))
})
