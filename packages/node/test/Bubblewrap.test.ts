/**
 * The bubblewrap sandbox with real bwrap, real temp directories and real processes: the runner is
 * driven directly with commands the permission analysis may not see through, and the kernel must
 * block them anyway. Needs bwrap (CI installs bubblewrap).
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { execFileSync } from "node:child_process"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Scope } from "effect"
import { ChildProcessSpawner } from "effect/process"
import { Events, Sandbox, SpillStorage, Truncate } from "@agent-tools/core"
import { Bubblewrap } from "@agent-tools/node"
import { Processes, Programs } from "@agent-tools/testing"
import { Bash } from "@agent-tools/tools"

const platform = Layer.mergeAll(
  NodeServices.layer,
  Truncate.layer().pipe(Layer.provide(SpillStorage.layerMemory()), Layer.provide(Events.layerNoop))
)

/** A workspace `ws` beside `outside/secret`, with `ws/link -> ../outside` and `ws/sub/`. */
const fixture = () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-test-")))
  const ws = join(base, "ws")
  const outside = join(base, "outside")
  mkdirSync(join(ws, "sub"), { recursive: true })
  mkdirSync(outside)
  writeFileSync(join(outside, "secret"), "TOP-SECRET\n")
  writeFileSync(join(ws, "a.txt"), "a\n")
  symlinkSync("../outside", join(ws, "link"))
  return { base, ws, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) }
}

/** The fixture, removed when the test's scope closes, whether the test passed or failed. */
const scopedFixture = Effect.acquireRelease(Effect.sync(fixture), (f) => Effect.sync(f.cleanup))

interface RunIn {
  readonly ws: string
  readonly env?: Record<string, string>
  readonly config?: Record<string, string>
  readonly policy?: Partial<Sandbox.Policy>
  readonly layer?: Bubblewrap.Options
  readonly timeout?: number
}

/** Runs `command` in the sandbox of a fresh Bubblewrap layer. */
const sandboxed = (command: string, options: RunIn) =>
  Effect.gen(function*() {
    const service = yield* Sandbox.Sandbox
    const status = yield* service.status
    assert.isTrue(status.sandboxed, JSON.stringify(status))
    return yield* Bash.run({
      command,
      cwd: options.policy?.cwd ?? options.ws,
      shell: { path: "/bin/bash", name: "bash", kind: "posix" },
      platform: "linux",
      env: { ...Bash.NON_INTERACTIVE_ENV, ...options.env },
      timeout: options.timeout ?? 20_000,
      grace: 500,
      drain: 250,
      truncation: { tool: "bash", direction: "head+tail" },
      sandbox: {
        service,
        policy: { root: options.ws, cwd: options.ws, writable: [], readable: [], outside: "hidden", ...options.policy }
      }
    })
  }).pipe(
    Effect.provide(Bubblewrap.layer(options.layer)),
    Effect.provide(platform),
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ...process.env, ...options.config } as Record<string, string> })))
  )

const bwrap = Programs.requires("bwrap")
/** A test that runs real bwrap: skipped, saying so, where bwrap is not installed. */
const live = (name: string, body: () => Effect.Effect<void, unknown, Scope.Scope>) =>
  it.live.skipIf(!bwrap.ok)(`${name}${bwrap.note}`, body, 30_000)
/** A test that needs no bwrap (the unsandboxed paths). */
const liveAnywhere = (name: string, body: () => Effect.Effect<void, unknown, Scope.Scope>) => it.live(name, body, 30_000)

/** Host pids whose command line contains `marker` (alive, not zombies). */
const processesWith = Processes.withMarker

const gone = (marker: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 50 && processesWith(marker).length > 0; i++) yield* Effect.sleep("20 millis")
    return processesWith(marker)
  })

