/** Loading the bash grammar: by web-tree-sitter, or as the layer's `GrammarCompiler` compiles it. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Bash from "../../src/bash/index.ts"

describe("BashParser", () => {
  it.effect("parses with the grammar web-tree-sitter loads", () =>
    Effect.gen(function*() {
      const parser = yield* (yield* Bash.BashParser).parser
      const root = parser.withTree("git status && echo 'a b' | wc -c", (tree) => tree?.rootNode.toString())
      assert.include(root, "(list (command name: (command_name (word))")
      assert.include(root, "(pipeline")
    }).pipe(Effect.provide(Bash.parserLayer)))

  it.effect("a GrammarCompiler is asked with the grammar's wasm file; declining leaves the load to web-tree-sitter", () => {
    const asked: Array<string> = []
    const declining = Layer.succeed(Bash.GrammarCompiler, { compile: (file) => (asked.push(file), Promise.resolve(undefined)) })
    return Effect.gen(function*() {
      const parser = yield* (yield* Bash.BashParser).parser
      assert.include(parser.withTree("ls -la", (tree) => tree?.rootNode.toString()), "(command")
    }).pipe(
      Effect.provide(Bash.parserLayer.pipe(Layer.provide(declining))),
      // The grammar is loaded once per process: asked only when this is the process's first load.
      Effect.tap(() => Effect.sync(() => asked.forEach((file) => assert.match(file, /tree-sitter-bash\.wasm$/))))
    )
  })
})
