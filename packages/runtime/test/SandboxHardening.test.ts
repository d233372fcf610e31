/**
 * The sandbox holds when the agent runs as root (as CI and many containers do): no capabilities,
 * no host secrets, no keyring, no inherited tokens, a process cap and a size-capped temp dir.
 * Real bwrap, real processes, real temp dirs; the core probes run again as an unprivileged user
 * (through `setpriv`) where that works here.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Scope } from "effect"
import { Events, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate } from "@agent-tools/core"
import { AgentConfig, NodeAgentTools } from "@agent-tools/runtime"
import { Bubblewrap, SandboxHardening, SandboxSeccomp } from "@agent-tools/node"
import { Bash } from "@agent-tools/tools"

const has = (program: string, args: ReadonlyArray<string> = ["--version"]) =>
  spawnSync(program, args, { stdio: "ignore" }).status === 0
const hasBwrap = has("bwrap")
/** A real python3 (not a version manager's shim, which needs the real home). */
const python = ["/usr/bin/python3", "/usr/local/bin/python3"].find(existsSync)
const hasPython = python !== undefined
const isRoot = process.getuid?.() === 0
const keyctlNumber = process.arch === "x64" ? 250 : process.arch === "arm64" ? 219 : undefined

const platform = Layer.mergeAll(
  NodeServices.layer,
  Truncate.layer().pipe(Layer.provide(SpillStorage.layerMemory()), Layer.provide(Events.layerNoop))
)

/** A workspace beside a directory shared read-only (`extraReadable`) holding `file` = `orig`. */
const scopedFixture = Effect.acquireRelease(
  Effect.sync(() => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-root-test-")))
    const ws = join(base, "ws")
    const shared = join(base, "shared")
    mkdirSync(ws)
    mkdirSync(shared)
    writeFileSync(join(shared, "file"), "orig\n")
    return { base, ws, shared }
  }),
  (f) => Effect.sync(() => rmSync(f.base, { recursive: true, force: true }))
)

/** Runs `command` with bash in a fresh Bubblewrap layer, the process environment plus `env`. */
const sandboxed = (command: string, options: { readonly ws: string; readonly layer?: Bubblewrap.Options; readonly env?: Record<string, string> }) =>
  Effect.gen(function*() {
    const service = yield* Sandbox.Sandbox
    const status = yield* service.status
    assert.isTrue(status.sandboxed, JSON.stringify(status))
    return yield* Bash.run({
      command,
      cwd: options.ws,
      shell: { path: "/bin/bash", name: "bash", kind: "posix" },
      platform: "linux",
      env: Bash.NON_INTERACTIVE_ENV,
      timeout: 20_000,
      grace: 500,
      drain: 250,
      truncation: { tool: "bash", direction: "head+tail" },
      sandbox: { service, policy: { root: options.ws, cwd: options.ws, writable: [], readable: [], outside: "hidden" } }
    })
  }).pipe(
    Effect.provide(Bubblewrap.layer(options.layer)),
    Effect.provide(platform),
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...process.env, ...options.env } as Record<string, string> })))
  )

const live = (name: string, body: () => Effect.Effect<void, unknown, Scope.Scope>) => it.live(name, body, 30_000)
/** `live` where `condition` holds, else skipped with a name that says what it needs. */
const liveIf = (condition: boolean, needs: string) => (name: string, body: () => Effect.Effect<void, unknown, Scope.Scope>) =>
  it.live.skipIf(!condition)(condition ? name : `${name} (skipped: needs ${needs})`, body, 30_000)

/** Prints `keyctl <result> <errno text>` for KEYCTL_GET_KEYRING_ID of the session keyring. */
const keyctlProbe = `${python} -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(${keyctlNumber}, 0, -3, 0)
print("keyctl", r, os.strerror(ctypes.get_errno()) if r < 0 else "ok")'`