describe("the kernel blocks what the analysis may miss", () => {
  const attacks: ReadonlyArray<readonly [string, string]> = [
    ["a symlink then `..` (read)", "cat link/../outside/secret"],
    ["a symlink then `..` (write)", "echo x > link/../outside/f"],
    ["a symlink then `..` (delete)", "rm -f link/../outside/secret"],
    ["brace expansion (delete)", "rm -f {y,../outside/secret}"],
    ["brace expansion (read)", "cat {a.txt,../outside/secret}"],
    ["a symlink made mid-script", "mkdir -p a/b && cd a/b && ln -s ../../../outside ../../lnk; cd ../..; cat lnk/secret; echo owned > lnk/owned"],
    ["perl -pi through an inner `..`", "/usr/bin/perl -pi -e s/TOP/OWNED/ sub/../../outside/secret"],
    ["python3 -c writing outside", "/usr/bin/python3 -c \"open('../' + 'outside/py', 'w').write('x')\""],
    ["tar writing through an inner `..`", "tar -cf sub/../../outside/x.tar a.txt"],
    ["an absolute path", `cat "$(dirname "$PWD")/outside/secret"; touch "$(dirname "$PWD")/outside/abs"`],
    ["grep -rf with the pattern file outside", "grep -rf ../outside/secret ."]
  ]
  live("with the outside writable, the user's config directory stays read-only: a command cannot trust a folder", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const config = mkdtempSync(join(tmpdir(), "user-config-"))
      try {
        mkdirSync(join(config, "agent-tools"))
        writeFileSync(join(config, "agent-tools", "trusted.json"), "{}\n")
        const file = join(config, "agent-tools", "trusted.json")
        const result = yield* sandboxed(`echo '{"pwned":1}' > ${file}; echo x > ${config}/agent-tools/agent-tools.json; echo done`, {
          ws: f.ws,
          config: { XDG_CONFIG_HOME: config },
          policy: { outside: "writable" }
        })
        assert.include(result.output.content, "done")
        assert.strictEqual(readFileSync(file, "utf8"), "{}\n")
        assert.deepStrictEqual(readdirSync(join(config, "agent-tools")), ["trusted.json"])
      } finally {
        rmSync(config, { recursive: true, force: true })
      }
    }))

  for (const [name, command] of attacks) {
    live(name, () =>
      Effect.gen(function*() {
        const f = yield* scopedFixture
        try {
          const result = yield* sandboxed(command, { ws: f.ws })
          assert.isTrue(result.sandboxed)
          assert.notInclude(result.output.content, "TOP-SECRET")
          assert.deepStrictEqual(readdirSync(f.outside), ["secret"])
          assert.strictEqual(readFileSync(join(f.outside, "secret"), "utf8"), "TOP-SECRET\n")
        } finally {
          f.cleanup()
        }
      }))
  }

  live("an outside read fails as a missing file, an outside write as a read-only file system", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      try {
        const result = yield* sandboxed("cat ../outside/secret; touch /usr/x; echo done", { ws: f.ws })
        assert.strictEqual(
          result.output.content,
          "cat: ../outside/secret: No such file or directory\ntouch: cannot touch '/usr/x': Read-only file system\ndone\n"
        )
      } finally {
        f.cleanup()
      }
    }))

  live("beside the workspace and the system directories, nothing is visible", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      try {
        const result = yield* sandboxed(`ls -A / | tr '\\n' ' '; echo; ls -A "${f.base}"`, { ws: f.ws })
        const [root, beside] = result.output.content.split("\n")
        assert.notMatch(root!, /\b(home|srv|var|mnt|media|boot)\b/)
        assert.strictEqual(beside, "ws")
      } finally {
        f.cleanup()
      }
    }))
})

