/**
 * One loopback per session, with real bwrap, nsenter and processes: a server one call of a session
 * starts on 127.0.0.1 is reached by another call of the same session, and by nothing else (another
 * session's call, the host); the namespaces are let go with the layer. Needs bwrap, nsenter
 * (util-linux) and python3 (the server and the clients inside).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { Events, Sandbox, SpillStorage, Truncate } from "@agent-tools/core"
import { Bubblewrap, BubblewrapSession, SandboxLimits } from "@agent-tools/node"
import { Processes, Programs } from "@agent-tools/testing"
import { Bash } from "@agent-tools/tools"

const platform = Layer.mergeAll(
  NodeServices.layer,
  Truncate.layer().pipe(Layer.provide(SpillStorage.layerMemory()), Layer.provide(Events.layerNoop))
)

const programs = Programs.requires("bwrap", "nsenter", "python3")
const live = (
  name: string,
  body: () => Effect.Effect<void, unknown, Scope.Scope | Layer.Success<typeof platform>>
) => it.live.skipIf(!programs.ok)(`${name}${programs.note}`, () => body().pipe(Effect.provide(platform)), 60_000)

/** The absolute path of a program on PATH. */
const where = (program: string) => execFileSync("/bin/sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim()

/** A workspace, removed when the test's scope closes. */
const workspace = Effect.acquireRelease(
  Effect.sync(() => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-session-")))
    const ws = join(base, "ws")
    mkdirSync(ws)
    return { base, ws }
  }),
  (f) => Effect.sync(() => rmSync(f.base, { recursive: true, force: true }))
)

/** A Bubblewrap layer built in a scope of its own, which the test closes (and which closes with the test's, failed or not). */
const buildLayer = (options: Bubblewrap.Options = {}) =>
  Effect.gen(function*() {
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope) => Scope.close(scope, Exit.void))
    const context = yield* Layer.buildWithScope(Bubblewrap.layer(options), scope)
    const service = Context.get(context, Sandbox.Sandbox)
    const status = yield* service.status
    assert.isTrue(status.sandboxed, JSON.stringify(status))
    return { service, status, scope }
  })

const run = (service: Sandbox.Service, ws: string, command: string, policy: Partial<Sandbox.Policy> = {}) =>
  Bash.run({
    command,
    cwd: ws,
    shell: { path: "/bin/bash", name: "bash", kind: "posix" },
    platform: "linux",
    env: { ...Bash.NON_INTERACTIVE_ENV },
    timeout: 30_000,
    grace: 500,
    drain: 250,
    truncation: { tool: "bash", direction: "head+tail" },
    sandbox: { service, policy: { root: ws, cwd: ws, writable: [], readable: [], outside: "hidden", ...policy } }
  })

const PORT = 20000 + (process.pid % 20000)

/** Serves `GREETING` on 127.0.0.1:PORT, writes `ready` once listening, ends after one client or 20 s. */
const SERVER = `/usr/bin/python3 -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", ${PORT}))
s.listen()
open("ready", "w").write("1")
s.settimeout(20)
c, _ = s.accept()
c.sendall(b"hello from the session")
c.close()
'`

/** Prints what 127.0.0.1:PORT says, or the error. */
const CLIENT = `/usr/bin/python3 -c '
import socket
try:
    print(socket.create_connection(("127.0.0.1", ${PORT}), timeout=5).recv(100).decode())
except Exception as e:
    print("error", type(e).__name__)
'`

/** What the host gets from 127.0.0.1:PORT: the greeting, or the error's code. */
const hostConnect = Effect.callback<string>((resume) => {
  let text = ""
  const socket = connect({ host: "127.0.0.1", port: PORT })
  socket.on("data", (d) => text += d)
  socket.on("end", () => resume(Effect.succeed(text)))
  socket.on("error", (e: NodeJS.ErrnoException) => resume(Effect.succeed(`error ${e.code}`)))
})

