/**
 * codex's `apply_patch <<'EOF'` heredoc sent to the bash tool: exactly that one invocation is
 * recognised and runs as the apply_patch tool (its permission requests, its result); anything
 * else stays a shell command.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { Testing } from "@agent-tools/testing"
import { ApplyPatchTool, ReadTool } from "@agent-tools/tools"
import * as Bash from "../../src/bash/index.ts"
import { recognise } from "../../src/apply_patch/shellPatch.ts"

const PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch"

describe("recognise", () => {
  it("the heredoc forms codex's models write, with or without cd", () => {
    for (
      const command of [
        `apply_patch <<'EOF'\n${PATCH}\nEOF`,
        `apply_patch <<EOF\n${PATCH}\nEOF\n`,
        `applypatch <<"PATCH"\n${PATCH}\nPATCH`,
        `apply_patch << 'EOF'\n${PATCH}\nEOF  \n`,
        `cd sub && apply_patch <<'EOF'\n${PATCH}\nEOF`,
        `cd 'my dir' && apply_patch <<'EOF'\n${PATCH}\nEOF`
      ]
    ) {
      assert.strictEqual(recognise(command)?.patchText, PATCH, command)
    }
    assert.strictEqual(recognise(`cd 'my dir' && apply_patch <<'EOF'\n${PATCH}\nEOF`)?.cd, "'my dir'")
  })

  it("anything more than that one invocation, or a body that is not a patch, is a shell command", () => {
    for (
      const command of [
        `apply_patch <<'EOF'\n${PATCH}\nEOF\nrm -rf x`,
        `echo hi; apply_patch <<'EOF'\n${PATCH}\nEOF`,
        `apply_patch <<'EOF' && rm x\n${PATCH}\nEOF`,
        `apply_patch <<'EOF'\n${PATCH}\nEND`,
        `apply_patch <<'EOF'\nhello\nEOF`,
        `cd $(evil) && apply_patch <<'EOF'\n${PATCH}\nEOF`,
        `cd ~/src && apply_patch <<'EOF'\n${PATCH}\nEOF`,
        `apply_patch "${PATCH}"`,
        `cat <<'EOF'\n${PATCH}\nEOF`
      ]
    ) {
      assert.isUndefined(recognise(command), command)
    }
  })
})

const base = realpathSync(mkdtempSync(join(tmpdir(), "shell-patch-")))
const root = join(base, "ws")
afterAll(() => rmSync(base, { recursive: true, force: true }))

const layer = Testing.layer({
  tools: [Bash.BashTool, ReadTool, ApplyPatchTool],
  root,
  platform: NodeServices.layer,
  services: Layer.mergeAll(
    Bash.parserLayer,
    Bash.configLayer({ home: base }),
    ConfigProvider.layer(ConfigProvider.fromEnvRecord({ PATH: "/usr/bin:/bin", SHELL: "/bin/bash" }))
  )
})

const bash = (command: string, workdir?: string) => ({ command, description: "patch", ...(workdir ? { workdir } : {}) })

describe("bash: apply_patch through the shell", () => {
  mkdirSync(join(root, "sub"), { recursive: true })

  it.live("runs as the apply_patch tool: its edit request, its result, the file changed", () =>
    Effect.gen(function*() {
      writeFileSync(join(root, "sub", "a.txt"), "one\ntwo\n")
      const registry = yield* ToolRegistry.ToolRegistry
      const tool = Option.getOrThrow(yield* registry.get("bash"))
      const args = bash(`cd sub && apply_patch <<'EOF'\n${PATCH}\nEOF`)
      const ctx = yield* Tool.makeContext({ sessionID: "s1", tool: "bash" })
      // What `agent-tools explain` shows: apply_patch's requests, not a bash command's.
      const { requests } = yield* tool.plan(yield* tool.validate(args), ctx)
      assert.deepStrictEqual(requests.map((r) => [r.permission, r.patterns]), [["edit", ["sub/a.txt"]]])
      yield* Testing.call("read", { filePath: "sub/a.txt" })
      const result = yield* Testing.call("bash", args)
      assert.strictEqual(result.output, "Success. Updated the following files:\nM sub/a.txt")
      assert.strictEqual(result.metadata.mode, "atomic")
      assert.strictEqual(readFileSync(join(root, "sub", "a.txt"), "utf8"), "uno\ntwo\n")
    }).pipe(Effect.provide(layer)), 30_000)

  it.live("the workdir is where relative paths are taken, and a failing patch fails the call with apply_patch's message", () =>
    Effect.gen(function*() {
      writeFileSync(join(root, "sub", "a.txt"), "zero\n")
      yield* Testing.call("read", { filePath: "sub/a.txt" })
      const error = yield* Effect.flip(Testing.call("bash", bash(`apply_patch <<'EOF'\n${PATCH}\nEOF`, "sub")))
      assert.include(error.message, "Failed to find expected lines in sub/a.txt")
      assert.include(error.message, "No files were changed.")
      assert.strictEqual(readFileSync(join(root, "sub", "a.txt"), "utf8"), "zero\n")
    }).pipe(Effect.provide(layer)), 30_000)
})