describe("what stays possible", () => {
  live("the workspace is writable: create, nest, delete", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      try {
        const result = yield* sandboxed("echo hi > new.txt && mkdir -p d/e && echo x > d/e/f && rm a.txt && echo ok", { ws: f.ws })
        assert.strictEqual(result.output.content, "ok\n")
        assert.strictEqual(readFileSync(join(f.ws, "new.txt"), "utf8"), "hi\n")
        assert.strictEqual(readFileSync(join(f.ws, "d/e/f"), "utf8"), "x\n")
        assert.notInclude(readdirSync(f.ws), "a.txt")
      } finally {
        f.cleanup()
      }
    }))

  live("the temp dir is private to the call and removed after it", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const hostMarker = join(tmpdir(), `host-only-${process.pid}`)
      writeFileSync(hostMarker, "x")
      try {
        // The file system type of the temp dir's mount, as the kernel reports it.
        const where = `awk '$5 == "${tmpdir()}" { for (i = 7; $i != "-"; i++); print $(i + 1) }' /proc/self/mountinfo`
        const first = yield* sandboxed(`echo one > ${tmpdir()}/mark && ls -A ${tmpdir()} && ${where}`, { ws: f.ws })
        const lines = first.output.content.trim().split("\n")
        assert.include(lines, "mark")
        assert.notInclude(lines, `host-only-${process.pid}`)
        assert.strictEqual(lines.at(-1), "tmpfs", first.output.content)
        const second = yield* sandboxed(`cat ${tmpdir()}/mark`, { ws: f.ws })
        assert.include(second.output.content, "No such file or directory")
      } finally {
        rmSync(hostMarker, { force: true })
        f.cleanup()
      }
    }))

  live("HOME is private, empty and writable, with the user's git config read-only", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const home = join(f.base, "home")
      mkdirSync(home)
      writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Sandbox Test\n")
      writeFileSync(join(home, ".netrc"), "machine example.com password hunter2\n")
      try {
        const result = yield* sandboxed(
          "ls -A ~ | tr '\\n' ' '; echo; git config --global user.name; mkdir -p ~/.cache/tool && echo cached > ~/.cache/tool/x && cat ~/.cache/tool/x; echo y >> ~/.gitconfig",
          { ws: f.ws, env: { HOME: home }, config: { HOME: home } }
        )
        assert.strictEqual(
          result.output.content,
          `.gitconfig \nSandbox Test\ncached\n/bin/bash: line 1: ${home}/.gitconfig: Read-only file system\n`
        )
        assert.deepStrictEqual(readdirSync(home).toSorted(), [".gitconfig", ".netrc"])
      } finally {
        f.cleanup()
      }
    }))

  live("extraWritable is writable, extraReadable readable but not writable", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const w = join(f.base, "cache")
      const r = join(f.base, "shared")
      mkdirSync(w)
      mkdirSync(r)
      writeFileSync(join(r, "lib.txt"), "shared lib\n")
      try {
        const result = yield* sandboxed(
          `echo c > ${w}/c.txt && cat ${r}/lib.txt; echo nope > ${r}/x; cat ../outside/secret`,
          { ws: f.ws, layer: { extraWritable: [w], extraReadable: [r] } }
        )
        assert.strictEqual(readFileSync(join(w, "c.txt"), "utf8"), "c\n")
        assert.deepStrictEqual(readdirSync(r), ["lib.txt"])
        assert.strictEqual(
          result.output.content,
          `shared lib\n/bin/bash: line 1: ${r}/x: Read-only file system\ncat: ../outside/secret: No such file or directory\n`
        )
      } finally {
        f.cleanup()
      }
    }))

  live("an approved path is mounted for that call only, with the access approved", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      try {
        const read = yield* sandboxed("cat ../outside/secret; echo x > ../outside/f", { ws: f.ws, policy: { readable: [f.outside] } })
        assert.strictEqual(read.output.content, `TOP-SECRET\n/bin/bash: line 1: ../outside/f: Read-only file system\n`)
        const write = yield* sandboxed("echo x > ../outside/f", { ws: f.ws, policy: { writable: [f.outside] } })
        assert.strictEqual(write.exitCode, 0)
        assert.strictEqual(readFileSync(join(f.outside, "f"), "utf8"), "x\n")
        const next = yield* sandboxed("cat ../outside/secret", { ws: f.ws })
        assert.strictEqual(next.output.content, "cat: ../outside/secret: No such file or directory\n")
      } finally {
        f.cleanup()
      }
    }))

  live("outside: writable (external_directory allows everything) hides nothing", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      try {
        const result = yield* sandboxed("cat link/../outside/secret && echo y > ../outside/y", { ws: f.ws, policy: { outside: "writable" } })
        assert.strictEqual(result.output.content, "TOP-SECRET\n")
        assert.strictEqual(readFileSync(join(f.outside, "y"), "utf8"), "y\n")
      } finally {
        f.cleanup()
      }
    }))
})

