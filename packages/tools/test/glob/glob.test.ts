import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Events, SpillStorage, Tool, Truncate } from "@agent-tools/core"
import { GlobTool } from "@agent-tools/tools"
import { backends, withFixture } from "../search/harness.ts"
import { splitPattern } from "../../src/glob/tool.ts"
import { newestFirst, TopK } from "../../src/internal/search/topk.ts"

const FILES = {
  ".gitignore": "dist/\n.env\nnode_modules/\n",
  "src/x.js": "x",
  "src/a/b.ts": "b",
  "dist/a.js": "a",
  "node_modules/m/index.js": "m",
  ".github/workflows/ci.yml": "ci",
  ".env": "SECRET=1",
  "README.md": "readme"
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`glob (${backend.name})`, () => {
    it.live("the 100 newest of the whole tree, not of the first 100 found", () => {
      // 150 files whose mtimes are scrambled against name (and walk) order.
      const files: Record<string, string> = {}
      const mtimes: Record<string, number> = {}
      for (let i = 0; i < 150; i++) {
        const rel = `d${i % 3}/f${String(i).padStart(3, "0")}.ts`
        files[rel] = ""
        mtimes[rel] = (i * 37) % 150
      }
      return withFixture(backend, { files, mtimes }, ({ call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(GlobTool, { pattern: "**/*.ts" })
          const expected = Object.entries(mtimes).sort((a, b) => b[1] - a[1]).slice(0, 100).map(([rel]) => `${root}/${rel}`)
          assert.strictEqual(
            result.output,
            [...expected, "", "(Results are truncated: showing the 100 most recently modified of 150 matching files. Use a more specific path or pattern.)"]
              .join("\n")
          )
          assert.deepStrictEqual(result.metadata, { count: 150, shown: 100, skipped: 0, truncated: true })
        }))
    })

    it.live(".gitignore honoured; hidden files listed", () =>
      withFixture(backend, { files: FILES, mtimes: { "src/x.js": 2, "src/a/b.ts": 1 } }, ({ asks, call, root }) =>
        Effect.gen(function*() {
          assert.strictEqual((yield* call(GlobTool, { pattern: "**/*.js" })).output, `${root}/src/x.js`)
          assert.strictEqual((yield* call(GlobTool, { pattern: "**/*.yml" })).output, `${root}/.github/workflows/ci.yml`)
          assert.strictEqual((yield* call(GlobTool, { pattern: ".github/**/*.yml" })).output, `${root}/.github/workflows/ci.yml`)
          assert.strictEqual(
            (yield* call(GlobTool, { pattern: "**/*" })).output,
            [`${root}/src/x.js`, `${root}/src/a/b.ts`, `${root}/.github/workflows/ci.yml`, `${root}/.gitignore`, `${root}/README.md`].join("\n")
          )
          assert.deepStrictEqual(asks[0], { permission: "glob", patterns: ["**/*.js"], always: ["*"], metadata: { pattern: "**/*.js", path: undefined } })
        })))

    it.live("nothing found, but ignored files would match: the output says so", () =>
      withFixture(backend, { files: FILES }, ({ call, root }) =>
        Effect.gen(function*() {
          const note = "(Files matching this pattern exist but are ignored (.gitignore/.ignore). To list them, pass their directory as the path.)"
          assert.strictEqual((yield* call(GlobTool, { pattern: "dist/*.js" })).output, `No files found\n\n${note}`)
          assert.strictEqual((yield* call(GlobTool, { pattern: "*.rs" })).output, "No files found")
          // The ignored directory as the path lists it.
          assert.strictEqual((yield* call(GlobTool, { pattern: "*.js", path: "dist" })).output, `${root}/dist/a.js`)
          assert.strictEqual((yield* call(GlobTool, { pattern: ".env" })).output, `No files found\n\n${note}`)
        })))

    it.live("pattern forms: ./, absolute inside the root, literal; absolute outside asks external_directory", () =>
      withFixture(backend, { files: FILES, outside: { "o.ts": "" } }, ({ asks, call, outside, root }) =>
        Effect.gen(function*() {
          const b = `${root}/src/a/b.ts`
          assert.strictEqual((yield* call(GlobTool, { pattern: "./src/**/*.ts" })).output, b)
          assert.strictEqual((yield* call(GlobTool, { pattern: `${root}/src/**/*.ts` })).output, b)
          assert.strictEqual((yield* call(GlobTool, { pattern: "src/a/b.ts" })).output, b)
          assert.strictEqual((yield* call(GlobTool, { pattern: "src/**" })).output.split("\n").sort().join("\n"), [b, `${root}/src/x.js`].join("\n"))
          asks.length = 0
          const out = yield* call(GlobTool, { pattern: `${outside}/*.ts` })
          assert.strictEqual(out.output, `${outside}/o.ts`)
          assert.deepStrictEqual(asks.map((a) => a.permission), ["external_directory", "glob"])
          assert.strictEqual(out.title, outside)
        })))

    it.live("an empty pattern is an argument error naming the field", () =>
      withFixture(backend, { files: FILES }, () =>
        Effect.gen(function*() {
          const glob = yield* Tool.build(GlobTool)
          const error = yield* Effect.flip(glob.validate({ pattern: "" }))
          assert.strictEqual(
            error.message,
            "The glob tool was called with invalid arguments:\n- pattern: must not be empty: give a glob such as \"**/*.ts\"\n" +
              "Please rewrite the input so it satisfies the expected schema."
          )
        }).pipe(Effect.provide(Truncate.layer().pipe(Layer.provide(Layer.merge(SpillStorage.layerMemory(), Events.layerNoop)))))))

    it.live("the path must be a directory", () =>
      withFixture(backend, { files: FILES }, ({ call }) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(call(GlobTool, { pattern: "*", path: "README.md" }))
          assert.strictEqual(error.message, "glob path must be a directory: README.md")
          const bad = yield* Effect.flip(call(GlobTool, { pattern: "{a" }))
          assert.strictEqual(bad.message, "Invalid glob \"{a\": unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
        })))
  })
}

describe("glob helpers", () => {
  it("splitPattern", () => {
    assert.deepStrictEqual(splitPattern("./src/*.ts", undefined), { pattern: "src/*.ts", path: undefined })
    assert.deepStrictEqual(splitPattern("/a/b/**/*.ts", "x"), { pattern: "**/*.ts", path: "/a/b" })
    assert.deepStrictEqual(splitPattern("/a/b/c.ts", undefined), { pattern: "c.ts", path: "/a/b" })
    assert.deepStrictEqual(splitPattern("/*.ts", undefined), { pattern: "*.ts", path: "/" })
  })

  it("TopK keeps the k best of any number of items", () => {
    const top = new TopK<{ readonly path: string; readonly mtime: number }>(3, newestFirst)
    for (let i = 0; i < 1000; i++) top.offer({ path: `p${i}`, mtime: (i * 7919) % 1000 })
    assert.deepStrictEqual(top.sorted().map((e) => e.mtime), [999, 998, 997])
    assert.strictEqual(top.offered, 1000)
    assert.strictEqual(top.size, 3)
  })
})
