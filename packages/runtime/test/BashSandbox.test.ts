/**
 * The bash tool through the node layer, sandbox wired from the config: results say whether they
 * ran sandboxed, an approved outside path is visible for its call only, a path the sandbox hid
 * is explained, and `mode: required` without a sandbox refuses to run.
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Scope } from "effect"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"
import type { AgentConfig } from "@agent-tools/runtime"
import { Programs } from "@agent-tools/testing"

const fixture = () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "bash-sandbox-")))
  const ws = join(base, "ws")
  const outside = join(base, "outside")
  mkdirSync(ws)
  mkdirSync(outside)
  writeFileSync(join(outside, "secret"), "TOP-SECRET\n")
  symlinkSync("../outside", join(ws, "link"))
  return { ws, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) }
}

const bash = (command: string) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "s", tool: "bash" })
    return yield* registry.execute("bash", { command, description: "test" }, ctx)
  })

const inAgent = <A, E>(
  config: AgentConfig.Input,
  unattended: "allow" | "reject",
  body: (f: ReturnType<typeof fixture>) => Effect.Effect<A, E, NodeAgentTools.Services>
) =>
  Effect.acquireUseRelease(
    Effect.sync(fixture),
    (f) => body(f).pipe(Effect.provide(NodeAgentTools.layerWithoutPlatform({ cwd: f.ws, config, unattended, platform: "linux" }))),
    (f) => Effect.sync(f.cleanup)
  ).pipe(Effect.provide(NodeServices.layer))

/** A live test that needs `programs` on the host: skipped, naming the missing ones, where they are not. */
const live = (name: string, programs: ReadonlyArray<string>, body: () => Effect.Effect<void, unknown, Scope.Scope>) => {
  const needs = Programs.requires(...programs)
  return it.live.skipIf(!needs.ok)(`${name}${needs.note}`, body, 30_000)
}

const allowAll = { bash: { "*": "allow" as const }, edit: "allow" as const }

describe("bash in the sandbox", () => {
  live("metadata.sandboxed is true by default on Linux with bwrap", ["bwrap"], () =>
    inAgent({ permission: allowAll }, "reject", () =>
      Effect.gen(function*() {
        const result = yield* bash("echo hi")
        assert.strictEqual(result.output, "hi\n")
        assert.strictEqual(result.metadata.sandboxed, true)
        assert.strictEqual(result.metadata.sandboxReason, undefined)
        const tool = yield* ToolRegistry.ToolRegistry.use((r) => r.get("bash"))
        assert.include(Option.getOrThrow(tool).description, "- Commands run in a sandbox: the workspace and a private temp directory are writable")
      })))

  live("mode off: metadata.sandboxed is false, with the reason", [], () =>
    inAgent({ permission: allowAll, sandbox: { mode: "off" } }, "reject", () =>
      Effect.gen(function*() {
        const result = yield* bash("echo hi")
        assert.strictEqual(result.metadata.sandboxed, false)
        assert.strictEqual(result.metadata.sandboxReason, `sandbox.mode is "off"`)
        const tool = yield* ToolRegistry.ToolRegistry.use((r) => r.get("bash"))
        assert.notInclude(Option.getOrThrow(tool).description, "Commands run in a sandbox")
      })))

  live("a path the analysis cannot see is hidden by the kernel, and the result says why", ["bwrap", "python3", "perl"], () =>
    inAgent({ permission: { ...allowAll, external_directory: "deny" } }, "allow", (f) =>
      Effect.gen(function*() {
        const result = yield* bash(`/usr/bin/python3 -c "print(open('../' + 'outside/secret').read())"`)
        assert.notInclude(result.output, "TOP-SECRET")
        assert.include(result.output, "FileNotFoundError: [Errno 2] No such file or directory: '../outside/secret'")
        assert.include(
          result.output,
          "The sandbox blocked ../outside/secret: paths outside the workspace are not visible unless approved for the call."
        )
        // Through the link: a lexical resolve would call this path inside; the host has the file.
        const throughLink = yield* bash(`/usr/bin/perl -e 'open(F, "<", "link" . "/../outside/secret") or die "cannot open link/../outside/secret: $!\\n"'`)
        assert.strictEqual(
          throughLink.output,
          "cannot open link/../outside/secret: No such file or directory\n\n<bash_metadata>\nExit code 2.\nThe sandbox blocked link/../outside/secret: paths outside the workspace are not visible unless approved for the call. To use such a path, name it in the command so that access is asked for (external_directory), or ask the user to add it to sandbox.extraReadable / sandbox.extraWritable.\n</bash_metadata>"
        )
        const write = yield* bash(`/usr/bin/perl -e 'open(F, ">", "/usr/owned") or die "cannot open /usr/owned: $!\\n"'`)
        assert.include(write.output, "cannot open /usr/owned: Read-only file system")
        assert.include(write.output, "The sandbox blocked /usr/owned: outside the workspace, files cannot be written")
        assert.deepStrictEqual(readdirSync(f.outside), ["secret"])
      })))

  live("an outside path approved for a call is visible in that call only", ["bwrap", "python3"], () =>
    inAgent({ permission: { ...allowAll, external_directory: "ask" } }, "allow", (f) =>
      Effect.gen(function*() {
        const approved = yield* bash(`cat ${f.outside}/secret`)
        assert.strictEqual(approved.output, "TOP-SECRET\n")
        const next = yield* bash(`/usr/bin/python3 -c "print(open('${f.outside}/' + 'secret').read())"`)
        assert.notInclude(next.output, "TOP-SECRET")
        assert.include(next.output, "No such file or directory")
      })))

  live("allowing every outside path except some keeps the outside hidden from unanalysed code", ["bwrap", "python3"], () =>
    inAgent({ permission: { ...allowAll, external_directory: { "*": "allow", "*/outside/*": "deny" } } }, "allow", (f) =>
      Effect.gen(function*() {
        const result = yield* bash(`/usr/bin/python3 -c "print(open('${f.outside}/' + 'secret').read())"`)
        assert.strictEqual(result.metadata.sandboxed, true)
        assert.notInclude(result.output, "TOP-SECRET")
        assert.include(result.output, "No such file or directory")
      })))

  live("an approved write is mounted writable for that call", ["bwrap"], () =>
    inAgent({ permission: { ...allowAll, external_directory: "ask" } }, "allow", (f) =>
      Effect.gen(function*() {
        const result = yield* bash(`echo x > ${f.outside}/new && echo done`)
        assert.strictEqual(result.output, "done\n")
        assert.deepStrictEqual(readdirSync(f.outside).toSorted(), ["new", "secret"])
      })))

  live("mode required without a sandbox refuses to run, before anything is asked", [], () =>
    Effect.gen(function*() {
      const f = yield* Effect.acquireRelease(Effect.sync(fixture), (f) => Effect.sync(f.cleanup))
      try {
        const error = yield* Effect.flip(
          bash("touch ran").pipe(
            Effect.provide(
              NodeAgentTools.layerWithoutPlatform({
                cwd: f.ws,
                config: { permission: { bash: "ask" }, sandbox: { mode: "required" } },
                unattended: "reject",
                platform: "darwin"
              })
            )
          )
        )
        assert.strictEqual(
          error.message,
          `sandbox.mode is "required" but no sandbox can run here: no sandbox is implemented for darwin (bubblewrap needs Linux). The command was not run.`
        )
        assert.deepStrictEqual(readdirSync(f.ws), ["link"])
      } finally {
        f.cleanup()
      }
    }).pipe(Effect.provide(NodeServices.layer)))
})
