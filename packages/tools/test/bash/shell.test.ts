/** Shell selection and tree killing on every platform, with a faked environment and file system. */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { FakeSpawner } from "@agent-tools/testing"
import * as Bash from "../../src/bash/index.ts"

const env = (o: Partial<Bash.Environment>): Bash.Environment => ({
  platform: "linux",
  home: "/home/u",
  SHELL: undefined,
  PATH: undefined,
  COMSPEC: undefined,
  gitBash: undefined,
  programFiles: [],
  ...o
})

const existing = (...paths: ReadonlyArray<string>) => (p: string) => Effect.succeed(paths.includes(p))

const selected = (e: Bash.Environment, exists: (p: string) => Effect.Effect<boolean>, override?: string) =>
  Effect.map(Bash.selectShell(e, exists, override), (s) => `${s.kind} ${s.name} ${s.path}`)

const failure = (e: Bash.Environment, exists: (p: string) => Effect.Effect<boolean>, override?: string) =>
  Effect.map(Effect.flip(Bash.selectShell(e, exists, override)), (err) => err.message)

describe("shell selection on POSIX", () => {
  it.effect("uses $SHELL when it is a POSIX shell that exists", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* selected(env({ SHELL: "/bin/zsh", PATH: "/usr/bin" }), existing("/bin/zsh", "/usr/bin/bash")), "posix zsh /bin/zsh")
    }))

  it.effect("refuses fish and nu from $SHELL and falls back to bash on PATH", () =>
    Effect.gen(function*() {
      const fs = existing("/usr/bin/fish", "/usr/local/bin/nu", "/usr/bin/bash", "/bin/sh")
      assert.strictEqual(yield* selected(env({ SHELL: "/usr/bin/fish", PATH: "/opt/x:/usr/bin" }), fs), "posix bash /usr/bin/bash")
      assert.strictEqual(yield* selected(env({ SHELL: "/usr/local/bin/nu", PATH: "/usr/bin" }), fs), "posix bash /usr/bin/bash")
    }))

  it.effect("ignores a relative or missing $SHELL; /bin/sh is the last resort", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* selected(env({ SHELL: "zsh", PATH: "/usr/bin" }), existing("/usr/bin/bash")), "posix bash /usr/bin/bash")
      assert.strictEqual(yield* selected(env({ SHELL: "/bin/zsh", PATH: "/usr/bin" }), existing("/bin/sh")), "posix sh /bin/sh")
    }))

  it.effect("macOS: bash on PATH, then /bin/zsh, then /bin/sh", () =>
    Effect.gen(function*() {
      const mac = env({ platform: "darwin", SHELL: "/opt/homebrew/bin/fish", PATH: "/opt/homebrew/bin" })
      assert.strictEqual(yield* selected(mac, existing("/bin/zsh", "/bin/sh")), "posix zsh /bin/zsh")
    }))

  it.effect("a configured shell is used as given, but fish and nu are still refused", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* selected(env({}), existing("/opt/ksh93/bin/ksh93"), "/opt/ksh93/bin/ksh93"), "posix ksh93 /opt/ksh93/bin/ksh93")
      assert.strictEqual(yield* failure(env({}), existing("/usr/bin/fish"), "/usr/bin/fish"), "the configured shell /usr/bin/fish is not a POSIX shell")
      assert.strictEqual(yield* failure(env({}), existing(), "/bin/bash"), "the configured shell /bin/bash does not exist")
    }))

  it.effect("fails with a clear message when nothing is found", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* failure(env({ PATH: "/usr/bin" }), existing()),
        "no POSIX shell found (tried $SHELL, bash on PATH, /bin/sh)"
      )
    }))
})

