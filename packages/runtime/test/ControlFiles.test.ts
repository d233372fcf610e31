/**
 * The workspace's control files (`.git/config`, hooks, `agent-tools.json`, the `core.hooksPath`
 * directory, `sandbox.protectedPaths`) through the node layer: read-only for sandboxed commands
 * while git commits still work, and always asked by the file tools, whatever rule allows edits.
 * Needs bwrap and git for the sandbox part (skipped without them).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { Explain, NodeAgentTools } from "@agent-tools/runtime"
import type { AgentConfig } from "@agent-tools/runtime"
import { Programs } from "@agent-tools/testing"

const hasBwrap = Programs.hasProgram("bwrap")
const hasGit = Programs.hasProgram("git")

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" })

/** A workspace with a git repository made on the host (one commit), husky-style hooks and an agent config. */
const fixture = () => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "control-files-")))
  writeFileSync(join(ws, "a.txt"), "a\n")
  writeFileSync(join(ws, "agent-tools.json"), "{}\n")
  mkdirSync(join(ws, ".husky", "_"), { recursive: true })
  writeFileSync(join(ws, ".husky", "pre-commit"), "true\n")
  mkdirSync(join(ws, "deploy"))
  writeFileSync(join(ws, "deploy", "hook.sh"), "true\n")
  if (hasGit) {
    git(ws, "init", "-q", ".")
    git(ws, "config", "core.hooksPath", ".husky/_")
    git(ws, "add", "a.txt")
    git(ws, "commit", "-qm", "init")
  }
  return { ws, cleanup: () => rmSync(ws, { recursive: true, force: true }) }
}

const call = (tool: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "s", tool })
    return yield* registry.execute(tool, args, ctx)
  })

const bash = (command: string) => call("bash", { command, description: "test" })

const inAgent = <A, E>(
  config: AgentConfig.Input,
  body: (f: ReturnType<typeof fixture>) => Effect.Effect<A, E, NodeAgentTools.Services>
) =>
  Effect.acquireUseRelease(
    Effect.sync(fixture),
    (f) => body(f).pipe(Effect.provide(NodeAgentTools.layerWithoutPlatform({ cwd: f.ws, config, unattended: "reject", platform: "linux" }))),
    (f) => Effect.sync(f.cleanup)
  ).pipe(Effect.provide(NodeServices.layer))

const live = (name: string, body: () => Effect.Effect<void, unknown, Scope.Scope>) => it.live(name, body, 60_000)

const allowAll = { "*": "allow" as const, bash: { "*": "allow" as const }, edit: "allow" as const, external_directory: "allow" as const }
const protectedPaths = ["deploy"]

/** The tag of the error a failed call ended with. */
const failureTag = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: { _tag?: string } } | undefined)?.error?._tag : "success"

