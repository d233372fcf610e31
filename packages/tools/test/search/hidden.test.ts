/**
 * grep and glob search hidden files (CI configs, env templates) by default, never anything inside
 * a `.git` directory or a `.git` file (worktrees, submodules), and still honour ignore files —
 * with every backend: the rg binary and the portable walker on disk and in memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GlobTool, GrepTool } from "@agent-tools/tools"
import { backends, withFixture } from "./harness.ts"

const FILES = {
  ".github/workflows/ci.yml": "needle ci\n",
  ".circleci/config.yml": "needle circle\n",
  ".gitlab/ci/deploy.yml": "needle deploy\n",
  ".env.example": "needle=1\n",
  "src/app.ts": "needle app\n",
  // Git internals: the repository's own, a submodule's, and a worktree's `.git` file.
  ".git/HEAD": "needle head\n",
  ".git/config.yml": "needle git config\n",
  "sub/.git/config": "needle submodule\n",
  "wt/.git": "gitdir: needle\n",
  "wt/main.ts": "needle worktree\n",
  // A hidden file that an ignore rule names stays out.
  ".gitignore": ".secret.yml\n",
  ".secret.yml": "needle secret\n"
}
const MTIMES = {
  ".github/workflows/ci.yml": 60,
  ".circleci/config.yml": 50,
  ".gitlab/ci/deploy.yml": 40,
  ".env.example": 30,
  "src/app.ts": 20,
  "wt/main.ts": 10
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`hidden files (${backend.name})`, () => {
    const fixture = { files: FILES, mtimes: MTIMES }

    it.live("glob lists hidden files, never .git, not ignored ones", () =>
      withFixture(backend, fixture, ({ call, root }) =>
        Effect.gen(function*() {
          const yml = yield* call(GlobTool, { pattern: "**/*.yml" })
          assert.strictEqual(
            yml.output,
            [`${root}/.github/workflows/ci.yml`, `${root}/.circleci/config.yml`, `${root}/.gitlab/ci/deploy.yml`].join("\n")
          )
          assert.strictEqual((yield* call(GlobTool, { pattern: ".env*" })).output, `${root}/.env.example`)
          const all = yield* call(GlobTool, { pattern: "**/*" })
          assert.strictEqual(
            all.output,
            [
              `${root}/.github/workflows/ci.yml`,
              `${root}/.circleci/config.yml`,
              `${root}/.gitlab/ci/deploy.yml`,
              `${root}/.env.example`,
              `${root}/src/app.ts`,
              `${root}/wt/main.ts`,
              `${root}/.gitignore`
            ].join("\n")
          )
          // Even a pattern that names git internals finds nothing there.
          assert.strictEqual((yield* call(GlobTool, { pattern: "**/.git/**" })).output.split("\n")[0], "No files found")
          assert.strictEqual((yield* call(GlobTool, { pattern: "**/.git" })).output.split("\n")[0], "No files found")
        })))

    it.live("grep searches hidden files, never .git, not ignored ones", () =>
      withFixture(backend, fixture, ({ call, root }) =>
        Effect.gen(function*() {
          const result = yield* call(GrepTool, { pattern: "needle" })
          assert.strictEqual(
            result.output,
            [
              "Found 6 matches",
              `${root}/.github/workflows/ci.yml:`,
              "  Line 1: needle ci",
              "",
              `${root}/.circleci/config.yml:`,
              "  Line 1: needle circle",
              "",
              `${root}/.gitlab/ci/deploy.yml:`,
              "  Line 1: needle deploy",
              "",
              `${root}/.env.example:`,
              "  Line 1: needle=1",
              "",
              `${root}/src/app.ts:`,
              "  Line 1: needle app",
              "",
              `${root}/wt/main.ts:`,
              "  Line 1: needle worktree"
            ].join("\n")
          )
          const yml = yield* call(GrepTool, { pattern: "needle", include: "*.yml" })
          assert.deepStrictEqual(yml.metadata, { matches: 3, files: 3, shown: 3, skipped: 0, truncated: false })
          const git = yield* call(GrepTool, { pattern: "needle", include: "**/.git/**" })
          assert.strictEqual(git.output, "No files found")
        })))
  })
}