/** This process's descriptors that hold a network namespace other than its own. */
const heldNamespaces = () => {
  const own = readlinkSync("/proc/self/ns/net")
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      return target.startsWith("net:[") && target !== own ? [target] : []
    } catch {
      return []
    }
  })
}

/** Host pids whose command line contains `marker` (alive, not zombies). */
const processesWith = Processes.withMarker

describe("one loopback per session", () => {
  live("a server one call starts is reached by a concurrent call of the same session, not by another session nor the host", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const { service, status, scope } = yield* buildLayer()
      assert.isUndefined(status.sandboxed ? status.unenforced?.find((s) => s.startsWith("localhost")) : undefined)
      const server = yield* Effect.forkChild(run(service, ws, SERVER, { session: "s1", network: "proxy" }))
      for (let i = 0; i < 200 && !existsSync(join(ws, "ready")); i++) yield* Effect.sleep("50 millis")
      if (!existsSync(join(ws, "ready"))) assert.fail(`the server did not start: ${(yield* Fiber.join(server)).output.content}`)

      // The host's own loopback has nothing on that port.
      assert.match(yield* hostConnect, /^error /)
      const other = yield* run(service, ws, CLIENT, { session: "s2", network: "proxy" })
      assert.strictEqual(other.output.content, "error ConnectionRefusedError\n")
      const alone = yield* run(service, ws, CLIENT, { network: "deny" })
      assert.strictEqual(alone.output.content, "error ConnectionRefusedError\n")
      // The same session under `deny` (a call of local programs only): the same loopback.
      const same = yield* run(service, ws, CLIENT, { session: "s1", network: "deny" })
      assert.strictEqual(same.output.content, "hello from the session\n")

      const served = yield* Fiber.join(server)
      assert.strictEqual(served.exitCode, 0, served.output.content)
      assert.isTrue(served.sandboxed)
      yield* Scope.close(scope, Exit.void)
    }))

  live("the session's namespaces are let go when the layer closes, and no holder process is left", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const before = heldNamespaces().length
      const { service, scope } = yield* buildLayer()
      const a = yield* run(service, ws, "readlink /proc/self/ns/net", { session: "a" })
      const b = yield* run(service, ws, "readlink /proc/self/ns/net", { session: "b" })
      const a2 = yield* run(service, ws, "readlink /proc/self/ns/net", { session: "a", network: "deny" })
      assert.match(a.output.content, /^net:\[\d+\]\n$/)
      assert.strictEqual(a2.output.content, a.output.content)
      assert.notStrictEqual(b.output.content, a.output.content)
      assert.strictEqual(heldNamespaces().length, before + 2)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(heldNamespaces().length, before)
      assert.deepStrictEqual(processesWith("echo $$; read _"), [])
    }))

  live("a call in its session's network is hardened as any other: no capabilities, no user namespace of its own", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const { service, scope } = yield* buildLayer()
      const result = yield* run(
        service,
        ws,
        "grep CapEff /proc/self/status; unshare --user true 2>/dev/null && echo made || echo refused",
        { session: "hardened" }
      )
      assert.match(result.output.content, /^CapEff:\s+0+\nrefused\n/)
      yield* Scope.close(scope, Exit.void)
    }))

  live("calls without a session, or under `allow`, do not enter one", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const { service, scope } = yield* buildLayer()
      const own = readlinkSync("/proc/self/ns/net")
      const [x, y, host] = yield* Effect.forEach(
        [{}, {}, { session: "a", network: "allow" as const }],
        (policy) => run(service, ws, "readlink /proc/self/ns/net", policy)
      )
      assert.notStrictEqual(x!.output.content, y!.output.content)
      assert.strictEqual(host!.output.content, `${own}\n`)
      yield* Scope.close(scope, Exit.void)
    }))

  live("past the most sessions kept, the least recently used one is let go", () =>
    Effect.gen(function*() {
      const { service, scope } = yield* buildLayer()
      const status = yield* service.status
      assert.isTrue(status.sandboxed)
      const bwrap = yield* BubblewrapSession.probeJoin({
        bwrap: where("bwrap"),
        nsenter: where("nsenter"),
        mounts: ["--ro-bind", "/", "/"],
        nestedUserNamespaces: false
      })
      assert.isTrue(bwrap.ok, JSON.stringify(bwrap))
      if (!bwrap.ok) return
      const sessions = yield* BubblewrapSession.make({ bwrap: where("bwrap"), join: bwrap.join, mounts: ["--ro-bind", "/", "/"], max: 2 })
      const before = heldNamespaces().length
      // Each join as a call: held while its scope is open.
      const call = (session: string) => Effect.scoped(sessions.join(session))
      yield* call("a")
      yield* call("b")
      yield* call("a")
      yield* call("c")
      assert.deepStrictEqual(yield* sessions.held, ["a", "c"])
      assert.strictEqual(heldNamespaces().length, before + 2)
      // A session let go while a call of it runs keeps its namespace until that call ends.
      const running = yield* Scope.make()
      yield* sessions.join("c").pipe(Scope.provide(running))
      yield* call("d")
      yield* call("e")
      assert.deepStrictEqual(yield* sessions.held, ["d", "e"])
      assert.strictEqual(heldNamespaces().length, before + 3)
      yield* Scope.close(running, Exit.void)
      assert.strictEqual(heldNamespaces().length, before + 2)
      yield* Scope.close(scope, Exit.void)
    }))

  live("without a usable nsenter, calls keep their own loopback and the status says why", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const { service, status, scope } = yield* buildLayer({ nsenter: "/nonexistent/nsenter" })
      assert.isTrue(status.sandboxed)
      const why = status.sandboxed ? status.unenforced?.find((s) => s.startsWith("localhost is not shared between a session's calls: ")) : undefined
      assert.include(why, "/nonexistent/nsenter")
      const a = yield* run(service, ws, "readlink /proc/self/ns/net", { session: "a" })
      const a2 = yield* run(service, ws, "readlink /proc/self/ns/net", { session: "a" })
      assert.strictEqual(a.exitCode, 0)
      assert.notStrictEqual(a.output.content, a2.output.content)
      yield* Scope.close(scope, Exit.void)
    }))
})

