/** Programs the agent runs: never from the workspace or a relative PATH entry, checked before each run. */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as TrustedProgram from "../src/TrustedProgram.ts"

const scratch = () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "trusted-")))
  const ws = join(base, "ws")
  const sys = join(base, "sys")
  mkdirSync(join(ws, "bin"), { recursive: true })
  mkdirSync(sys)
  const program = (file: string, mode = 0o755) => {
    writeFileSync(file, "#!/bin/sh\n")
    chmodSync(file, mode)
    return file
  }
  return { base, ws, sys, program, cleanup: () => rmSync(base, { recursive: true, force: true }) }
}

describe("TrustedProgram", () => {
  it.effect("find skips relative entries and the workspace; check refuses what could have been swapped", () =>
    Effect.gen(function*() {
      const s = scratch()
      try {
        s.program(join(s.ws, "bin", "tool"))
        const good = s.program(join(s.sys, "tool"))
        const found = yield* TrustedProgram.find(["tool"], { path: ["bin", join(s.ws, "bin"), s.sys], untrusted: [s.ws] })
        assert.strictEqual(found, good)

        const inside = yield* Effect.flip(TrustedProgram.check(join(s.ws, "bin", "tool"), [s.ws]))
        assert.include(inside.message, "which sandboxed commands can write")
        // A link outside that points into the workspace is the workspace's program.
        symlinkSync(join(s.ws, "bin", "tool"), join(s.sys, "link"))
        assert.include((yield* Effect.flip(TrustedProgram.check(join(s.sys, "link"), [s.ws]))).message, "which sandboxed commands can write")
        const writable = s.program(join(s.sys, "gw"), 0o775)
        assert.include((yield* Effect.flip(TrustedProgram.check(writable, [s.ws]))).message, "writable by its group or by others")
        const plain = s.program(join(s.sys, "plain"), 0o644)
        assert.include((yield* Effect.flip(TrustedProgram.check(plain, [s.ws]))).message, "is not executable")
        const missing = yield* Effect.flip(TrustedProgram.check(join(s.sys, "nope"), [s.ws]))
        assert.strictEqual(missing.reason, "not-found")
        assert.include((yield* Effect.flip(TrustedProgram.check("tool", []))).message, "not an absolute path")
        const none = yield* Effect.flip(TrustedProgram.find(["tool"], { path: [join(s.ws, "bin"), "."], untrusted: [s.ws] }))
        assert.strictEqual(none.reason, "not-found")
      } finally {
        s.cleanup()
      }
    }).pipe(Effect.provide(NodeServices.layer)))
})