describe("shell selection on Windows", () => {
  const win = (o: Partial<Bash.Environment>) => env({ platform: "win32", ...o })

  it.effect("prefers AGENT_TOOLS_GIT_BASH", () =>
    Effect.gen(function*() {
      const e = win({ gitBash: "D:\\tools\\Git\\bin\\bash.exe", COMSPEC: "C:\\Windows\\System32\\cmd.exe" })
      assert.strictEqual(yield* selected(e, existing("D:\\tools\\Git\\bin\\bash.exe")), "posix bash D:\\tools\\Git\\bin\\bash.exe")
    }))

  it.effect("finds Git Bash next to git.exe on PATH (Git\\cmd\\git.exe → Git\\bin\\bash.exe)", () =>
    Effect.gen(function*() {
      const e = win({ PATH: "C:\\Windows;C:\\Program Files\\Git\\cmd" })
      const fs = existing("C:\\Program Files\\Git\\cmd\\git.exe", "C:\\Program Files\\Git\\bin\\bash.exe")
      assert.strictEqual(yield* selected(e, fs), "posix bash C:\\Program Files\\Git\\bin\\bash.exe")
    }))

  it.effect("finds Git Bash under Program Files", () =>
    Effect.gen(function*() {
      const e = win({ programFiles: ["C:\\Program Files"] })
      assert.strictEqual(yield* selected(e, existing("C:\\Program Files\\Git\\bin\\bash.exe")), "posix bash C:\\Program Files\\Git\\bin\\bash.exe")
    }))

  it.effect("falls back to cmd.exe (COMSPEC, else System32)", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* selected(win({ COMSPEC: "C:\\WINDOWS\\system32\\cmd.exe" }), existing("C:\\WINDOWS\\system32\\cmd.exe")),
        "cmd cmd C:\\WINDOWS\\system32\\cmd.exe"
      )
      assert.strictEqual(yield* selected(win({}), existing("C:\\Windows\\System32\\cmd.exe")), "cmd cmd C:\\Windows\\System32\\cmd.exe")
      assert.strictEqual(yield* failure(win({}), existing()), "neither Git Bash nor cmd.exe was found")
    }))

  it("names shells by their file name without extension", () => {
    assert.strictEqual(Bash.shellName("C:\\Program Files\\Git\\bin\\BASH.EXE", "win32"), "bash")
    assert.strictEqual(Bash.shellName("/usr/local/bin/zsh", "linux"), "zsh")
  })
})

describe("killing the tree", () => {
  it("POSIX: the process group, SIGTERM then SIGKILL after the grace; Windows: taskkill /T /F", () => {
    assert.deepStrictEqual(Bash.killPlan("linux", 42, 500), { _tag: "group", signal: "SIGTERM", forceAfter: 500 })
    assert.deepStrictEqual(Bash.killPlan("darwin", 42, 200), { _tag: "group", signal: "SIGTERM", forceAfter: 200 })
    assert.deepStrictEqual(Bash.killPlan("win32", 42, 500), {
      _tag: "taskkill",
      command: "taskkill",
      args: ["/pid", "42", "/T", "/F"]
    })
  })

  it.effect("on Windows runs taskkill for the pid through the spawner, then kills the handle", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(ChildProcess.make("cmd.exe", ["/d", "/s", "/c", "ping -t localhost"]))
      yield* Bash.killTree(handle, "win32", 100)
      const spawned = yield* FakeSpawner.spawned
      assert.deepStrictEqual(spawned.map((s) => s.line), [
        "cmd.exe /d /s /c 'ping -t localhost'",
        `taskkill /pid ${handle.pid} /T /F`
      ])
      assert.deepStrictEqual(spawned[0]!.signals, ["SIGTERM"])
    }).pipe(Effect.scoped, Effect.provide(FakeSpawner.layer({ "cmd.exe": { hang: true }, taskkill: { exitCode: 0 } }))))

  it.effect("on POSIX signals the handle (the spawner signals the group)", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(ChildProcess.make("sleep", ["100"]))
      yield* Bash.killTree(handle, "linux", 100)
      const spawned = yield* FakeSpawner.spawned
      assert.deepStrictEqual(spawned.map((s) => [s.line, s.signals]), [["sleep 100", ["SIGTERM"]]])
    }).pipe(Effect.scoped, Effect.provide(FakeSpawner.layer({ sleep: { hang: true } }))))
})

describe("environment", () => {
  it.effect("reads HOME, SHELL and PATH through Effect Config; the config's home wins", () =>
    Effect.gen(function*() {
      const provider = ConfigProvider.layer(ConfigProvider.fromEnvRecord({ HOME: "/home/x", SHELL: "/bin/zsh", PATH: "/usr/bin" }))
      const e = yield* Bash.environment(Bash.defaults).pipe(Effect.provide(provider))
      assert.deepStrictEqual([e.home, e.SHELL, e.PATH], ["/home/x", "/bin/zsh", "/usr/bin"])
      const overridden = yield* Bash.environment({ ...Bash.defaults, home: "/h", platform: "win32" }).pipe(Effect.provide(provider))
      assert.deepStrictEqual([overridden.home, overridden.platform], ["/h", "win32"])
    }))

  it.effect("BashConfig.layer replaces some options and keeps the defaults", () =>
    Effect.gen(function*() {
      const config = yield* Bash.BashConfig
      assert.strictEqual(config.maxTimeout, 1_000)
      assert.strictEqual(config.defaultTimeout, Bash.defaults.defaultTimeout)
    }).pipe(Effect.provide(Bash.configLayer({ maxTimeout: 1_000 }))))
})
