/**
 * Background jobs through the node layer, in the bubblewrap sandbox: a job runs sandboxed, and
 * bash_kill or the end of the session (the layer's scope) leaves none of its processes behind,
 * children that made their own session or were double-forked included (the sandbox's PID
 * namespace ends them all). Processes are found on the host by their unique command lines.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"
import { Programs } from "@agent-tools/testing"

const base = realpathSync(mkdtempSync(join(tmpdir(), "jobs-sandbox-")))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const allowAll = { bash: { "*": "allow" as const }, edit: "allow" as const }

/** Host pids whose command line is exactly `sleep <seconds>`. */
const sleepers = (seconds: string): Array<number> =>
  readdirSync("/proc").filter((n) => /^\d+$/.test(n)).flatMap((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${seconds}\0` ? [Number(pid)] : []
    } catch {
      return []
    }
  })

/** Waits (bounded) until `check` holds; the assertion after it says whether it did. */
const eventually = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 250 && !check(); i++) yield* Effect.sleep("20 millis")
    return check()
  })

const call = (tool: string, input: Record<string, unknown>) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "s" })
    return yield* registry.execute(tool, input, ctx)
  })

/** A child, a child in its own session and a double-forked grandchild, each a `sleep` with its own duration. */
const planted = (tag: string) =>
  `sleep ${tag}1 & setsid sleep ${tag}2 & (sleep ${tag}3 &) ; echo planted; wait`
const marks = (tag: string) => [`${tag}1`, `${tag}2`, `${tag}3`]

const bwrap = Programs.requires("bwrap")

describe("background jobs in the sandbox", () => {
  it.live.skipIf(!bwrap.ok)(`bash_kill ends every process of a sandboxed job${bwrap.note}`, () =>
    Effect.gen(function*() {
      const started = yield* call("bash", { command: planted("4711.0"), description: "plant", run_in_background: true })
      assert.strictEqual(started.metadata.sandboxed, true)
      assert.isTrue(yield* eventually(() => marks("4711.0").every((m) => sleepers(m).length === 1)))
      const killed = yield* call("bash_kill", { id: started.metadata.id })
      assert.strictEqual(killed.metadata.status, "killed")
      assert.isTrue(yield* eventually(() => marks("4711.0").every((m) => sleepers(m).length === 0)), "a planted process still runs")
    }).pipe(
      Effect.provide(NodeAgentTools.layerWithoutPlatform({ cwd: base, config: { permission: allowAll }, unattended: "reject", platform: "linux" })),
      Effect.provide(NodeServices.layer),
      Effect.scoped
    ), 30_000)

  it.live.skipIf(!bwrap.ok)(`the session's end ends every job it started${bwrap.note}`, () =>
    Effect.gen(function*() {
      const session = yield* Scope.make()
      const layer = NodeAgentTools.layerWithoutPlatform({ cwd: base, config: { permission: allowAll }, unattended: "reject", platform: "linux" })
      const context = yield* Layer.buildWithScope(layer, session)
      const started = yield* Effect.provide(call("bash", { command: planted("4712.0"), description: "plant", run_in_background: true }), context)
      assert.strictEqual(started.metadata.status, "running")
      assert.isTrue(yield* eventually(() => marks("4712.0").every((m) => sleepers(m).length === 1)))
      yield* Scope.close(session, Exit.void)
      assert.isTrue(yield* eventually(() => marks("4712.0").every((m) => sleepers(m).length === 0)), "a planted process still runs")
    }).pipe(Effect.provide(NodeServices.layer), Effect.scoped), 30_000)
})
