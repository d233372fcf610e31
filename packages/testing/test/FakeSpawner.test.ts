import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Ref, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { FakeSpawner } from "../src/index.ts"

const decode = (chunks: Iterable<Uint8Array>) => Array.from(chunks, (c) => new TextDecoder().decode(c)).join("")

describe("FakeSpawner", () => {
  it.effect("scripted output through the spawner helpers, and a record of what ran", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const out = yield* spawner.string(ChildProcess.make("git", ["status"], { cwd: "/ws", env: { A: "1" } }))
      assert.strictEqual(out, "nothing to commit\n")
      assert.deepStrictEqual(yield* spawner.lines(ChildProcess.make("ls", ["-a", "my dir"])), ["a.ts", "b.ts"])
      const calls = yield* FakeSpawner.spawned
      assert.deepStrictEqual(calls.map((c) => [c.line, c.cwd, c.env, c.exitCode]), [
        ["git status", "/ws", { A: "1" }, 0],
        ["ls -a 'my dir'", undefined, undefined, 0]
      ])
    }).pipe(Effect.provide(FakeSpawner.layer({
      "git status": { stdout: "nothing to commit\n" },
      ls: (cmd) => ({ stdout: cmd.args.includes("-a") ? "a.ts\nb.ts\n" : "" })
    }))))

  it.effect("exit code and stderr; an unknown command fails spawn with NotFound", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(ChildProcess.make("rg", ["x"]))
      const stderr = yield* Stream.runCollect(handle.stderr)
      assert.strictEqual(decode(stderr), "rg: bad regex\n")
      assert.strictEqual(yield* handle.exitCode, 2)
      assert.strictEqual(yield* spawner.exitCode(ChildProcess.make("rg", ["x"])), 2)
      const missing = yield* Effect.flip(spawner.spawn(ChildProcess.make("nope", ["--version"])))
      assert.strictEqual(missing.message, "NotFound: ChildProcess.spawn (nope --version)")
      assert.strictEqual((yield* FakeSpawner.spawned).length, 2) // failed spawns are not recorded
    }).pipe(Effect.provide(FakeSpawner.layer({ rg: { stderr: "rg: bad regex\n", exitCode: 2 } }))))

  it.effect("delayed chunks are driven by TestClock, stdout/stderr interleave in `all`", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(ChildProcess.make("build"))
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const reader = yield* handle.all.pipe(
        Stream.runForEach((c) => Ref.update(seen, (s) => [...s, new TextDecoder().decode(c)])),
        Effect.forkChild
      )
      yield* Effect.yieldNow
      assert.deepStrictEqual(yield* Ref.get(seen), ["start\n"])
      assert.isTrue(yield* handle.isRunning)
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* Ref.get(seen), ["start\n", "warn\n"])
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(reader)
      assert.deepStrictEqual(yield* Ref.get(seen), ["start\n", "warn\n", "done\n"])
      assert.strictEqual(yield* handle.exitCode, 0)
    }).pipe(Effect.provide(FakeSpawner.layer({
      build: {
        stdout: "start\n",
        chunks: [{ stream: "stderr", data: "warn\n", delay: "1 second" }, { data: "done\n", delay: "2 seconds" }]
      }
    }))))

  it.effect("a hanging process is killed: exitCode fails like a real signal death, signals are recorded", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(ChildProcess.make("sleep", ["100"]))
      yield* handle.stdout.pipe(Stream.take(1), Stream.runDrain)
      yield* handle.kill()
      const error = yield* Effect.flip(handle.exitCode)
      assert.strictEqual(error.message, "Unknown: ChildProcess.exitCode (sleep 100)")
      assert.strictEqual((error.reason.cause as Error).message, "Process interrupted due to receipt of signal: 'SIGTERM'")
      const [call] = yield* FakeSpawner.spawned
      assert.deepStrictEqual([call?.signals, call?.exitCode], [["SIGTERM"], null])
    }).pipe(Effect.provide(FakeSpawner.layer({ sleep: { stdout: "pid 1\n", hang: true } }))))

  it.effect("a process ignoring SIGTERM gets SIGKILL after forceKillAfter", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(ChildProcess.make("stubborn"))
      const killing = yield* Effect.forkChild(handle.kill({ forceKillAfter: "2 seconds" }))
      yield* Effect.yieldNow
      assert.isTrue(yield* handle.isRunning)
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(killing)
      assert.isFalse(yield* handle.isRunning)
      assert.deepStrictEqual((yield* FakeSpawner.spawned)[0]?.signals, ["SIGTERM", "SIGKILL"])
    }).pipe(Effect.provide(FakeSpawner.layer({ stubborn: { hang: true, ignore: ["SIGTERM"] } }))))

  it.effect("closing the spawn's scope kills a running process", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const scope = yield* Scope.make()
      const handle = yield* spawner.spawn(ChildProcess.make("server")).pipe(Scope.provide(scope))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(yield* handle.isRunning)
      assert.deepStrictEqual((yield* FakeSpawner.spawned)[0]?.signals, ["SIGTERM"])
    }).pipe(Effect.provide(FakeSpawner.layer({ server: { hang: true } }))))

  it.effect("stdin is recorded (sink and stream option); pipes are one spawn with a pipeline", () =>
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const handle = yield* spawner.spawn(ChildProcess.make("cat"))
      yield* Stream.make(new TextEncoder().encode("hello ")).pipe(Stream.run(handle.stdin))
      yield* Stream.make(new TextEncoder().encode("world")).pipe(Stream.run(handle.stdin))
      yield* spawner.exitCode(ChildProcess.make("wc", { stdin: Stream.make(new TextEncoder().encode("piped")) }))
      const piped = ChildProcess.make("git", ["log"]).pipe(ChildProcess.pipeTo(ChildProcess.make("head", ["-n", "5"])))
      assert.strictEqual(yield* spawner.string(piped), "log\n")
      const calls = yield* FakeSpawner.spawned
      assert.deepStrictEqual(calls.map((c) => [c.line, c.stdin]), [["cat", "hello world"], ["wc", "piped"], ["git log | head -n 5", ""]])
      assert.deepStrictEqual(calls[2]?.pipeline, [{ command: "git", args: ["log"] }, { command: "head", args: ["-n", "5"] }])
    }).pipe(Effect.provide(FakeSpawner.layer((cmd) =>
      cmd.command === "git" ? { stdout: "log\n" } : cmd.command === "cat" || cmd.command === "wc" ? {} : undefined
    ))))
})