describe("the files bwrap reads, made once per layer", () => {
  /** The layer's directory of files, from the seccomp filter's path in a wrapped call. */
  const filesOf = (service: Sandbox.Service, ws: string) =>
    Effect.scoped(Effect.gen(function*() {
      const wrapped = yield* service.wrap({ command: "/bin/true", args: [] }, { root: ws, cwd: ws, writable: [], readable: [], outside: "hidden" })
      const filter = wrapped.args.find((a) => a.endsWith("/seccomp"))
      assert.isDefined(filter, wrapped.args.join(" "))
      return filter!.slice(0, filter!.lastIndexOf("/"))
    }))
  const snapshot = (dir: string) =>
    readdirSync(dir).sort().map((name) => {
      const info = statSync(join(dir, name))
      return `${name} ${info.ino} ${info.size} ${info.mode} ${info.mtimeMs} ${readFileSync(join(dir, name)).toString("hex")}`
    })

  live("a command that sees the host's temp dir cannot change them", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const { service, scope } = yield* buildLayer()
      const dir = yield* filesOf(service, ws)
      const before = snapshot(dir)
      const attack = yield* run(
        service,
        ws,
        `for f in "${dir}"/*; do echo x >> "$f"; chmod 666 "$f"; rm -f "$f"; done; mv "${dir}" "${dir}.old"; touch "${dir}/new"; echo done`,
        { outside: "writable" }
      )
      assert.include(attack.output.content, "done")
      assert.include(attack.output.content, "Read-only file system")
      assert.deepStrictEqual(snapshot(dir), before)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(dir), "the layer's files are removed when it closes")
    }))

  live("changed or removed between calls (a temp cleaner), they are made anew", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const { service, scope } = yield* buildLayer()
      const dir = yield* filesOf(service, ws)
      // The mask file: a secret path reads as it.
      chmodSync(join(dir, "empty"), 0o644)
      writeFileSync(join(dir, "empty"), "not empty\n")
      const masked = yield* run(service, ws, "wc -c < /etc/shadow")
      assert.strictEqual(masked.output.content, "0\n")
      const again = yield* filesOf(service, ws)
      assert.notStrictEqual(again, dir)
      rmSync(again, { recursive: true, force: true })
      const after = yield* run(service, ws, "wc -c < /etc/shadow")
      assert.strictEqual(after.output.content, "0\n")
      yield* Scope.close(scope, Exit.void)
      rmSync(dir, { recursive: true, force: true })
    }))
})

