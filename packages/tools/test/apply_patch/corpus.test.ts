/**
 * The codex apply_patch conformance corpus, vendored as test data in `fixtures/codex-apply-patch`
 * (Apache-2.0; its README names the upstream revisions, its LICENSE is the license text):
 * - the 23 scenarios with codex's harness semantics (copy input/, apply patch.txt, compare the
 *   whole tree with expected/, exit status ignored): all 23 in `sequential` (codex) mode, and all
 *   but 015 (partial success after a failure, which atomic mode exists to prevent) by default;
 * - the 19 CLI cases of tool.rs (final files, success or failure, output and error texts);
 * - the parser cases of parser.rs (hunks or error kind, message and line number).
 */
import { assert, describe, it } from "@effect/vitest"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect, FileSystem, Layer } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Patch } from "@agent-tools/tools"
import { callPatch, node } from "../file/harness.ts"

const CORPUS = fileURLToPath(new URL("./fixtures/codex-apply-patch/", import.meta.url))
const present = existsSync(`${CORPUS}/scenarios`)

const Platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

type Snapshot = Record<string, string>

/** relative path → "dir" or the file's bytes (hex), like codex's snapshot. */
const snapshot = (root: string): Snapshot => {
  const out: Snapshot = {}
  if (!existsSync(root)) return out
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = `${dir}/${name}`
      const key = rel === "" ? name : `${rel}/${name}`
      const info = statSync(full)
      if (info.isDirectory()) {
        out[key] = "dir"
        walk(full, key)
      } else if (info.isFile()) out[key] = readFileSync(full).toString("hex")
    }
  }
  walk(root, "")
  return out
}

const scenarios = present
  ? readdirSync(`${CORPUS}/scenarios`).filter((n) => statSync(`${CORPUS}/scenarios/${n}`).isDirectory()).sort()
  : []

/** Runs one scenario in a fresh temp dir; returns the tree afterwards. */
const runScenario = (name: string, mode: "atomic" | "sequential") =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "codex-scenario-" }))
    const input = `${CORPUS}/scenarios/${name}/input`
    if (existsSync(input)) cpSync(input, dir, { recursive: true })
    const patch = readFileSync(`${CORPUS}/scenarios/${name}/patch.txt`, "utf8")
    yield* callPatch({ patchText: patch }).pipe(Effect.ignore, Effect.provide(node({ root: dir, mode })))
    return snapshot(dir)
  }).pipe(Effect.provide(Platform))

describe("codex apply_patch corpus", () => {
  if (!present) {
    it("is present", () => {
      assert.fail(`The codex corpus is missing: expected ${CORPUS}scenarios.`)
    })
    return
  }

  it("has its 23 scenarios", () => assert.strictEqual(scenarios.length, 23))

  for (const name of scenarios) {
    const expected = () => snapshot(`${CORPUS}/scenarios/${name}/expected`)
    it.effect(`sequential (codex) mode: ${name}`, () =>
      Effect.map(runScenario(name, "sequential"), (tree) => assert.deepStrictEqual(tree, expected())))
    it.effect(`atomic (default) mode: ${name}`, () =>
      Effect.map(runScenario(name, "atomic"), (tree) => {
        if (name.startsWith("015_")) {
          // The update of a missing file fails, so the Add before it is not applied either.
          assert.notDeepEqual(tree, expected())
          assert.deepStrictEqual(tree, {})
        } else assert.deepStrictEqual(tree, expected())
      }))
  }
})

interface ToolCase {
  readonly name: string
  readonly initial_files: Record<string, string>
  readonly initial_dirs: ReadonlyArray<string>
  readonly patch: string
  readonly expect_exit: "success" | "failure"
  readonly stdout: string | null
  readonly stderr: string | null
  readonly final_files: Record<string, string>
}

const regularFiles = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const full = `${dir}/${name}`
      const key = rel === "" ? name : `${rel}/${name}`
      if (statSync(full).isDirectory()) walk(full, key)
      else out[key] = readFileSync(full, "utf8")
    }
  }
  walk(root, "")
  return out
}

// Where atomic (default) mode deliberately differs from codex: a file's missing final newline is
// not added, and a patch that fails part-way leaves no changes.
const ATOMIC_DIFFERS: Record<string, Record<string, string>> = {
  updates_file_appends_trailing_newline: { "no_newline.txt": "first line\nsecond line" },
  uses_crlf_for_new_trailing_newline: { "no_trailing_newline.txt": "ONE\r\ntwo" },
  failure_after_partial_success_leaves_changes: {}
}

