/**
 * The keyring filter, compiled and loaded by real bwrap: the keyring calls fail with EPERM under
 * it, other calls work. Needs bwrap and python3 (for a raw `syscall`).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { SandboxSeccomp } from "@agent-tools/node"
import { Programs } from "@agent-tools/testing"

const hasBwrap = Programs.hasProgram("bwrap")
const hasPython = Programs.hasProgram("python3")
const native = process.arch === "x64" ? 250 : process.arch === "arm64" ? 219 : undefined

/** Calls keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING) and getpid; prints the results. */
const probe = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(${native}, 0, -3, 0)
print("keyctl", r, os.strerror(ctypes.get_errno()) if r < 0 else "ok")
print("getpid", os.getpid() > 0)
`

describe("SandboxSeccomp", () => {
  it("jumps stay inside the program and end on a return", () => {
    const program = SandboxSeccomp.program()
    program.forEach((ins, i) => {
      if (ins.code !== 0x15) return
      assert.isAtMost(i + 1 + ins.jt, program.length - 1)
      assert.isAtMost(i + 1 + ins.jf, program.length - 1)
    })
    assert.strictEqual(program.at(-1)!.code, 0x06)
    assert.strictEqual(SandboxSeccomp.bytes().length, program.length * 8)
  })

  it.skipIf(!hasBwrap || !hasPython || native === undefined)("under bwrap --seccomp, keyctl fails with EPERM and getpid works (needs bwrap, python3)", () => {
    const dir = mkdtempSync(join(tmpdir(), "seccomp-test-"))
    try {
      const file = join(dir, "filter")
      writeFileSync(file, SandboxSeccomp.bytes())
      const bwrap = ["--seccomp", "9", "--unshare-user-try", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
      const output = execFileSync("/bin/sh", ["-c", 'exec "$@" 9<"$0"', file, "bwrap", ...bwrap, "python3", "-c", probe], {
        encoding: "utf8"
      })
      assert.strictEqual(output, "keyctl -1 Operation not permitted\ngetpid True\n")
      // The same probe without the filter reaches the keyring: the test sees the difference.
      const open = execFileSync("python3", ["-c", probe], { encoding: "utf8" })
      assert.match(open, /^keyctl \d+ ok\n/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
