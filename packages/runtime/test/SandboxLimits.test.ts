/**
 * The pure parts of the sandbox's limits and masks: where a pids cgroup can go, which secret paths
 * exist, which are masked for a call; and the probe's fallback when bwrap cannot forbid nested
 * user namespaces (a stand-in bwrap that refuses `--disable-userns`).
 */
import { spawn } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Sandbox } from "@agent-tools/core"
import { AgentConfig, ConfigNarrowing } from "@agent-tools/runtime"
import { Bubblewrap, SandboxHardening, SandboxLimits } from "@agent-tools/node"
import { Processes, Programs } from "@agent-tools/testing"

const hasBwrap = Programs.hasProgram("bwrap")

describe("SandboxLimits.candidates", () => {
  it("cgroup v1: under this process's pids cgroup; v2: beside its own cgroup, or under the root", () => {
    assert.deepStrictEqual(SandboxLimits.candidates("9:name=systemd:/\n8:pids:/\n0::/\n"), ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"])
    assert.deepStrictEqual(SandboxLimits.candidates("5:pids:/docker/abc\n"), ["/sys/fs/cgroup/pids/docker/abc"])
    assert.deepStrictEqual(
      SandboxLimits.candidates("0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope\n"),
      ["/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice"]
    )
    assert.deepStrictEqual(SandboxLimits.candidates(""), [])
  })
})

describe("SandboxLimits.pidsCgroup", () => {
  it.live("a process still in the call's cgroup when the call ends is killed, even one in a session of its own", () =>
    Effect.gen(function*() {
      const pids = yield* SandboxLimits.detectPids()
      if (pids._tag === "none") return // no cgroup to make here: nothing this guarantee covers
      const marker = Processes.marker()
      yield* Effect.scoped(Effect.gen(function*() {
        const procs = yield* SandboxLimits.pidsCgroup(pids.parent, `agent-tools-test-${process.pid}-${Date.now()}`, 64)
        // Joins the cgroup, then leaves its session and process group, as a command might.
        const child = spawn("setsid", ["sh", "-c", `echo $$ > "$0"; exec sleep ${marker}`, procs], { detached: true, stdio: "ignore" })
        child.unref()
        // The shell's own command line names the marker too: wait until it has joined the cgroup.
        yield* Processes.waitUntil(() => Processes.withMarker(marker).length > 0 && readFileSync(procs, "utf8").trim() !== "")
      }))
      yield* Processes.waitUntil(() => Processes.withMarker(marker).length === 0)
      assert.deepStrictEqual(Processes.withMarker(marker), [])
    }).pipe(Effect.provide(NodeServices.layer)), 20_000)
})

describe("SandboxHardening", () => {
  it.effect("existing secrets: files, directories, a `*` in the last segment; links and missing paths skipped", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "secrets-test-"))
      try {
        mkdirSync(join(dir, "private"))
        writeFileSync(join(dir, "shadow"), "x")
        writeFileSync(join(dir, "host_rsa_key"), "k")
        writeFileSync(join(dir, "host_rsa_key.pub"), "p")
        symlinkSync(join(dir, "shadow"), join(dir, "link"))
        const found = yield* SandboxHardening.existingSecrets(
          ["shadow", "private", "host_*_key", "link", "missing"].map((n) => join(dir, n))
        ).pipe(Effect.provide(NodeServices.layer))
        assert.deepStrictEqual(found, { files: [join(dir, "shadow"), join(dir, "host_rsa_key")], directories: [join(dir, "private")] })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it("masks files with the empty file and directories with an empty read-only tmpfs, except what the call was shown", () => {
    const secrets = { files: ["/etc/shadow", "/srv/ws/key"], directories: ["/etc/ssl/private"] }
    assert.deepStrictEqual(SandboxHardening.maskArguments(secrets, "/e", ["/srv/ws"]), [
      "--ro-bind",
      "/e",
      "/etc/shadow",
      "--perms",
      "0000",
      "--tmpfs",
      "/etc/ssl/private",
      "--remount-ro",
      "/etc/ssl/private"
    ])
    assert.deepStrictEqual(SandboxHardening.maskArguments(secrets, "/e", ["/etc"]), ["--ro-bind", "/e", "/srv/ws/key"])
  })
})

describe("Bubblewrap.bwrapArguments hardening", () => {
  const base = {
    policy: { root: "/w", cwd: "/w", writable: [], readable: [], outside: "hidden" as const },
    network: "allow" as const,
    system: [{ _tag: "bind" as const, path: "/etc" }],
    extraWritable: [],
    extraReadable: [],
    tmp: { target: "/tmp", size: 4096 }
  }

  it("secrets are masked after the binds that show them, /proc's after --proc; the filter on its descriptor", () => {
    const text = Bubblewrap.bwrapArguments({
      ...base,
      seccompFd: 9,
      masks: { secrets: { files: ["/etc/shadow"], directories: [] }, empty: "/x/empty" }
    }).join(" ")
    assert.match(text, /^--die-with-parent --new-session --cap-drop ALL --unshare-user --disable-userns --unshare-pid --unshare-ipc --unshare-uts --seccomp 9 /)
    assert.include(
      text,
      "--ro-bind-try /etc /etc --bind-try /w /w --size 4096 --tmpfs /tmp --ro-bind /x/empty /etc/shadow " +
        "--dev /dev --proc /proc --ro-bind-try /x/empty /proc/keys --ro-bind-try /x/empty /proc/key-users --remount-ro /"
    )
  })

  it("where nested user namespaces cannot be disabled: --unshare-user-try, capabilities still dropped", () => {
    const text = Bubblewrap.bwrapArguments({ ...base, nestedUserNamespaces: true }).join(" ")
    assert.match(text, /^--die-with-parent --new-session --cap-drop ALL --unshare-user-try --unshare-pid /)
    assert.notInclude(text, "--disable-userns")
  })
})

describe.skipIf(!hasBwrap)("Bubblewrap.probe (needs bwrap)", () => {
  it.live("where bwrap refuses --disable-userns: sandboxed without it, and the status says so", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "probe-test-"))
      try {
        // A stand-in bwrap that fails like an old or restricted one on --disable-userns.
        const fake = join(dir, "bwrap")
        writeFileSync(
          fake,
          `#!/bin/sh\nfor a in "$@"; do [ "$a" = --disable-userns ] && { echo "bwrap: --disable-userns not supported" >&2; exit 1; }; done\nexec bwrap "$@"\n`
        )
        chmodSync(fake, 0o755)
        // The workspace apart from the stand-in: a bwrap inside the workspace is never run.
        const ws = join(dir, "ws")
        mkdirSync(ws)
        const result = yield* Effect.gen(function*() {
          const service = yield* Sandbox.Sandbox
          const status = yield* service.status
          const wrapped = yield* Effect.scoped(service.wrap({ command: "/bin/true", args: [] }, {
            root: ws,
            cwd: ws,
            writable: [],
            readable: [],
            outside: "hidden"
          }))
          return { status, args: wrapped.args }
        }).pipe(Effect.provide(Bubblewrap.layer({ bwrap: fake })), Effect.provide(NodeServices.layer))
        assert.isTrue(result.status.sandboxed)
        if (!result.status.sandboxed) return
        assert.deepStrictEqual(
          result.status.unenforced?.filter((s) => s.startsWith("nested")),
          ["nested user namespaces stay possible (bwrap --disable-userns: bwrap: --disable-userns not supported)"]
        )
        assert.include(result.args, "--unshare-user-try")
        assert.notInclude(result.args, "--disable-userns")
        assert.include(result.args, "--cap-drop")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})

describe("an untrusted workspace config and the sandbox's new keys", () => {
  const narrow = (workspace: AgentConfig.Input, user: AgentConfig.Input = {}) =>
    ConfigNarrowing.narrow(workspace as AgentConfig.AgentConfig, { user: user as AgentConfig.AgentConfig, inside: () => true })

  it("lower limits apply, higher ones and sandbox.env (which would let tokens in) are dropped", () => {
    assert.deepStrictEqual(narrow({ sandbox: { maxProcesses: 100, tmpMaxBytes: 1024, env: ["GITHUB_TOKEN"] } }), {
      config: { sandbox: { maxProcesses: 100, tmpMaxBytes: 1024 } },
      ignored: ["sandbox.env"]
    })
    assert.deepStrictEqual(narrow({ sandbox: { maxProcesses: 200 } }, { sandbox: { maxProcesses: 100 } }), {
      config: {},
      ignored: ["sandbox.maxProcesses=200"]
    })
    assert.deepStrictEqual(narrow({ sandbox: { tmpMaxBytes: SandboxLimits.DEFAULT_TMP_MAX_BYTES * 2 } }).ignored, [
      `sandbox.tmpMaxBytes=${SandboxLimits.DEFAULT_TMP_MAX_BYTES * 2}`
    ])
  })
})