describe.skipIf(!hasBwrap)("as the user the agent runs as (root in CI; needs bwrap)", () => {
  live("no capabilities: CapEff is 0, and a read-only bind cannot be remounted writable", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const result = yield* sandboxed(
        `grep CapEff /proc/self/status; mount -o remount,bind,rw ${f.shared} 2>/dev/null && echo remounted; echo pwned > ${f.shared}/file; cat ${f.shared}/file`,
        { ws: f.ws, layer: { extraReadable: [f.shared] } }
      )
      assert.match(result.output.content, /^CapEff:\t0000000000000000\n/)
      assert.notInclude(result.output.content, "remounted")
      assert.include(result.output.content, "Read-only file system")
      assert.strictEqual(readFileSync(join(f.shared, "file"), "utf8"), "orig\n")
    }))

  live("no nested user namespace, no new session's terminal", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const result = yield* sandboxed("unshare -U true 2>/dev/null && echo nested; cut -d ' ' -f 6 /proc/$$/stat", { ws: f.ws })
      assert.notInclude(result.output.content, "nested")
      // The shell is in the session bwrap made for it (`--new-session`), not the caller's.
      // Its leader is inside the PID namespace (bwrap's init); without it the leader is outside, and
      // the session id reads as 0.
      const [sid] = result.output.content.trim().split("\n")
      assert.strictEqual(sid, "1", result.output.content)
    }))

  live("the host's secrets in /etc are empty or unreadable; the rest of /etc is there", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const secrets = SandboxHardening.SECRETS.filter((p) => !p.includes("*") && existsSync(p))
      const keys = existsSync("/etc/ssh") ? readdirSync("/etc/ssh").filter((n) => /^ssh_host_.*_key$/.test(n)).map((n) => `/etc/ssh/${n}`) : []
      const probe = [...secrets, ...keys]
        .map((p) => statSync(p).isDirectory() ? `ls -A ${p} 2>/dev/null | wc -l` : `cat ${p} 2>/dev/null | wc -c`)
        .join("; ")
      const result = yield* sandboxed(`${probe}; test -s /etc/passwd && echo passwd`, { ws: f.ws })
      assert.strictEqual(result.output.content, `${"0\n".repeat(secrets.length + keys.length)}passwd\n`)
      if (isRoot && existsSync("/etc/shadow")) assert.isAbove(readFileSync("/etc/shadow").length, 0)
    }))

  liveIf(hasPython && keyctlNumber !== undefined, "python3 and a known keyctl syscall number")("the keyring is refused and /proc/keys shows nothing", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const result = yield* sandboxed(`${keyctlProbe}; cat /proc/keys | wc -l`, { ws: f.ws })
      assert.strictEqual(result.output.content, "keyctl -1 Operation not permitted\n0\n")
    }))

  live("only allow-listed variables enter: tokens stay out, a name in `env` comes in", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const secrets = { GITHUB_TOKEN: "ghp_secret", AWS_SECRET_ACCESS_KEY: "aws-secret", OPENAI_API_KEY: "sk-secret" }
      const saved = { ...process.env }
      // In the real process environment too: nothing may inherit it behind the config's back.
      Object.assign(process.env, secrets, { PASSED_ON: "yes" })
      try {
        const result = yield* sandboxed("env", { ws: f.ws, env: { ...secrets, PASSED_ON: "yes" }, layer: { env: ["PASSED_ON"] } })
        const names = result.output.content.split("\n").map((line) => line.split("=")[0])
        for (const name of Object.keys(secrets)) assert.notInclude(names, name)
        assert.include(result.output.content, "PASSED_ON=yes\n")
        assert.include(result.output.content, `PATH=${process.env.PATH}\n`)
        assert.include(result.output.content, "GIT_TERMINAL_PROMPT=0\n")
      } finally {
        for (const name of [...Object.keys(secrets), "PASSED_ON"]) if (!(name in saved)) delete process.env[name]
      }
    }))

  liveIf(isRoot, "root, to make a pids cgroup")("at most `maxProcesses` processes run at once; all are gone after the call (as root)", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const marker = "31.4159"
      // A bounded loop, not a fork bomb: 60 sleeps against a cap of 20.
      const result = yield* sandboxed(
        `sh -c 'i=0; while [ $i -lt 60 ]; do sleep ${marker} & i=$((i+1)); done; echo started $i'; echo exit $?`,
        { ws: f.ws, layer: { maxProcesses: 20 } }
      )
      // dash says "Cannot fork"; a bash as /bin/sh says "Resource temporarily unavailable".
      assert.match(result.output.content, /Cannot fork|Resource temporarily unavailable/)
      assert.notInclude(result.output.content, "started 60")
      for (let i = 0; i < 50 && running(marker) > 0; i++) yield* Effect.sleep("20 millis")
      assert.strictEqual(running(marker), 0)
    }))

  live("the temp dir is capped (ENOSPC past it) and a mode-000 directory leaves nothing behind", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      // The OS temp dir of this test alone (other test files make their calls' directories in the
      // shared one meanwhile): whatever a call leaves behind would be here.
      const temp = join(f.base, "tmp")
      mkdirSync(temp)
      const saved = process.env.TMPDIR
      process.env.TMPDIR = temp
      try {
        const result = yield* sandboxed(
          `head -c 2000000 /dev/zero > ${temp}/big; echo $?; mkdir -p ${temp}/locked/in ~/locked/in; chmod 000 ${temp}/locked ~/locked; echo done`,
          { ws: f.ws, layer: { tmpMaxBytes: 1024 * 1024 } }
        )
        assert.include(result.output.content, "No space left on device")
        assert.match(result.output.content, /\n1\ndone\n$/)
        assert.deepStrictEqual(readdirSync(temp), [])
      } finally {
        if (saved === undefined) delete process.env.TMPDIR
        else process.env.TMPDIR = saved
      }
    }))
})

