/**
 * Programs the agent runs itself (`bwrap`, `rg`, the shell) are never taken from the workspace,
 * even when a workspace directory is on PATH (as `npx`, `npm run` and `pnpm exec` put
 * `node_modules/.bin` there), whether as an absolute entry or a relative one. Each planted program
 * writes a marker into the workspace and then runs the real one; no marker may appear, and the
 * bash result says `sandboxed: true` only because the real bwrap ran. Needs bwrap.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"

const which = (program: string): string | undefined => {
  try {
    return execFileSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim() || undefined
  } catch {
    return undefined
  }
}
const realBwrap = which("bwrap")
const realRg = which("rg")
const realBash = which("bash") ?? "/bin/sh"

/** A workspace whose `dir` holds a `bwrap`, `rg` and `bash` that leave a marker in the workspace. */
const plant = (dir: string) => {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "trusted-programs-")))
  writeFileSync(join(ws, "a.txt"), "needle\n")
  const bin = join(ws, dir)
  mkdirSync(bin, { recursive: true })
  const real: Record<string, string | undefined> = { bwrap: realBwrap, rg: realRg, bash: realBash }
  for (const [name, target] of Object.entries(real)) {
    const file = join(bin, name)
    writeFileSync(file, `#!/bin/sh\necho ran > "${ws}/planted-${name}-ran"\n${target === undefined ? "exit 1" : `exec ${target} "$@"`}\n`)
    chmodSync(file, 0o755)
  }
  return { ws, bin, markers: () => readdirSync(ws).filter((f) => f.startsWith("planted-")) }
}

const call = (tool: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "s", tool })
    return yield* registry.execute(tool, args, ctx)
  })

/**
 * Runs a bash and a grep call in an agent on the planted workspace with `entry` first on PATH and,
 * with `chdir`, the workspace as this process's directory (both restored afterwards).
 */
const withPlanted = (dir: string, entry: (ws: string, bin: string) => string, chdir = false) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const planted = plant(dir)
      const path = process.env.PATH
      const cwd = process.cwd()
      process.env.PATH = `${entry(planted.ws, planted.bin)}:${path ?? ""}`
      if (chdir) process.chdir(planted.ws)
      return { ...planted, path, cwd }
    }),
    (planted) =>
      Effect.gen(function*() {
        const bash = yield* call("bash", { command: "echo hi", description: "test" })
        const grep = yield* call("grep", { pattern: "needle" })
        const markers = planted.markers()
        return { bash, grep, markers }
      }).pipe(
        Effect.provide(NodeAgentTools.layerWithoutPlatform({
          cwd: planted.ws,
          config: { permission: { "*": "allow", bash: { "*": "allow" } } },
          unattended: "reject",
          platform: "linux"
        }))
      ),
    (planted) =>
      Effect.sync(() => {
        process.env.PATH = planted.path
        process.chdir(planted.cwd)
        rmSync(planted.ws, { recursive: true, force: true })
      })
  ).pipe(Effect.provide(NodeServices.layer))

const live = it.live.skipIf(realBwrap === undefined)
const skipped = realBwrap === undefined ? " (skipped: needs bwrap)" : ""

describe("programs by absolute, trusted path", () => {
  live(`a bwrap, rg and bash planted in a workspace directory on PATH (absolute entry) never run${skipped}`, () =>
    Effect.gen(function*() {
      const { bash, grep, markers } = yield* withPlanted("bin", (_ws, bin) => bin)
      assert.deepStrictEqual(markers, [])
      assert.strictEqual(bash.output, "hi\n")
      assert.strictEqual(bash.metadata.sandboxed, true)
      assert.include(grep.output, "a.txt")
    }), 60_000)

  live(`a bwrap, rg and bash planted in node_modules/.bin, on PATH as the relative entry node_modules/.bin, never run${skipped}`, () =>
    Effect.gen(function*() {
      // The agent started in the workspace, as `npx` or `npm run` would start it there.
      const { bash, grep, markers } = yield* withPlanted(join("node_modules", ".bin"), () => "node_modules/.bin", true)
      assert.deepStrictEqual(markers, [])
      assert.strictEqual(bash.metadata.sandboxed, true)
      assert.include(grep.output, "a.txt")
    }), 60_000)

  live(`the same through a relative entry that leads into the workspace from elsewhere${skipped}`, () =>
    Effect.gen(function*() {
      const { bash, grep, markers } = yield* withPlanted(join("node_modules", ".bin"), (_ws, bin) => relative(process.cwd(), bin))
      assert.deepStrictEqual(markers, [])
      assert.strictEqual(bash.metadata.sandboxed, true)
      assert.include(grep.output, "a.txt")
    }), 60_000)

  it("the planted scripts would leave their markers when run", () => {
    const planted = plant("bin")
    try {
      execFileSync(join(planted.bin, "bash"), ["-c", "true"])
      assert.isTrue(existsSync(join(planted.ws, "planted-bash-ran")))
    } finally {
      rmSync(planted.ws, { recursive: true, force: true })
    }
  })
})