describe("codex apply_patch CLI cases", () => {
  const cases: ReadonlyArray<ToolCase> = present ? JSON.parse(readFileSync(`${CORPUS}/tool-cases.json`, "utf8")).cases : []
  for (const mode of ["sequential", "atomic"] as const) {
    for (const c of cases) {
      it.effect(`${mode}: ${c.name}`, () =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "codex-case-" }))
          for (const d of c.initial_dirs) mkdirSync(`${dir}/${d}`, { recursive: true })
          for (const [file, content] of Object.entries(c.initial_files)) {
            mkdirSync(`${dir}/${file}`.replace(/\/[^/]*$/, ""), { recursive: true })
            yield* fs.writeFileString(`${dir}/${file}`, content)
          }
          const result = yield* callPatch({ patchText: c.patch }).pipe(
            Effect.map((r) => ({ ok: true as const, text: r.output })),
            Effect.catch((e) => Effect.succeed({ ok: false as const, text: e.message })),
            Effect.provide(node({ root: dir, mode }))
          )
          const expectedFiles = mode === "atomic" && c.name in ATOMIC_DIFFERS ? ATOMIC_DIFFERS[c.name]! : c.final_files
          assert.deepStrictEqual(regularFiles(dir), expectedFiles)
          if (mode === "atomic" && c.name === "failure_after_partial_success_leaves_changes") return
          assert.strictEqual(result.ok, c.expect_exit === "success", result.text)
          if (c.stdout !== null && c.stdout !== "") assert.strictEqual(result.text, c.stdout.trimEnd())
          if (c.stderr !== null) {
            const core = c.stderr.trimEnd().replaceAll("{cwd}/", "").replace(" (os error 2)", "")
            assert.include(result.text, core)
          }
        }).pipe(Effect.provide(Platform)))
    }
  }
})

interface ParserCase {
  readonly name: string
  readonly mode: "strict" | "lenient" | "streaming"
  readonly input: string
  readonly expect: {
    readonly accepted: boolean
    readonly hunks?: ReadonlyArray<unknown>
    readonly error?: { readonly kind: string; readonly message: string; readonly line_number?: number }
  }
}

/** Our hunks in parser-cases.json's representation. */
const asCodex = (hunk: Patch.Hunk): unknown =>
  hunk.type === "add"
    ? { type: "add", path: hunk.path, contents: hunk.contents }
    : hunk.type === "delete"
    ? { type: "delete", path: hunk.path }
    : {
      type: "update",
      path: hunk.path,
      move_path: hunk.movePath ?? null,
      chunks: hunk.chunks.map((c) => ({
        change_context: c.changeContext ?? null,
        old_lines: c.oldLines,
        new_lines: c.newLines,
        is_end_of_file: c.isEndOfFile
      }))
    }

describe("codex apply_patch parser cases", () => {
  const data = present ? JSON.parse(readFileSync(`${CORPUS}/parser-cases.json`, "utf8")) : { cases: [], internal_cases: [] }
  const cases = (data.cases as ReadonlyArray<ParserCase>).filter((c) => c.mode !== "streaming")
  it("covers the strict and lenient cases", () => assert.isAtLeast(cases.length, 15))
  for (const c of cases) {
    it(`${c.mode}: ${c.name}`, () => {
      const input = c.input.replaceAll("{abs_dir}", "/abs/dir")
      if (c.expect.accepted) {
        const hunks = Patch.parsePatch(input, c.mode as Patch.ParseMode)
        assert.deepStrictEqual(JSON.parse(JSON.stringify(hunks.map(asCodex)).replaceAll("/abs/dir", "{abs_dir}")), c.expect.hunks)
      } else {
        try {
          Patch.parsePatch(input, c.mode as Patch.ParseMode)
          assert.fail("expected a parse error")
        } catch (e) {
          assert.instanceOf(e, Patch.PatchParseError)
          assert.strictEqual(e.kind, c.expect.error!.kind)
          assert.strictEqual(e.detail, c.expect.error!.message)
          assert.strictEqual(e.lineNumber, c.expect.error!.line_number)
        }
      }
    })
  }
  for (const c of data.internal_cases as ReadonlyArray<{ function: string; args: { lines: Array<string>; line_number: number; allow_missing_context?: boolean }; expect: { accepted: boolean; chunk?: unknown; lines_consumed?: number; error?: { message: string; line_number: number } } }>) {
    if (c.function === "parse_one_hunk") {
      it(`internal parse_one_hunk: ${JSON.stringify(c.args.lines)}`, () => {
        try {
          Patch.parseHunk(c.args.lines, c.args.line_number)
          assert.fail("expected a parse error")
        } catch (e) {
          assert.instanceOf(e, Patch.PatchParseError)
          assert.strictEqual(e.detail, c.expect.error!.message)
          assert.strictEqual(e.lineNumber, c.expect.error!.line_number)
        }
      })
      continue
    }
    it(`internal parse_update_file_chunk: ${JSON.stringify(c.args.lines)}`, () => {
      const run = () => Patch.parseChunk(c.args.lines, c.args.line_number, c.args.allow_missing_context ?? false)
      if (c.expect.accepted) {
        const [chunk, used] = run()
        assert.deepStrictEqual(
          { change_context: chunk.changeContext ?? null, old_lines: chunk.oldLines, new_lines: chunk.newLines, is_end_of_file: chunk.isEndOfFile },
          c.expect.chunk
        )
        assert.strictEqual(used, c.expect.lines_consumed)
      } else {
        try {
          run()
          assert.fail("expected a parse error")
        } catch (e) {
          assert.instanceOf(e, Patch.PatchParseError)
          assert.strictEqual(e.detail, c.expect.error!.message)
          assert.strictEqual(e.lineNumber, c.expect.error!.line_number)
        }
      }
    })
  }
})
