/** The bash grammar compiled by V8's baseline compiler only, unless the user chose how wasm compiles. */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { NodeGrammar } from "@agent-tools/node"
import { Bash } from "@agent-tools/tools"

describe("NodeGrammar", () => {
  // The first parser of the process loads the grammar: this test's compiler is the one it asks.
  it.effect("the parser parses with the module compileGrammar makes", () => {
    const compiled: Array<Bash.GrammarModule | undefined> = []
    const recording = Layer.succeed(Bash.GrammarCompiler, {
      compile: (file) => Promise.resolve(compiled[compiled.push(NodeGrammar.compileGrammar(readFileSync(file), [])) - 1])
    })
    return Effect.gen(function*() {
      const parser = yield* (yield* Bash.BashParser).parser
      const root = parser.withTree("for f in *.md; do sed -i s/a/b/ \"$f\"; done", (tree) => tree?.rootNode.toString())
      assert.include(root, "(for_statement")
      assert.strictEqual(compiled.length, 1)
      assert.isDefined(compiled[0])
    }).pipe(Effect.provide(Bash.parserLayer.pipe(Layer.provide(recording))))
  })

  it.effect("the Node layer's parser parses", () =>
    Effect.gen(function*() {
      const parser = yield* (yield* Bash.BashParser).parser
      assert.include(parser.withTree("git status && echo 'a b' | wc -c", (tree) => tree?.rootNode.toString()), "(pipeline")
    }).pipe(Effect.provide(Bash.parserLayer.pipe(Layer.provide(NodeGrammar.layer)))))

  it("leaves V8's wasm flags alone when the command line sets them", () => {
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) // an empty wasm module
    for (const flag of ["--liftoff-only", "--no-wasm-tier-up", "--wasm-lazy-compilation", "--max-old-space-size=100 --no-wasm-dynamic-tiering", "--freeze-flags-after-init"]) {
      assert.isUndefined(NodeGrammar.compileGrammar(bytes, ["--conditions=x", flag]), flag)
    }
    assert.isDefined(NodeGrammar.compileGrammar(bytes, ["--max-old-space-size=100", "--wasm-something-else"]))
  })
})