describe("the calls' pids cgroups", () => {
  live("an emptied cgroup is reused by the next call, with its cap written again", () =>
    Effect.gen(function*() {
      const pids = yield* SandboxLimits.detectPids()
      if (pids._tag === "none") return // no cgroup to make here (an unprivileged user): nothing to reuse
      const pool = yield* SandboxLimits.pidsPool(pids.parent, 64)
      const first = yield* Effect.scoped(Effect.tap(pool.acquire, (procs) => Effect.sync(() => writeFileSync(procs.replace(/cgroup\.procs$/, "pids.max"), "5\n"))))
      const second = yield* Effect.scoped(Effect.tap(pool.acquire, (procs) =>
        Effect.sync(() => assert.strictEqual(readFileSync(procs.replace(/cgroup\.procs$/, "pids.max"), "utf8"), "64\n"))))
      assert.strictEqual(second, first)
    }))

  live("a cgroup a process is still in when its call ends: the process is killed, the cgroup not reused", () =>
    Effect.gen(function*() {
      const pids = yield* SandboxLimits.detectPids()
      if (pids._tag === "none") return // no cgroup to make here (an unprivileged user)
      const pool = yield* SandboxLimits.pidsPool(pids.parent, 64)
      const marker = `${process.pid}${Date.now()}`.slice(-9)
      const first = yield* Effect.scoped(Effect.tap(pool.acquire, (procs) =>
        Effect.gen(function*() {
          const child = spawn("/bin/sh", ["-c", `echo $$ > "$0"; exec sleep 1${marker}`, procs], { detached: true, stdio: "ignore" })
          child.unref()
          // The shell's own command line names the marker too: wait until it has joined the cgroup.
          const joined = () => processesWith(`1${marker}`).length === 1 && readFileSync(procs, "utf8").trim() !== ""
          for (let i = 0; i < 250 && !joined(); i++) yield* Effect.sleep("20 millis")
          assert.isTrue(joined(), "the process did not join the call's cgroup")
        })))
      for (let i = 0; i < 250 && processesWith(`1${marker}`).length > 0; i++) yield* Effect.sleep("20 millis")
      assert.deepStrictEqual(processesWith(`1${marker}`), [])
      const second = yield* Effect.scoped(pool.acquire)
      assert.notStrictEqual(second, first)
    }))

  live("what a killed agent left (its kept cgroups, its files) is removed by the next layer", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const dead = spawnSync("/bin/true").pid!
      const pids = yield* SandboxLimits.detectPids()
      const cgroup = pids._tag === "cgroup" ? join(pids.parent, `agent-tools-${dead}-1-1`) : undefined
      if (cgroup !== undefined) mkdirSync(cgroup)
      const files = join(tmpdir(), `agent-tools-sandbox-${dead}-left`)
      mkdirSync(files)
      writeFileSync(join(files, "empty"), "")
      const { service, scope } = yield* buildLayer()
      yield* run(service, ws, "true")
      assert.isFalse(existsSync(files))
      if (cgroup !== undefined) assert.isFalse(existsSync(cgroup))
      yield* Scope.close(scope, Exit.void)
    }))

  live("a call that sees the host's /sys cannot lift its own cap", () =>
    Effect.gen(function*() {
      const { ws } = yield* workspace
      const pids = yield* SandboxLimits.detectPids()
      if (pids._tag === "none" || !pids.parent.startsWith("/sys/fs/cgroup/pids")) return // the cgroup v1 layout this command reads
      const { service, scope } = yield* buildLayer()
      const result = yield* run(
        service,
        ws,
        `f=/sys/fs/cgroup/pids$(sed -n 's/^[0-9]*:pids://p' /proc/self/cgroup)/pids.max; cat "$f"; echo max > "$f" && echo raised; cat "$f"`,
        { outside: "writable" }
      )
      assert.notInclude(result.output.content, "raised")
      assert.include(result.output.content, "Read-only file system")
      yield* Scope.close(scope, Exit.void)
    }))
})

