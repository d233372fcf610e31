import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { Events, ModuleLoader, Permission, SpillStorage, Tool, ToolRegistry, Truncate } from "@agent-tools/core"
import { GrepTool } from "@agent-tools/tools"
import { backends, withFixture } from "../search/harness.ts"
import { preview } from "../../src/grep/tool.ts"
import { chmodSync } from "node:fs"

const FILES = {
  "a.ts": "needle one\nother\nneedle two\n",
  "src/b.ts": "const x = needle\n",
  "src/c.md": "no match here\n",
  "docs/old.txt": "needle old\n",
  ".gitignore": "ignored/\n",
  "ignored/x.ts": "needle ignored\n",
  ".hidden/h.ts": "needle hidden\n",
  "flags.txt": "cargo build --release\n"
}
const MTIMES = { "a.ts": 30, "src/b.ts": 50, "docs/old.txt": 10 }

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`grep (${backend.name})`, () => {
    const fixture = { files: FILES, mtimes: MTIMES }

    it.live("matches grouped by file, files newest first; ignored files skipped, hidden files searched", () =>
      withFixture(backend, fixture, ({ asks, call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(GrepTool, { pattern: "needle" })
          assert.strictEqual(
            result.output,
            [
              "Found 5 matches",
              `${root}/src/b.ts:`,
              "  Line 1: const x = needle",
              "",
              `${root}/a.ts:`,
              "  Line 1: needle one",
              "  Line 3: needle two",
              "",
              `${root}/docs/old.txt:`,
              "  Line 1: needle old",
              "",
              `${root}/.hidden/h.ts:`,
              "  Line 1: needle hidden"
            ].join("\n")
          )
          assert.deepStrictEqual(result.metadata, { matches: 5, files: 4, shown: 5, skipped: 0, truncated: false })
          assert.strictEqual(result.title, "needle")
          assert.deepStrictEqual(asks, [{
            permission: "grep",
            patterns: ["needle"],
            always: ["*"],
            metadata: { pattern: "needle", path: undefined, include: undefined }
          }])
        })))

    it.live("include filters files (hidden ones too); patterns like flags work", () =>
      withFixture(backend, fixture, ({ call, root }) =>
        Effect.gen(function*() {
          const ts = yield* call(GrepTool, { pattern: "needle", include: "*.md" })
          assert.strictEqual(ts.output, "No files found")
          const hidden = yield* call(GrepTool, { pattern: "needle", include: ".hidden/*.ts" })
          assert.strictEqual(hidden.output, `Found 1 match\n${root}/.hidden/h.ts:\n  Line 1: needle hidden`)
          const flag = yield* call(GrepTool, { pattern: "--release" })
          assert.strictEqual(flag.output, `Found 1 match\n${root}/flags.txt:\n  Line 1: cargo build --release`)
        })))

    it.live("path: a directory, a file, or a directory outside the workspace (asks external_directory)", () =>
      withFixture(backend, { ...fixture, outside: { "o.txt": "needle outside\n" } }, ({ asks, call, outside, root }) =>
        Effect.gen(function*() {
          const dir = yield* call(GrepTool, { pattern: "needle", path: "src" })
          assert.strictEqual(dir.output, `Found 1 match\n${root}/src/b.ts:\n  Line 1: const x = needle`)
          const file = yield* call(GrepTool, { pattern: "needle", path: `${root}/ignored/x.ts` })
          assert.strictEqual(file.output, `Found 1 match\n${root}/ignored/x.ts:\n  Line 1: needle ignored`)
          asks.length = 0
          const out = yield* call(GrepTool, { pattern: "needle", path: outside })
          assert.strictEqual(out.output, `Found 1 match\n${outside}/o.txt:\n  Line 1: needle outside`)
          assert.deepStrictEqual(asks.map((a) => [a.permission, a.patterns]), [
            ["external_directory", [`${outside}/*`]],
            ["grep", ["needle"]]
          ])
        })))

    it.live("errors: invalid regex quotes the reason; empty pattern; missing path", () =>
      withFixture(backend, fixture, ({ call }) =>
        Effect.gen(function*() {
          const bad = yield* Effect.flip(call(GrepTool, { pattern: "foo(" }))
          assert.strictEqual(bad._tag, "ToolError")
          assert.match(bad.message, /^Invalid regular expression "foo\(": (.|\n)*(unclosed group|Unterminated group)/)
          assert.include(bad.message, "Escape regex special characters")
          assert.strictEqual((yield* Effect.flip(call(GrepTool, { pattern: "" }))).message, "pattern is required")
          assert.strictEqual((yield* Effect.flip(call(GrepTool, { pattern: "x", path: "nope" }))).message, "No such file or directory: nope")
        })))

    it.live("100 matches at most, newest files first, with a notice counting the rest", () => {
      const files = { "old.ts": "needle\n".repeat(60), "new.ts": "needle\n".repeat(90), "mid.ts": "x\nneedle\n" }
      return withFixture(backend, { files, mtimes: { "old.ts": 1, "mid.ts": 5, "new.ts": 9 } }, ({ call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(GrepTool, { pattern: "needle" })
          const lines = result.output.split("\n")
          assert.strictEqual(lines[0], "Found 151 matches in 3 files (showing the first 100)")
          assert.strictEqual(lines[1], `${root}/new.ts:`)
          assert.deepStrictEqual(lines.slice(2, 92), Array.from({ length: 90 }, (_, i) => `  Line ${i + 1}: needle`))
          assert.deepStrictEqual(lines.slice(92, 96), ["", `${root}/mid.ts:`, "  Line 2: needle", ""])
          assert.strictEqual(lines[96], `${root}/old.ts:`)
          assert.deepStrictEqual(lines.slice(97, 106), Array.from({ length: 9 }, (_, i) => `  Line ${i + 1}: needle`))
          assert.deepStrictEqual(lines.slice(106), [
            "",
            "(Results truncated: showing 100 of 151 matches (51 more), newest files first. Use a more specific path, include or pattern to see the rest.)"
          ])
          assert.deepStrictEqual(result.metadata, { matches: 151, files: 3, shown: 100, skipped: 0, truncated: true })
        }))
    })

    it.live("through the registry, 100 matches of 5000-character lines fit the byte limit; the full list is spilled", () => {
      const files = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${String(i).padStart(3, "0")}.js`, `${"a".repeat(2500)}needle${"b".repeat(2494)}\n`]))
      return withFixture(backend, { files }, () =>
        Effect.gen(function*() {
          const registry = yield* ToolRegistry.make([GrepTool])
          const result = yield* registry.execute("grep", { pattern: "needle" }, yield* Tool.makeContext({ sessionID: "s1" }))
          const path = result.metadata.outputPath as string
          assert.strictEqual(result.metadata.truncated, true)
          assert.strictEqual(result.metadata.matches, 100)
          // The whole grep output (100 lines cut to 2000 characters: over 200 KB) is in the spill ...
          const spill = yield* SpillStorage.SpillStorage
          const full = yield* Stream.mkString(Stream.decodeText(spill.read(path)))
          assert.isTrue(full.startsWith("Found 100 matches\n"))
          assert.isAbove(full.length, 200_000)
          // ... and what the model gets is a preview within 51200 bytes plus the notice around it.
          const preview = result.output.slice(result.output.indexOf("\n") + 1, result.output.indexOf("\n\n... "))
          assert.isTrue(Truncate.fits(preview, Truncate.defaults))
          assert.isAbove(new TextEncoder().encode(preview).length, 50_000)
          assert.isBelow(new TextEncoder().encode(result.output).length, 51_200 + 1_000)
        }).pipe(Effect.provide(Layer.mergeAll(
          Truncate.layer(),
          Permission.layer({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
          ModuleLoader.layerMemory({})
        ).pipe(Layer.provideMerge(Layer.merge(SpillStorage.layerMemory(), Events.layerNoop))))))
    })

    it.live("a long line is cut to 2000 characters around the match", () => {
      const line = `${"a".repeat(3000)}needle${"b".repeat(3000)}`
      return withFixture(backend, { files: { "min.js": `${line}\n` } }, ({ call }) =>
        Effect.gen(function*() {
          const result = yield* call(GrepTool, { pattern: "needle" })
          const shown = result.output.split("\n")[2]!
          assert.strictEqual(shown, `  Line 1: ...${"a".repeat(500)}needle${"b".repeat(1494)}... [line cut: 6006 characters]`)
        }))
    })

    /** The matches when src/b.ts cannot be read: every other file's, and a note naming it. */
    const withoutB = (root: string) =>
      [
        "Found 4 matches",
        `${root}/a.ts:`,
        "  Line 1: needle one",
        "  Line 3: needle two",
        "",
        `${root}/docs/old.txt:`,
        "  Line 1: needle old",
        "",
        `${root}/.hidden/h.ts:`,
        "  Line 1: needle hidden",
        "",
        "(1 path could not be read and was skipped: src/b.ts)"
      ].join("\n")

    const isRoot = typeof process.getuid === "function" && process.getuid() === 0
    it.live.skipIf(backend.name === "rg" && isRoot)("unreadable files are skipped and counted", () =>
      withFixture(backend, { ...fixture, unreadable: backend.name === "rg" ? [] : ["src/b.ts"] }, ({ call, root }) =>
        Effect.gen(function*() {
          // The rg binary reads the disk itself: make the file really unreadable (not as root).
          if (backend.name === "rg") yield* Effect.sync(() => chmodSync(`${root}/src/b.ts`, 0))
          const result = yield* call(GrepTool, { pattern: "needle" })
          assert.strictEqual(
            result.output,
            withoutB(root)
          )
          assert.strictEqual(result.metadata.skipped, 1)
        })))

    it.live("files that vanish before their mtime is read are skipped and counted", () =>
      withFixture(backend, { ...fixture, vanished: ["src/b.ts"] }, ({ call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(GrepTool, { pattern: "needle" })
          assert.strictEqual(
            result.output,
            withoutB(root)
          )
          assert.strictEqual(result.metadata.skipped, 1)
        })))
  })
}

describe("grep preview", () => {
  it("keeps short lines and cuts long ones around the first match", () => {
    assert.strictEqual(preview("short", []), "short")
    assert.strictEqual(preview("x".repeat(10), [{ start: 0, end: 1 }], 4), "xxxx... [line cut: 10 characters]")
    assert.strictEqual(preview("abcdefghij", [{ start: 8, end: 9 }], 4), "...ghij [line cut: 10 characters]")
  })
})
