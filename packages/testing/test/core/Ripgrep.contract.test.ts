/**
 * One set of cases, run against every layer: the rg binary (where rg is installed), the portable
 * layer on the real file system, and the portable layer on the in-memory file system. The fixture
 * is written through the `FileSystem` service, so each backend sees the same tree.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path, Stream } from "effect"
import { NodeServices } from "@effect/platform-node"
import { MemoryFileSystem } from "@agent-tools/testing"
import { Ripgrep, RipgrepBinary, RipgrepPortable } from "@agent-tools/core"
import { spawnSync } from "node:child_process"

const hasRg = spawnSync("rg", ["--version"]).status === 0
const isRoot = typeof process.getuid === "function" && process.getuid() === 0

const FILES: Record<string, string> = {
  ".gitignore": "dist/\n*.log\n!keep.log\nnode_modules/\n",
  "a.ts": "const needle = 1\nconst other = 2\n",
  "b.md": "needle in docs\n",
  "x.log": "needle log\n",
  "keep.log": "needle kept\n",
  "dist/out.js": "needle dist\n",
  "src/c.ts": "export const needle = 3\n// NEEDLE upper\n",
  "src/.gitignore": "gen/\n*.gen.ts\n!important.gen.ts\n",
  "src/x.gen.ts": "needle gen\n",
  "src/important.gen.ts": "needle important\n",
  "src/gen/g.ts": "needle in gen\n",
  "src/deep/d.ts": "needle deep\n",
  "src/.dot.ts": "needle dotfile\n",
  "sub/.ignore": "!*.log\n",
  "sub/s.log": "needle sub log\n",
  ".hidden/h.ts": "needle hidden\n",
  ".env": "NEEDLE=1\n",
  ".git/HEAD": "needle in git\n",
  "node_modules/m/index.js": "needle module\n",
  "unicode.txt": "café needle\n",
  "crlf.txt": "needle crlf\r\nline2\r\n",
  "flags.txt": "cargo build --release\n-1 value\n"
}

const fixture = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "rg-contract-" })
  for (const [rel, content] of Object.entries(FILES)) {
    const file = path.join(root, rel)
    yield* fs.makeDirectory(path.dirname(file), { recursive: true })
    yield* fs.writeFileString(file, content)
  }
  yield* fs.symlink("a.ts", path.join(root, "lnk.ts"))
  yield* fs.symlink("missing.ts", path.join(root, "broken.ts"))
  yield* fs.symlink("..", path.join(root, "src/deep/up"))
  return root
})

const backends = [
  { name: "rg binary", enabled: hasRg, layer: RipgrepBinary.layer().pipe(Layer.provideMerge(NodeServices.layer)) },
  { name: "portable on node fs", enabled: true, layer: RipgrepPortable.layer().pipe(Layer.provideMerge(NodeServices.layer)) },
  {
    name: "portable on memory fs",
    enabled: true,
    layer: RipgrepPortable.layer().pipe(Layer.provideMerge(Layer.mergeAll(MemoryFileSystem.layer({ directories: ["/tmp"] }), Path.layer)))
  }
]

const render = (events: ReadonlyArray<Ripgrep.FilesEvent | Ripgrep.SearchEvent>) =>
  events.map((e) => (e._tag === "File" ? e.path : e._tag === "Match" ? `${e.path}:${e.line}:${e.text}` : `skipped ${e.path}`)).sort()

const DEFAULT_FILES = [
  "a.ts", "b.md", "crlf.txt", "flags.txt", "keep.log", "src/c.ts", "src/deep/d.ts", "src/important.gen.ts", "sub/s.log", "unicode.txt"
]

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`Ripgrep contract: ${backend.name}`, () => {
    const run = <A, E>(f: (rg: Ripgrep.Service, root: string, fs: FileSystem.FileSystem) => Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        const rg = yield* Ripgrep.Ripgrep
        const root = yield* fixture
        return yield* f(rg, root, yield* FileSystem.FileSystem)
      }).pipe(Effect.provide(backend.layer))
    const files = (options: Omit<Ripgrep.FilesOptions, "cwd">) =>
      run((rg, cwd) => Stream.runCollect(rg.files({ ...options, cwd })).pipe(Effect.map(render)))
    const search = (options: Omit<Ripgrep.SearchOptions, "cwd">) =>
      run((rg, cwd) => Stream.runCollect(rg.search({ ...options, cwd })).pipe(Effect.map(render)))

    it.live("files: .gitignore (nested, negated), .ignore re-include, hidden and .git skipped, links not followed", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* files({}), DEFAULT_FILES)
      }))

    it.live("files: hidden includes dotfiles but never .git", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* files({ hidden: true }), [
          ".env", ".gitignore", ".hidden/h.ts", "a.ts", "b.md", "crlf.txt", "flags.txt", "keep.log", "src/.dot.ts", "src/.gitignore", "src/c.ts",
          "src/deep/d.ts", "src/important.gen.ts", "sub/.ignore", "sub/s.log", "unicode.txt"
        ])
      }))

    it.live("hidden: a worktree's .git file and a submodule's .git directory are never listed or searched", () =>
      run((rg, cwd, fs) =>
        Effect.gen(function*() {
          yield* fs.makeDirectory(`${cwd}/wt`)
          yield* fs.writeFileString(`${cwd}/wt/.git`, "gitdir: needle\n")
          yield* fs.writeFileString(`${cwd}/wt/w.ts`, "needle worktree\n")
          yield* fs.makeDirectory(`${cwd}/mod/.git`, { recursive: true })
          yield* fs.writeFileString(`${cwd}/mod/.git/config`, "needle submodule\n")
          yield* fs.makeDirectory(`${cwd}/.github/workflows`, { recursive: true })
          yield* fs.writeFileString(`${cwd}/.github/workflows/ci.yml`, "needle ci\n")
          const listed = yield* Stream.runCollect(rg.files({ cwd, hidden: true, filter: ["wt/**", "mod/**", ".github/**"] }))
          assert.deepStrictEqual(render(listed), [".github/workflows/ci.yml", "wt/w.ts"])
          const found = yield* Stream.runCollect(rg.search({ cwd, pattern: "needle", hidden: true, filter: ["wt/**", "mod/**", ".github/**"] }))
          assert.deepStrictEqual(render(found), [".github/workflows/ci.yml:1:needle ci", "wt/w.ts:1:needle worktree"])
        })))

    it.live("files: globs (any depth, anchored, negated) override ignore files", () =>
      Effect.gen(function*() {
        // rg's --glob semantics: the glob whitelists what it matches over src/.gitignore and over
        // hiddenness (src/x.gen.ts, src/.dot.ts); the ignored src/gen/ is not entered.
        const ts = ["src/.dot.ts", "src/c.ts", "src/deep/d.ts", "src/important.gen.ts", "src/x.gen.ts"]
        assert.deepStrictEqual(yield* files({ glob: ["*.ts"] }), ["a.ts", ...ts])
        assert.deepStrictEqual(yield* files({ glob: ["src/**/*.ts"] }), ts)
        assert.deepStrictEqual(yield* files({ glob: ["*.ts", "!src/deep/**"] }), ["a.ts", ...ts.filter((f) => !f.includes("deep"))])
        // A glob naming gitignored files includes them, but an ignored directory is still not entered.
        assert.deepStrictEqual(yield* files({ glob: ["*.log"] }), ["keep.log", "sub/s.log", "x.log"])
        assert.deepStrictEqual(yield* files({ glob: [".env"] }), [".env"])
      }))

    it.live("files: filter globs select files without overriding ignore rules or hiddenness", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* files({ filter: ["*.ts"] }), ["a.ts", "src/c.ts", "src/deep/d.ts", "src/important.gen.ts"])
        assert.deepStrictEqual(yield* files({ filter: ["**/*"] }), DEFAULT_FILES)
        assert.deepStrictEqual(yield* files({ filter: ["src/**"] }), ["src/c.ts", "src/deep/d.ts", "src/important.gen.ts"])
        assert.deepStrictEqual(yield* files({ filter: ["*.ts", "!src/deep/**"] }), ["a.ts", "src/c.ts", "src/important.gen.ts"])
        assert.deepStrictEqual(yield* files({ filter: ["*.{md,log}"] }), ["b.md", "keep.log", "sub/s.log"])
        assert.deepStrictEqual(yield* files({ filter: [".env"] }), [])
        assert.deepStrictEqual(yield* files({ filter: [".env", "src/*.ts"], hidden: true }), [".env", "src/.dot.ts", "src/c.ts", "src/important.gen.ts"])
        assert.deepStrictEqual(yield* files({ filter: ["*.ts"], limit: 2 }).pipe(Effect.map((l) => l.length)), 2)
      }))

    it.live("files: maxDepth, noIgnore, limit", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* files({ maxDepth: 1 }), ["a.ts", "b.md", "crlf.txt", "flags.txt", "keep.log", "unicode.txt"])
        assert.deepStrictEqual(yield* files({ noIgnore: true, glob: ["*.{js,ts}"] }), [
          "a.ts", "dist/out.js", "node_modules/m/index.js", "src/.dot.ts", "src/c.ts", "src/deep/d.ts", "src/gen/g.ts", "src/important.gen.ts",
          "src/x.gen.ts"
        ])
        assert.strictEqual((yield* files({ limit: 3 })).length, 3)
        assert.deepStrictEqual(yield* files({ limit: 0 }), [])
      }))

    it.live("files: following links reports dangling links and loops as skipped", () =>
      Effect.gen(function*() {
        const listed = yield* files({ follow: true, glob: ["*.ts"] })
        assert.deepStrictEqual(listed, [
          "a.ts", "lnk.ts", "skipped broken.ts", "skipped src/deep/up", "src/.dot.ts", "src/c.ts", "src/deep/d.ts", "src/important.gen.ts",
          "src/x.gen.ts"
        ])
      }))

    it.live("files: stat reports modification times", () =>
      Effect.gen(function*() {
        const events = yield* run((rg, cwd) => Stream.runCollect(rg.files({ cwd, stat: true, glob: ["a.ts"] })))
        assert.strictEqual(events.length, 1)
        const [entry] = events
        assert.isTrue(entry?._tag === "File" && typeof entry.mtime === "number")
      }))

    it.live("search: lines, numbers, per-line matching, CRLF and unicode offsets", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* search({ pattern: "needle" }), [
          "a.ts:1:const needle = 1", "b.md:1:needle in docs", "crlf.txt:1:needle crlf", "keep.log:1:needle kept",
          "src/c.ts:1:export const needle = 3", "src/deep/d.ts:1:needle deep", "src/important.gen.ts:1:needle important",
          "sub/s.log:1:needle sub log", "unicode.txt:1:café needle"
        ])
        const events = yield* run((rg, cwd) => Stream.runCollect(rg.search({ cwd, pattern: "ne+dle", glob: ["unicode.txt"] })))
        assert.deepStrictEqual(events, [{ _tag: "Match", path: "unicode.txt", line: 1, text: "café needle", submatches: [{ start: 5, end: 11 }] }])
        // Lines end at "\n": the "\r" of a CRLF line is part of the line for matching (no `$` before it).
        assert.deepStrictEqual(yield* search({ pattern: "^line\\d$" }), [])
        assert.deepStrictEqual(yield* search({ pattern: "^line\\d" }), ["crlf.txt:2:line2"])
      }))

    it.live("search: case-insensitive, literal, patterns that look like flags", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* search({ pattern: "NEEDLE", glob: ["src/*.ts"] }), ["src/c.ts:2:// NEEDLE upper"])
        assert.deepStrictEqual(yield* search({ pattern: "NEEDLE", caseInsensitive: true, glob: ["src/c.ts"] }), [
          "src/c.ts:1:export const needle = 3", "src/c.ts:2:// NEEDLE upper"
        ])
        assert.deepStrictEqual(yield* search({ pattern: "--release" }), ["flags.txt:1:cargo build --release"])
        assert.deepStrictEqual(yield* search({ pattern: "-1" }), ["flags.txt:2:-1 value"])
        assert.deepStrictEqual(yield* search({ pattern: "= (1", literal: true }), [])
        assert.deepStrictEqual(yield* search({ pattern: "needle = 1", literal: true }), ["a.ts:1:const needle = 1"])
      }))

    it.live("search: filter globs select the files searched", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* search({ pattern: "needle", filter: ["*.md"] }), ["b.md:1:needle in docs"])
        assert.deepStrictEqual(yield* search({ pattern: "needle", filter: ["src/*"] }), [
          "src/c.ts:1:export const needle = 3", "src/important.gen.ts:1:needle important"
        ])
        assert.deepStrictEqual(yield* search({ pattern: "needle", filter: ["*.ts"], paths: ["x.log"] }), ["x.log:1:needle log"])
      }))

    it.live("count: matching lines per file; maxCount caps them", () =>
      Effect.gen(function*() {
        const counts = yield* run((rg, cwd) => Stream.runCollect(rg.count({ cwd, pattern: "needle", caseInsensitive: true, filter: ["src/**", "*.md"] })))
        assert.deepStrictEqual(counts.map((c) => (c._tag === "Count" ? `${c.path}=${c.count}` : c.path)).sort(), [
          "b.md=1", "src/c.ts=2", "src/deep/d.ts=1", "src/important.gen.ts=1"
        ])
        const capped = yield* search({ pattern: "needle", caseInsensitive: true, paths: ["src/c.ts"], maxCount: 1 })
        assert.deepStrictEqual(capped, ["src/c.ts:1:export const needle = 3"])
        const one = yield* run((rg, cwd) => Stream.runCollect(rg.count({ cwd, pattern: "needle", paths: ["x.log"] })))
        assert.deepStrictEqual(one, [{ _tag: "Count", path: "x.log", count: 1 }])
      }))

    it.live("mtimes: modification times of the given paths; missing ones left out", () =>
      Effect.gen(function*() {
        const result = yield* run((rg, cwd, fs) =>
          Effect.gen(function*() {
            yield* fs.utimes(`${cwd}/a.ts`, 1_700_000_000, 1_700_000_000)
            yield* fs.utimes(`${cwd}/src/c.ts`, 1_600_000_000.5, 1_600_000_000.5)
            return yield* Stream.runCollect(rg.mtimes(cwd, Stream.make("a.ts", "missing.ts", "src/c.ts")))
          })
        )
        assert.deepStrictEqual([...result].sort((a, b) => a.path.localeCompare(b.path)), [
          { path: "a.ts", mtime: 1_700_000_000_000 },
          { path: "src/c.ts", mtime: 1_600_000_000_500 }
        ])
      }))

    it.live("search: explicit paths bypass ignore rules; limit stops early", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* search({ pattern: "needle", paths: ["x.log"] }), ["x.log:1:needle log"])
        assert.strictEqual((yield* search({ pattern: "needle", limit: 2 })).length, 2)
      }))

    it.live("search: invalid regex and glob are typed errors quoting the reason", () =>
      Effect.gen(function*() {
        const regex = yield* Effect.flip(search({ pattern: "foo(" }))
        assert.strictEqual(regex._tag, "InvalidPatternError")
        assert.include(regex.message, "Invalid regular expression \"foo(\": ")
        assert.match(regex.message, /unclosed group|Unterminated group/)
        const glob = yield* Effect.flip(search({ pattern: "x", glob: ["{a"] }))
        assert.strictEqual(glob.message, "Invalid glob \"{a\": unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
      }))

    it.live("search: a missing cwd is a RipgrepError; dangling links are skipped, not fatal", () =>
      Effect.gen(function*() {
        const missing = yield* Effect.flip(run((rg, cwd) => Stream.runCollect(rg.search({ cwd: `${cwd}/nope`, pattern: "x" }))))
        assert.strictEqual(missing._tag, "RipgrepError")
        assert.include(missing.message, "No such file or directory")
        assert.deepStrictEqual(yield* search({ pattern: "needle", follow: true, glob: ["*.ts", "!src/**"] }), [
          "a.ts:1:const needle = 1", "lnk.ts:1:const needle = 1", "skipped broken.ts"
        ])
      }))

    it.live.skipIf(isRoot || backend.name.includes("memory"))("unreadable files and directories are skipped and reported", () =>
      Effect.gen(function*() {
        const events = yield* run((rg, cwd, fs) =>
          Effect.gen(function*() {
            yield* fs.makeDirectory(`${cwd}/locked`)
            yield* fs.writeFileString(`${cwd}/locked/l.ts`, "needle\n")
            yield* fs.writeFileString(`${cwd}/nope.ts`, "needle\n")
            yield* fs.chmod(`${cwd}/locked`, 0)
            yield* fs.chmod(`${cwd}/nope.ts`, 0)
            const found = yield* Stream.runCollect(rg.search({ cwd, pattern: "needle", glob: ["*.ts", "!src/**"] }))
            yield* fs.chmod(`${cwd}/locked`, 0o755)
            return found
          })
        )
        assert.deepStrictEqual(render(events), ["a.ts:1:const needle = 1", "skipped locked", "skipped nope.ts"])
      }))
  })
}