/**
 * Runs the argv in the JSON file (argv[1]) on a new pseudo-terminal, types Ctrl-C once it printed
 * `ready`, and prints what the terminal showed, then `exit <status>`.
 */
const TERMINAL_DRIVER = `
import json, os, pty, select, sys, time
w = json.load(open(sys.argv[1]))
pid, fd = pty.fork()
if pid == 0:
    os.execve(w["command"], [w["command"]] + w["args"], w["env"])
out, sent, end = b"", False, time.time() + 15
while time.time() < end:
    if select.select([fd], [], [], 0.1)[0]:
        try:
            chunk = os.read(fd, 1000)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if not sent and b"ready" in out:
        os.write(fd, b"\\x03")
        sent = True
print(out.decode(errors="replace"))
print("exit", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
`

describe("terminal calls", () => {
  live("Ctrl-C typed into the call's terminal reaches its program, and the call goes on", () =>
    Effect.gen(function*() {
      const { base, ws } = yield* workspace
      const { service, scope } = yield* buildLayer()
      const program = "import time\ntry:\n    print('ready', flush=True)\n    time.sleep(10)\nexcept KeyboardInterrupt:\n    print('caught', flush=True)\ntime.sleep(0.3)\nprint('alive', flush=True)\n"
      const call = yield* Scope.make()
      const wrapped = yield* service.wrap(
        { command: "/usr/bin/python3", args: ["-c", program] },
        { root: ws, cwd: ws, writable: [], readable: [], outside: "hidden", terminal: true, session: "terminal" }
      ).pipe(Scope.provide(call))
      writeFileSync(join(base, "argv.json"), JSON.stringify(wrapped))
      const shown = execFileSync("/usr/bin/python3", ["-c", TERMINAL_DRIVER, join(base, "argv.json")], { encoding: "utf8", timeout: 30_000 })
      assert.match(shown, /caught\r?\n[\s\S]*alive\r?\n[\s\S]*exit 0\n$/)
      yield* Scope.close(call, Exit.void)
      yield* Scope.close(scope, Exit.void)
    }))

  const policy: Sandbox.Policy = { root: "/ws", cwd: "/ws", writable: [], readable: [], outside: "hidden" }
  const args = (over: Partial<Sandbox.Policy>) =>
    Bubblewrap.bwrapArguments({ policy: { ...policy, ...over }, network: "proxy", system: [], extraWritable: [], extraReadable: [], tmp: undefined })

  it("a terminal call drops --new-session and nothing else", () => {
    const plain = args({})
    const terminal = args({ terminal: true })
    assert.include(plain, "--new-session")
    assert.deepStrictEqual(terminal, plain.filter((a) => a !== "--new-session"))
  })

  it("a call in its session's network has no --unshare-net, and nothing else changes", () => {
    const own = args({ session: "a" })
    const shared = Bubblewrap.bwrapArguments({
      policy: { ...policy, session: "a" },
      network: "proxy",
      sessionNetwork: true,
      system: [],
      extraWritable: [],
      extraReadable: [],
      tmp: undefined
    })
    assert.deepStrictEqual(shared, own.filter((a) => a !== "--unshare-net"))
  })
})
