/** Loading the bash grammar: compiled by the baseline compiler only, unless the user chose how wasm compiles. */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Language, Parser } from "web-tree-sitter"
import * as Bash from "../../src/bash/index.ts"
import { compileGrammar } from "../../src/bash/parser.ts"

const require = createRequire(import.meta.url)
const grammar = () => readFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"))

describe("BashParser", () => {
  it.effect("parses through the grammar it compiles itself", () =>
    Effect.gen(function*() {
      const parser = yield* (yield* Bash.BashParser).parser
      const root = parser.withTree("git status && echo 'a b' | wc -c", (tree) => tree?.rootNode.toString())
      assert.include(root, "(list (command name: (command_name (word))")
      assert.include(root, "(pipeline")
    }).pipe(Effect.provide(Bash.parserLayer)))

  it.effect("the compiled grammar is a module web-tree-sitter loads and parses with", () =>
    Effect.gen(function*() {
      yield* (yield* Bash.BashParser).parser // the runtime is initialised
      const compiled = compileGrammar(grammar(), [])
      assert.isDefined(compiled)
      const parser = new Parser()
      try {
        parser.setLanguage(Language.loadSync(compiled!))
        const tree = parser.parse("for f in *.md; do sed -i s/a/b/ \"$f\"; done")
        assert.include(tree?.rootNode.toString(), "(for_statement")
        tree?.delete()
      } finally {
        parser.delete()
      }
    }).pipe(Effect.provide(Bash.parserLayer)))

  it("leaves V8's wasm flags alone when the command line sets them", () => {
    for (const flag of ["--liftoff-only", "--no-wasm-tier-up", "--wasm-lazy-compilation", "--max-old-space-size=100 --no-wasm-dynamic-tiering", "--freeze-flags-after-init"]) {
      assert.isUndefined(compileGrammar(grammar(), ["--conditions=x", flag]), flag)
    }
    assert.isDefined(compileGrammar(grammar(), ["--max-old-space-size=100", "--wasm-something-else"]))
  })
})
