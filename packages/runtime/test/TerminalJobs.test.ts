/**
 * Terminal jobs through the node layer: a real pseudo-terminal (NodeTerminal) under the bubblewrap
 * sandbox, driven only through the tools a model has — bash starts the job, bash_output writes keys
 * and reads what came back. A REPL answers input written by later calls, and Ctrl-C reaches the
 * terminal's foreground program while the shell goes on.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"
import { Programs } from "@agent-tools/testing"

const base = realpathSync(mkdtempSync(join(tmpdir(), "terminal-jobs-")))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const call = (tool: string, input: Record<string, unknown>) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "s" })
    return yield* registry.execute(tool, input, ctx)
  })

/** Reads the job (writing `input` first) until what it printed since `input` contains `wanted`; bounded. */
const readUntil = (id: unknown, wanted: string, input?: string) =>
  Effect.gen(function*() {
    let seen = ""
    for (let i = 0; i < 40 && !seen.includes(wanted); i++) {
      const r = yield* call("bash_output", { id, wait_ms: 500, ...(i === 0 && input !== undefined ? { input } : {}) })
      seen += r.output
    }
    return seen
  })

const layer = NodeAgentTools.layerWithoutPlatform({
  cwd: base,
  config: { permission: { bash: { "*": "allow" }, edit: "allow" } },
  // An interactive shell or a REPL runs code the analysis cannot see, which is always asked: approved here.
  unattended: "allow",
  platform: "linux"
})

// The system's Python by absolute path: a version manager's shim on PATH needs its own directories,
// which the sandbox does not show.
const PYTHON = "/usr/bin/python3"
const needs = [Programs.requires("bwrap"), Programs.requires("bash")]
const missing = needs.find((n) => !n.ok)
const skip = missing !== undefined
const note = missing?.note ?? ""
const noPython = skip || !existsSync(PYTHON)
const pythonNote = missing?.note ?? (existsSync(PYTHON) ? "" : ` (skipped: ${PYTHON} not found)`)

const run = <A, E>(effect: Effect.Effect<A, E, ToolRegistry.ToolRegistry>) =>
  effect.pipe(Effect.provide(layer), Effect.provide(NodeServices.layer), Effect.scoped)

describe("terminal jobs in the sandbox", () => {
  it.live.skipIf(noPython)(`a Python REPL on a terminal answers input written by later calls${pythonNote}`, () =>
    run(Effect.gen(function*() {
      const started = yield* call("bash", { command: `${PYTHON} -q`, description: "repl", run_in_background: true, tty: true })
      assert.strictEqual(started.metadata.status, "running")
      assert.strictEqual(started.metadata.sandboxed, true)
      assert.include(yield* readUntil(started.metadata.id, ">>>"), ">>>")
      const answer = yield* readUntil(started.metadata.id, "42", "6*7\r")
      assert.include(answer, "42")
      assert.notInclude(answer, "\u001b", "escape codes reach the model")
      const again = yield* readUntil(started.metadata.id, "hi there", "print('hi', 'there')\r")
      assert.include(again, "hi there")
      yield* call("bash_kill", { id: started.metadata.id })
    })), 60_000)

  it.live.skipIf(skip)(`Ctrl-C reaches the terminal's foreground program and the shell goes on${note}`, () =>
    run(Effect.gen(function*() {
      const started = yield* call("bash", { command: "bash --norc --noprofile -i", description: "shell", run_in_background: true, tty: true })
      const id = started.metadata.id
      yield* readUntil(id, "$", "PS1='ready> '\r")
      // A foreground program that would run for minutes; the shell answers again only once it ends.
      yield* readUntil(id, "ready>", "sleep 300\r")
      const interrupted = yield* readUntil(id, "after-2", "\u0003")
      const after = interrupted.includes("after-2") ? interrupted : yield* readUntil(id, "after-2", "echo after-$((1+1))\r")
      assert.include(after, "after-2")
      const status = yield* call("bash_output", { id })
      assert.strictEqual(status.metadata.status, "running")
      yield* call("bash_kill", { id })
    })), 60_000)
})