describe("control files in the sandbox", () => {
  const sandboxLive = (name: string, body: () => Effect.Effect<void, unknown, Scope.Scope>) =>
    it.live.skipIf(!hasBwrap || !hasGit)(`${name}${hasBwrap && hasGit ? "" : " (skipped: needs bwrap and git)"}`, body, 60_000)

  for (const outside of ["hidden", "writable"] as const) {
    sandboxLive(`git add and commit work inside; git config, hooks, the hooksPath directory and agent-tools.json stay read-only (outside ${outside})`, () =>
      inAgent({ permission: { ...allowAll, external_directory: outside === "writable" ? "allow" : "deny" }, sandbox: { protectedPaths } }, (f) =>
        Effect.gen(function*() {
          const configBefore = readFileSync(join(f.ws, ".git", "config"), "utf8")
          const commit = yield* bash("echo b > b.txt && git -c user.name=t -c user.email=t@t add b.txt && git -c user.name=t -c user.email=t@t commit -qm two && echo committed")
          assert.strictEqual(commit.metadata.sandboxed, true)
          assert.include(commit.output, "committed")
          assert.include(git(f.ws, "log", "--format=%s"), "two")

          const fsmonitor = yield* bash("git config core.fsmonitor 'touch /tmp/owned'")
          assert.notStrictEqual(fsmonitor.metadata.exit, 0)
          assert.include(
            fsmonitor.output,
            "protected control file (git config, hooks or agent config): read-only in the sandbox; edit it with the file tools, which ask."
          )
          assert.strictEqual(readFileSync(join(f.ws, ".git", "config"), "utf8"), configBefore)

          const writes = yield* bash([
            "echo evil > .git/hooks/pre-commit",
            "echo evil > .husky/_/pre-commit",
            "echo evil > .husky/pre-commit",
            "echo '{\"mcp\":{}}' > agent-tools.json",
            "echo evil > deploy/hook.sh",
            "mv .git .git-old",
            "mv .husky .h",
            "echo \"$PWD/evil\" > .git/commondir",
            "echo '[core]' > .git/config.worktree",
            "true"
          ].join("; "))
          assert.include(writes.output, "Read-only file system")
          assert.include(writes.output, "protected control file")
          assert.isFalse(existsSync(join(f.ws, ".git", "hooks", "pre-commit")))
          assert.isFalse(existsSync(join(f.ws, ".husky", "_", "pre-commit")))
          assert.strictEqual(readFileSync(join(f.ws, ".husky", "pre-commit"), "utf8"), "true\n")
          assert.strictEqual(readFileSync(join(f.ws, "agent-tools.json"), "utf8"), "{}\n")
          assert.strictEqual(readFileSync(join(f.ws, "deploy", "hook.sh"), "utf8"), "true\n")
          assert.isTrue(existsSync(join(f.ws, ".git", "config")))
          assert.isFalse(existsSync(join(f.ws, ".git-old")))
          // Missing ones cannot be mounted; what the call created in .git is gone when it ends.
          assert.isFalse(existsSync(join(f.ws, ".git", "commondir")))
          assert.isFalse(existsSync(join(f.ws, ".git", "config.worktree")))
          assert.strictEqual(readFileSync(join(f.ws, ".git", "config"), "utf8"), configBefore)
        })))
  }
})

describe("the file tools always ask for control files", () => {
  live("write, edit, multiedit and apply_patch of a control file are asked under edit: allow; other files are not", () =>
    inAgent({ permission: allowAll, sandbox: { protectedPaths } }, () =>
      Effect.gen(function*() {
        const plain = yield* call("write", { filePath: "c.txt", content: "c\n" })
        assert.include(plain.output, "c.txt")
        for (
          const [tool, args] of [
            ["write", { filePath: "agent-tools.json", content: "{\"mcp\":{}}\n" }],
            ["write", { filePath: ".agent-tools/tools/x.ts", content: "x\n" }],
            ["edit", { filePath: "agent-tools.json", oldString: "{}", newString: "{ }" }],
            ["multiedit", { filePath: "agent-tools.json", edits: [{ oldString: "{}", newString: "{ }" }] }],
            ["write", { filePath: "deploy/hook.sh", content: "evil\n" }],
            ["apply_patch", { patchText: "*** Begin Patch\n*** Add File: ok.txt\n+ok\n*** Add File: .husky/pre-commit2\n+x\n*** End Patch" }]
          ] as const
        ) {
          const exit = yield* Effect.exit(call(tool, args))
          assert.strictEqual(failureTag(exit), "PermissionRejectedError", `${tool} ${JSON.stringify(args)}`)
        }
        if (hasGit) {
          const exit = yield* Effect.exit(call("edit", { filePath: ".git/config", oldString: "[core]", newString: "[core]\n\tfsmonitor = x" }))
          assert.strictEqual(failureTag(exit), "PermissionRejectedError")
        }
      })))

  live("a deny rule still denies; explain shows the control file is always asked", () =>
    inAgent({ permission: { ...allowAll, edit: { "*": "allow", "deploy/*": "deny" } }, sandbox: { protectedPaths } }, () =>
      Effect.gen(function*() {
        const denied = yield* Effect.exit(call("write", { filePath: "deploy/hook.sh", content: "x\n" }))
        assert.strictEqual(failureTag(denied), "PermissionDeniedError")
        const report = yield* Explain.explain("write", { filePath: "agent-tools.json", content: "{}" })
        assert.strictEqual(report.action, "ask")
        assert.deepStrictEqual(report.decisions.map((d) => [d.action, d.permission, d.pattern, d.source]), [
          ["ask", "edit", "agent-tools.json", "always-ask"]
        ])
        assert.include(Explain.render(report), "always asked (a protected control file)")
        const plain = yield* Explain.explain("write", { filePath: "b.txt", content: "b" })
        assert.strictEqual(plain.action, "allow")
      })))
})
