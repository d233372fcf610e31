import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ListTool } from "@agent-tools/tools"
import { backends, withFixture } from "../search/harness.ts"

const FILES = {
  "README.md": "",
  ".gitignore": "*.log\n",
  ".github/ci.yml": "",
  "src/index.ts": "",
  "src/util/a.ts": "",
  "src/util/b.ts": "",
  "test/a.test.ts": "",
  "debug.log": "",
  "node_modules/m/index.js": "",
  "dist/out.js": "",
  "build/x.o": "",
  "__pycache__/x.pyc": "",
  ".venv/lib.py": "",
  "target/debug/app": "",
  "vendor/lib.go": ""
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`list (${backend.name})`, () => {
    it.live("a tree without the usual ignores; hidden files shown; directories first", () =>
      withFixture(backend, { files: FILES }, ({ asks, call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(ListTool, {})
          assert.strictEqual(
            result.output,
            [
              `${root}/`,
              "  .github/",
              "    ci.yml",
              "  src/",
              "    util/",
              "      a.ts",
              "      b.ts",
              "    index.ts",
              "  test/",
              "    a.test.ts",
              "  .gitignore",
              "  README.md"
            ].join("\n")
          )
          assert.deepStrictEqual(result.metadata, { count: 7, shown: 7, skipped: 0, truncated: false })
          assert.strictEqual(result.title, ".")
          assert.deepStrictEqual(asks, [{ permission: "list", patterns: [root], always: ["*"], metadata: { path: root } }])
        })))

    it.live("ignore globs and a sub-path", () =>
      withFixture(backend, { files: FILES }, ({ call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(ListTool, { path: "src", ignore: ["util/", "*.md"] })
          assert.strictEqual(result.output, `${root}/src/\n  index.ts`)
          assert.strictEqual(result.title, "src")
          const error = yield* Effect.flip(call(ListTool, { path: "README.md" }))
          assert.strictEqual(error.message, "list path must be a directory: README.md")
        })))

    it.live("capped at 100 files, shallowest first, with a notice and per-directory counts", () => {
      const files: Record<string, string> = {}
      for (let i = 0; i < 30; i++) files[`top${String(i).padStart(2, "0")}.txt`] = ""
      for (let i = 0; i < 60; i++) files[`a/f${String(i).padStart(2, "0")}.txt`] = ""
      for (let i = 0; i < 40; i++) files[`b/deep/g${String(i).padStart(2, "0")}.txt`] = ""
      return withFixture(backend, { files }, ({ call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(ListTool, {})
          const lines = result.output.split("\n")
          assert.deepStrictEqual(lines.slice(0, 3), [`${root}/`, "  a/", "    f00.txt"])
          assert.strictEqual(lines[61], "    f59.txt")
          assert.deepStrictEqual(lines.slice(62, 66), ["  b/ (30 files not shown)", "    deep/", "      g00.txt", "      g01.txt"])
          assert.strictEqual(lines[73], "      g09.txt")
          assert.strictEqual(lines[74], "  top00.txt")
          assert.deepStrictEqual(lines.slice(103), [
            "  top29.txt",
            "",
            "(Showing 100 of 130 files, shallowest first; 30 more not shown. List a subdirectory with path, or use glob to find files by name.)"
          ])
          assert.deepStrictEqual(result.metadata, { count: 130, shown: 100, skipped: 0, truncated: true })
        }))
    })
  })
}
