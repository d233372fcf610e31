/** Which failures in a sandboxed command's output the sandbox caused, and the note that says so. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Sandbox } from "@agent-tools/core"
import * as Bash from "../../src/bash/index.ts"
import { analysisLayer } from "./support.ts"

const hidden: Sandbox.Policy = { root: "/ws", cwd: "/ws", writable: [], readable: [], outside: "hidden" }

const blocked = (output: string, policy: Sandbox.Policy = hidden, cwd = "/ws") =>
  Bash.blockedPaths(output, { cwd, policy, system: ["/usr", "/etc"] }).pipe(Effect.provide(analysisLayer()))

describe("blockedPaths", () => {
  it.effect("an outside path reported missing, from the shell, coreutils, Python and Perl", () =>
    Effect.gen(function*() {
      const output = [
        "cat: ../outside/secret: No such file or directory",
        "/bin/bash: line 1: /outside/f: No such file or directory",
        "FileNotFoundError: [Errno 2] No such file or directory: '/outside/py'",
        "Can't open /outside/pl: No such file or directory at -e line 1."
      ].join("\n")
      assert.deepStrictEqual(yield* blocked(output), [
        { path: "../outside/secret", kind: "missing" },
        { path: "/outside/f", kind: "missing" },
        { path: "/outside/py", kind: "missing" },
        { path: "/outside/pl", kind: "missing" }
      ])
    }))

  it.effect("a path in typographic quotes, as GNU tools print them in a UTF-8 locale", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* blocked("ls: cannot access ‘/outside/q’: No such file or directory"), [
        { path: "/outside/q", kind: "missing" }
      ])
    }))

  it.effect("a read-only file system is the sandbox's doing even in a system directory", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* blocked("touch: cannot touch '/usr/x': Read-only file system"), [
        { path: "/usr/x", kind: "read-only" }
      ])
    }))

  it.effect("not the sandbox's doing: a missing workspace file, a missing system file, an approved path", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* blocked("cat: nope.txt: No such file or directory\nls: cannot access '/usr/bin/nope': No such file or directory"), [])
      assert.deepStrictEqual(yield* blocked("cat: /outside/nope: No such file or directory", { ...hidden, readable: ["/outside"] }), [])
      assert.deepStrictEqual(yield* blocked("cat: /outside/nope: No such file or directory", { ...hidden, outside: "writable" }), [])
    }))

  it.effect("a write to a protected control file inside the workspace: read-only or busy, named as such", () =>
    Effect.gen(function*() {
      const guarded = { root: "/ws", relative: [".git/config", "agent-tools.json"], existing: [] }
      const output = [
        "error: could not write config file .git/config: Device or resource busy",
        "bash: agent-tools.json: Read-only file system",
        "mv: cannot move 'x' to 'y': Device or resource busy"
      ].join("\n")
      const found = yield* Bash.blockedPaths(output, { cwd: "/ws", policy: hidden, system: ["/usr"], protected: guarded }).pipe(
        Effect.provide(analysisLayer())
      )
      assert.deepStrictEqual(found, [{ path: ".git/config", kind: "protected" }, { path: "agent-tools.json", kind: "protected" }])
      assert.strictEqual(
        Bash.blockedNote(found),
        "The sandbox blocked .git/config, agent-tools.json: protected control file (git config, hooks or agent config): read-only in the sandbox; edit it with the file tools, which ask."
      )
    }))

  it("the note names the paths and what to do", () => {
    assert.strictEqual(Bash.blockedNote([]), null)
    assert.strictEqual(
      Bash.blockedNote([{ path: "/usr/x", kind: "read-only" }]),
      "The sandbox blocked /usr/x: outside the workspace, files cannot be written unless approved for the call. To use such a path, name it in the command so that access is asked for (external_directory), or ask the user to add it to sandbox.extraReadable / sandbox.extraWritable."
    )
  })
})