describe("network", () => {
  const withServer = <A, E, R>(f: (port: number) => Effect.Effect<A, E, R>) =>
    Effect.acquireUseRelease(
      Effect.callback<ReturnType<typeof createServer>>((resume) => {
        const server = createServer((socket) => socket.end("hello from the host\n"))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) => f((server.address() as { port: number }).port),
      (server) => Effect.sync(() => server.close())
    )
  const connect = (port: number) => `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3 || echo no-connection`

  live("allow: the host's loopback is reachable", () =>
    withServer((port) =>
      Effect.gen(function*() {
        const f = yield* scopedFixture
        try {
          const result = yield* sandboxed(connect(port), { ws: f.ws, layer: { network: "allow" } })
          assert.strictEqual(result.output.content, "hello from the host\n")
        } finally {
          f.cleanup()
        }
      })
    ))

  live("deny: the call has its own empty network", () =>
    withServer((port) =>
      Effect.gen(function*() {
        const f = yield* scopedFixture
        try {
          const result = yield* sandboxed(connect(port), { ws: f.ws, layer: { network: "deny" } })
          assert.match(result.output.content, /no-connection\n$/)
          assert.notInclude(result.output.content, "hello")
        } finally {
          f.cleanup()
        }
      })
    ))
})

describe("every process ends with the call", () => {
  live("`setsid`, `nohup` and double-forked daemons are gone after the shell exits", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const marker = `987.${process.pid}1`
      try {
        const result = yield* sandboxed(
          `setsid sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & ( (setsid sleep ${marker} >/dev/null 2>&1 &) & ); sleep 0.2; echo started`,
          { ws: f.ws }
        )
        assert.strictEqual(result.reason, "exit")
        assert.isFalse(result.escaped)
        assert.deepStrictEqual(yield* gone(marker), [])
      } finally {
        f.cleanup()
      }
    }))

  live("after a timeout, a `setsid` process holding the output is gone too", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const marker = `988.${process.pid}2`
      try {
        const result = yield* sandboxed(`setsid sh -c 'while :; do echo x; sleep 0.1; done; sleep ${marker}' & sleep ${marker}`, {
          ws: f.ws,
          timeout: 1_000
        })
        assert.strictEqual(result.reason, "timeout")
        assert.isFalse(result.escaped)
        assert.deepStrictEqual(yield* gone(marker), [])
      } finally {
        f.cleanup()
      }
    }))

  liveAnywhere("control: without the sandbox a `setsid` process survives, and the result says it may", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const marker = `989.${process.pid}3`
      try {
        const result = yield* Bash.run({
          command: `setsid sleep ${marker} & echo started`,
          cwd: f.ws,
          shell: { path: "/bin/bash", name: "bash", kind: "posix" },
          platform: "linux",
          env: Bash.NON_INTERACTIVE_ENV,
          timeout: 20_000,
          grace: 500,
          drain: 250
        }).pipe(Effect.provide(platform))
        assert.isFalse(result.sandboxed)
        assert.isTrue(result.background)
        assert.isTrue(result.escaped)
        const survivors = processesWith(marker)
        assert.strictEqual(survivors.length, 1)
        for (const pid of survivors) process.kill(pid, "SIGKILL")
      } finally {
        f.cleanup()
      }
    }))
})

