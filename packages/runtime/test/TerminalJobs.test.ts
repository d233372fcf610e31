/**
 * Terminal jobs through the node layer: a real pseudo-terminal (NodeTerminal) under the bubblewrap
 * sandbox, driven only through the tools a model has — bash starts the job, bash_output writes keys
 * and reads what came back. A REPL answers input written by later calls, and Ctrl-C reaches the
 * terminal's foreground program while the shell goes on. A server a job started is one place for the
 * session: its later calls reach it, another session's do not.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Permission, Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"
import { Programs } from "@agent-tools/testing"

const base = realpathSync(mkdtempSync(join(tmpdir(), "terminal-jobs-")))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const call = (tool: string, input: Record<string, unknown>, sessionID = "s") =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID })
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

/** Whether a process whose command line is exactly `sleep <seconds>` runs on this host. */
const sleeping = (seconds: string): boolean =>
  readdirSync("/proc").some((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${seconds}\0`
    } catch {
      return false
    }
  })

/** Waits (bounded) until `check` holds; the assertion after it says whether it did. */
const eventually = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 250 && !check(); i++) yield* Effect.sleep("20 millis")
    return check()
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

const run = <A, E>(effect: Effect.Effect<A, E, ToolRegistry.ToolRegistry | Permission.Permission>) =>
  effect.pipe(Effect.provide(layer), Effect.provide(NodeServices.layer), Effect.scoped)

describe("terminal jobs in the sandbox", () => {
  it.live.skipIf(noPython)(`a Python REPL on a terminal answers input written by later calls${pythonNote}`, () =>
    run(Effect.gen(function*() {
      const started = yield* call("bash", { command: `${PYTHON} -q`, description: "repl", run_in_background: true, tty: true })
      assert.strictEqual(started.metadata.status, "running")
      assert.strictEqual(started.metadata.sandboxed, true)
      const prompt = started.output.includes(">>>") ? started.output : yield* readUntil(started.metadata.id, ">>>")
      assert.include(prompt, ">>>")
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
      assert.include(yield* readUntil(id, "ready>", "PS1='ready> '\r"), "ready>")
      // A foreground program that would run for minutes: the shell answers again only once it ends,
      // and an interrupted list does not go on to its next command.
      yield* call("bash_output", { id, input: "sleep 301.5; echo slept\r" })
      assert.isTrue(yield* eventually(() => sleeping("301.5")), "the sleep did not start")
      yield* call("bash_output", { id, input: "\u0003" })
      assert.isTrue(yield* eventually(() => !sleeping("301.5")), "Ctrl-C did not end the sleep")
      const after = yield* readUntil(id, "after-2", "echo after-$((1+1))\r")
      assert.include(after, "after-2")
      assert.notInclude(after, "slept")
      const status = yield* call("bash_output", { id })
      assert.strictEqual(status.metadata.status, "running")
      yield* call("bash_kill", { id })
    })), 60_000)

  it.live.skipIf(noPython)(`a server a job started is reached by the session's later calls and by no other session${pythonNote}`, () =>
    run(Effect.gen(function*() {
      const port = 20_000 + Math.floor(Math.random() * 20_000)
      const server = yield* call("bash", {
        command: `${PYTHON} -u -m http.server ${port} --bind 127.0.0.1`,
        description: "serve",
        run_in_background: true
      })
      const id = server.metadata.id
      if (!server.output.includes("Serving")) yield* readUntil(id, "Serving")
      // Straight to the port (bash's /dev/tcp), not through the sandbox's HTTP proxy.
      const fetch = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3`
      const same = yield* call("bash", { command: fetch, description: "fetch" })
      assert.include(same.output, "HTTP/1.0 200")
      const other = yield* call("bash", { command: fetch, description: "fetch" }, "another-session")
      assert.notInclude(other.output, "200")
      assert.notStrictEqual(other.metadata.exit, 0)
      yield* call("bash_kill", { id })
    })), 60_000)
})