/** Host processes whose command line contains `marker` (alive, not zombies). */
const running = (marker: string): number =>
  readdirSync("/proc").filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
    } catch {
      return false
    }
  }).length

/** How to run a program as `nobody` here, or why not. */
const unprivileged = (() => {
  if (!isRoot) return { ok: false as const, reason: "the tests do not run as root, so they already are unprivileged" }
  if (!hasBwrap) return { ok: false as const, reason: "bwrap is missing" }
  const setpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
  const check = spawnSync(setpriv[0]!, [...setpriv.slice(1), "bwrap", "--unshare-user", "--disable-userns", "--ro-bind", "/", "/", "true"], {
    stdio: "ignore"
  })
  if (check.error !== undefined) return { ok: false as const, reason: "setpriv is missing" }
  if (check.status !== 0) return { ok: false as const, reason: "bwrap cannot create a user namespace as nobody on this host" }
  return { ok: true as const, setpriv }
})()

describe("as an unprivileged user", () => {
  it.skipIf(!unprivileged.ok)(
    `the same arguments hold: no capabilities, no remount, no nested namespace, no keyring${unprivileged.ok ? "" : ` (skipped: ${unprivileged.reason})`}`,
    () => {
      if (!unprivileged.ok) return
      const base = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-nobody-test-")))
      try {
        const ws = join(base, "ws")
        const shared = join(base, "shared")
        mkdirSync(ws)
        mkdirSync(shared)
        writeFileSync(join(shared, "file"), "orig\n")
        writeFileSync(join(base, "filter"), SandboxSeccomp.bytes())
        writeFileSync(join(base, "empty"), "")
        for (const p of [base, ws]) chmodSync(p, 0o777)
        const args = Bubblewrap.bwrapArguments({
          policy: { root: ws, cwd: ws, writable: [], readable: [], outside: "hidden" },
          network: "allow",
          system: ["/usr", "/bin", "/lib", "/lib64", "/etc"].filter(existsSync).map((path) => ({ _tag: "bind" as const, path })),
          extraWritable: [],
          extraReadable: [shared],
          tmp: { target: "/tmp", size: 1024 * 1024 },
          seccompFd: SandboxSeccomp.FD,
          masks: { secrets: { files: [], directories: [] }, empty: join(base, "empty") }
        })
        const script = [
          "grep CapEff /proc/self/status",
          `mount -o remount,bind,rw ${shared} 2>/dev/null && echo remounted`,
          `echo pwned > ${shared}/file 2>/dev/null || echo read-only`,
          "unshare -U true 2>/dev/null && echo nested",
          ...(hasPython && keyctlNumber !== undefined ? [keyctlProbe] : [])
        ].join("; ")
        const output = execFileSync(
          unprivileged.setpriv[0]!,
          [...unprivileged.setpriv.slice(1), "/bin/sh", "-c", `exec "$@" ${SandboxSeccomp.FD}<"$0"`, join(base, "filter"), "bwrap", ...args, "--", "/bin/sh", "-c", script],
          { encoding: "utf8" }
        )
        assert.strictEqual(
          output,
          `CapEff:\t0000000000000000\nread-only\n${hasPython && keyctlNumber !== undefined ? "keyctl -1 Operation not permitted\n" : ""}`
        )
        assert.strictEqual(readFileSync(join(shared, "file"), "utf8"), "orig\n")
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    }
  )
})

describe("the config's sandbox keys, through the node layer", () => {
  const problemsOf = (input: unknown) =>
    Effect.flip(AgentConfig.decode(input)).pipe(Effect.map((e) => e.problems.map((p) => `${p.path}: ${p.reason}`)))

  it.effect("sandbox.env takes variable names; maxProcesses and tmpMaxBytes positive integers", () =>
    Effect.gen(function*() {
      const [env] = yield* problemsOf({ sandbox: { env: ["OK_NAME", "BAD-NAME"] } })
      assert.strictEqual(env, `sandbox.env[1]: expected an environment variable name (letters, digits, _), got "BAD-NAME"`)
      const [max] = yield* problemsOf({ sandbox: { maxProcesses: 0 } })
      assert.match(max!, /^sandbox\.maxProcesses: /)
      const [size] = yield* problemsOf({ sandbox: { tmpMaxBytes: 1.5 } })
      assert.match(size!, /^sandbox\.tmpMaxBytes: /)
    }))

  /** `env` in a bash call of an agent built from `config`, with tokens in the process environment. */
  const envOfCall = (sandbox: AgentConfig.Input["sandbox"]) =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const secrets = { GITHUB_TOKEN: "ghp_secret", AWS_SECRET_ACCESS_KEY: "aws-secret", OPENAI_API_KEY: "sk-secret", PASSED_ON: "yes" }
      const added = Object.keys(secrets).filter((name) => !(name in process.env))
      Object.assign(process.env, secrets)
      try {
        return yield* Effect.gen(function*() {
          const registry = yield* ToolRegistry.ToolRegistry
          const ctx = yield* Tool.makeContext({ sessionID: "s", tool: "bash" })
          return yield* registry.execute("bash", { command: "env", description: "test" }, ctx)
        }).pipe(
          Effect.provide(NodeAgentTools.layerWithoutPlatform({
            cwd: f.ws,
            config: { permission: { bash: { "*": "allow" } }, sandbox },
            unattended: "reject",
            platform: "linux"
          })),
          Effect.provide(NodeServices.layer)
        )
      } finally {
        for (const name of added) delete process.env[name]
      }
    })

  for (const mode of ["auto", "off"] as const) {
    liveIf(mode === "off" || hasBwrap, "bwrap")(`mode ${mode}: tokens stay out of a call's environment, names in sandbox.env come in`, () =>
      Effect.gen(function*() {
        const result = yield* envOfCall({ mode, env: ["PASSED_ON"] })
        assert.strictEqual(result.metadata.sandboxed, mode === "auto")
        const names = result.output.split("\n").map((line) => line.split("=")[0])
        for (const name of ["GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY"]) assert.notInclude(names, name)
        assert.include(result.output, "PASSED_ON=yes\n")
      }))
  }
})