describe("Bubblewrap.layer", () => {
  const status = (options: Bubblewrap.Options) =>
    Effect.gen(function*() {
      return yield* (yield* Sandbox.Sandbox).status
    }).pipe(Effect.provide(Bubblewrap.layer(options)), Effect.provide(platform))

  live("sandboxes by default on Linux with bwrap", () =>
    Effect.gen(function*() {
      const s = yield* status({})
      assert.isTrue(s.sandboxed)
      if (s.sandboxed) {
        assert.match(s.backend, /^bubblewrap \d/)
        assert.strictEqual(s.network, "proxy")
      }
    }))

  live("probes bwrap on first use, once, not when the layer is built", () =>
    Effect.gen(function*() {
      // A link of its own: probe results are kept per process by program, and no other test uses this one.
      const dir = mkdtempSync(join(tmpdir(), "bwrap-probe-"))
      const bwrap = `${dir}/bwrap`
      symlinkSync(execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim(), bwrap)
      const real = yield* ChildProcessSpawner.ChildProcessSpawner
      const spawned: Array<string> = []
      const counting = ChildProcessSpawner.make((command) => {
        if (command._tag === "StandardCommand") spawned.push(`${command.command} ${command.args[0]}`)
        return real.spawn(command)
      })
      yield* Effect.gen(function*() {
        const service = yield* Sandbox.Sandbox
        assert.deepStrictEqual(spawned, [])
        const first = yield* service.status
        const second = yield* service.status
        // The version and the namespaces; then whether a session's calls can share one network
        // (a holder bwrap, then bwrap through nsenter).
        assert.deepStrictEqual(spawned.slice(0, 3), [`${bwrap} --version`, `${bwrap} --die-with-parent`, `${bwrap} --die-with-parent`])
        assert.match(spawned[3]!, /\/nsenter --(net|user)=\/proc\/\d+\/fd\/\d+$/)
        assert.strictEqual(spawned.length, 4, spawned.join("\n"))
        assert.strictEqual(first, second)
      }).pipe(
        Effect.provide(Bubblewrap.layer({ network: "deny", bwrap })),
        Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, counting),
        Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      )
    }).pipe(Effect.provide(platform)))

  live("bwrap is checked again before each call: one that became writable by others is not run", () =>
    Effect.gen(function*() {
      const f = yield* scopedFixture
      const dir = mkdtempSync(join(tmpdir(), "bwrap-copy-"))
      const bwrap = join(dir, "bwrap")
      copyFileSync(execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim(), bwrap)
      chmodSync(bwrap, 0o755)
      const policy: Sandbox.Policy = { root: f.ws, cwd: f.ws, writable: [], readable: [], outside: "hidden" }
      yield* Effect.gen(function*() {
        const service = yield* Sandbox.Sandbox
        const first = yield* Effect.scoped(service.wrap({ command: "/bin/true", args: [] }, policy))
        // bwrap itself, or the launcher shell that execs it.
        assert.deepStrictEqual([first.command === bwrap || first.args.includes(bwrap), first.sandboxed], [true, true])
        chmodSync(bwrap, 0o777)
        const refused = yield* Effect.flip(Effect.scoped(service.wrap({ command: "/bin/true", args: [] }, policy)))
        assert.include(refused.message, `${bwrap} is not run: ${bwrap} is writable by its group or by others (mode 777)`)
      }).pipe(
        Effect.provide(Bubblewrap.layer({ bwrap })),
        Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      )
    }).pipe(Effect.provide(platform)))

  liveAnywhere("without bwrap: unsandboxed with the reason; required refuses every command", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* status({ bwrap: "/nonexistent/bwrap" }), {
        sandboxed: false,
        reason: "/nonexistent/bwrap not found (install bubblewrap: apt-get install bubblewrap, dnf install bubblewrap)",
        required: false
      })
      const required = yield* Effect.gen(function*() {
        const service = yield* Sandbox.Sandbox
        return yield* Effect.flip(Effect.scoped(service.wrap({ command: "/bin/sh", args: ["-c", "true"] }, {
          root: "/",
          cwd: "/",
          writable: [],
          readable: [],
          outside: "hidden"
        })))
      }).pipe(Effect.provide(Bubblewrap.layer({ bwrap: "/nonexistent/bwrap", mode: "required" })), Effect.provide(platform))
      assert.strictEqual(
        required.message,
        `sandbox.mode is "required" but no sandbox can run here: /nonexistent/bwrap not found (install bubblewrap: apt-get install bubblewrap, dnf install bubblewrap)`
      )
    }))

  liveAnywhere("another platform: unsandboxed, saying why; mode off: unsandboxed by choice", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* status({ platform: "darwin" }), {
        sandboxed: false,
        reason: "no sandbox is implemented for darwin (bubblewrap needs Linux)",
        required: false
      })
      assert.deepStrictEqual(yield* status({ mode: "off" }), { sandboxed: false, reason: `sandbox.mode is "off"`, required: false })
    }))
})
