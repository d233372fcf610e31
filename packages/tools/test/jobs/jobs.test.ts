/**
 * Background jobs end to end with real processes: bash run_in_background, bash_output (only new
 * output, filter, input), bash_kill and the session's end (no process left, setsid and double
 * forks included), the job limit, and which input is asked.
 */
import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Scope, Stream } from "effect"
import { Events, Jobs } from "@agent-tools/core"
import { alive, base, bg, call, gone, idOf, pidIn, root, sessionLayer, type Setup } from "./support.ts"

afterAll(() => rmSync(base, { recursive: true, force: true }))

const live = (name: string, setup: Setup, body: () => Effect.Effect<void, unknown, any>) =>
  it.live(name, () => Effect.scoped(body().pipe(Effect.provide(sessionLayer(setup)))), 30_000)

/** Reads the job until `done` holds for the text read so far (bounded). */
const readUntil = (id: string, done: (text: string) => boolean, more: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    let text = ""
    for (let i = 0; i < 50 && !done(text); i++) {
      const { result } = yield* call("bash_output", { id, wait_ms: 200, ...more })
      text += String(result.metadata.output)
    }
    return text
  })

describe("background jobs: output", () => {
  live("bash_output returns only the output since the last read", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("echo first; read x; echo second; read y; echo third"))
      const id = idOf(result)
      assert.strictEqual(result.metadata.status, "running")
      assert.include(result.output, "first")
      const second = yield* call("bash_output", { id, input: "go\n", wait_ms: 5_000 })
      assert.strictEqual(second.result.metadata.output, "second\n")
      const third = yield* call("bash_output", { id, input: "go\n", wait_ms: 5_000 })
      assert.notInclude(String(third.result.metadata.output), "second")
      assert.include(String(third.result.metadata.output), "third")
    }))

  live("filter keeps the matching lines and consumes the others", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("read x; printf 'ok 1\\nerror 2\\nok 3\\nerror 4\\n'; read y; echo 'error 5'; echo 'ok 6'"))
      const id = idOf(result)
      const filtered = yield* call("bash_output", { id, input: "go\n", filter: "^error", wait_ms: 5_000 })
      assert.strictEqual(filtered.result.metadata.output, "error 2\nerror 4\n")
      const rest = yield* call("bash_output", { id, input: "go\n", wait_ms: 5_000 })
      const text = String(rest.result.metadata.output) + (yield* readUntil(id, (t) => t.includes("ok 6")))
      assert.notInclude(text, "ok 1")
      assert.include(text, "error 5")
    }))

  live("without a spill file to write into, the output comes through a pipe, and input still reaches the job", { memorySpill: true }, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("echo first; read x; echo \"got $x\"; sleep 30"))
      const id = idOf(result)
      assert.include(String(result.metadata.output), "first")
      const read = yield* call("bash_output", { id, input: "piped\n", wait_ms: 5_000 })
      assert.include(String(read.result.metadata.output), "got piped")
      const killed = yield* call("bash_kill", { id })
      assert.strictEqual(killed.result.metadata.status, "killed")
    }))

  live("a loud running job: a read counts every byte and shows the newest lines", {}, () =>
    Effect.gen(function*() {
      // 9 MiB at once, far more than the ring keeps, then it keeps running.
      const { result } = yield* call("bash", bg("seq 1 1200000; echo END-MARK; sleep 30"))
      const id = idOf(result)
      let read = result
      let text = String(result.metadata.output)
      for (let i = 0; i < 50 && !text.includes("END-MARK"); i++) {
        read = (yield* call("bash_output", { id, wait_ms: 200 })).result
        text += String(read.metadata.output)
      }
      const printed = Array.from({ length: 1_200_000 }, (_, i) => `${i + 1}\n`).join("").length + "END-MARK\n".length
      assert.strictEqual(read.metadata.totalBytes, printed)
      assert.match(text, /1199999\n1200000\nEND-MARK\n$/)
      assert.strictEqual(read.metadata.status, "running")
      yield* call("bash_kill", { id })
    }))

  live("a job that exits reports its code", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("echo bye; exit 3"))
      const id = idOf(result)
      let status = result.metadata.status
      for (let i = 0; i < 50 && status === "running"; i++) status = (yield* call("bash_output", { id, wait_ms: 200 })).result.metadata.status
      const final = yield* call("bash_output", { id })
      assert.strictEqual(final.result.metadata.status, "exited")
      assert.strictEqual(final.result.metadata.exit, 3)
      assert.include(final.result.output, "exited with code 3")
    }))

  live("another session's id does not find a job", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("sleep 30"))
      const other = yield* Effect.exit(call("bash_output", { id: idOf(result) }, "other-session"))
      assert.isTrue(Exit.isFailure(other))
      assert.include(JSON.stringify(other), "no job")
    }))
})

describe("background jobs: for a UI", () => {
  live("a job's output is a live stream", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("read x; echo \"got $x\"; read y"))
      const job = yield* Jobs.Jobs.use((jobs) => jobs.get("s", idOf(result)))
      const seen = yield* job.output.pipe(
        Stream.decodeText(),
        Stream.scan(() => "", (all: string, text: string) => all + text),
        Stream.takeUntil((all) => all.includes("got hello")),
        Stream.runLast,
        Effect.forkChild
      )
      // Gives the subscriber its turn before the job prints.
      yield* Effect.sleep("100 millis")
      yield* call("bash_output", { id: idOf(result), input: "hello\n" })
      assert.include(Option.getOrThrow(yield* Fiber.join(seen)), "got hello")
    }))

  it.live("JobStarted and JobExited go to Events", () =>
    Effect.gen(function*() {
      const events = yield* Events.Events
      const collected = yield* events.subscribe.pipe(
        Stream.filter((e) => e._tag === "JobStarted" || e._tag === "JobExited"),
        Stream.take(2),
        Stream.runCollect,
        Effect.forkChild
      )
      yield* Effect.sleep("100 millis")
      const { result } = yield* call("bash", bg("exit 4"))
      const [started, exited] = yield* Fiber.join(collected)
      assert.deepStrictEqual(started, { _tag: "JobStarted", jobID: idOf(result), sessionID: "s", command: "exit 4", tty: false })
      assert.deepStrictEqual(exited, { _tag: "JobExited", jobID: idOf(result), sessionID: "s", status: { _tag: "exited", code: 4 } })
    }).pipe(Effect.provide(sessionLayer({ events: Events.layer() })), Effect.scoped), 30_000)
})

describe("background jobs: nothing outlives them", () => {
  // The job's shell, a child that made its own session, and a double-forked grandchild.
  const planted = (dir: string) =>
    `sh -c 'echo $$ > ${dir}/child; exec sleep 300' & setsid sh -c 'echo $$ > ${dir}/setsid; exec sleep 300' & ` +
    `(sh -c 'echo $$ > ${dir}/forked; exec sleep 300' &) ; echo $$ > ${dir}/shell; echo started; wait`

  live("bash_kill ends the whole tree, setsid and double-forked children included", {}, () =>
    Effect.gen(function*() {
      const dir = join(root, "kill")
      yield* call("bash", { command: `mkdir -p ${dir}`, description: "dir" })
      const { result } = yield* call("bash", bg(planted(dir)))
      const pids = [yield* pidIn(join(dir, "shell")), yield* pidIn(join(dir, "child")), yield* pidIn(join(dir, "setsid")), yield* pidIn(join(dir, "forked"))]
      assert.isTrue(pids.every(alive))
      const killed = yield* call("bash_kill", { id: idOf(result) })
      assert.strictEqual(killed.result.metadata.status, "killed")
      assert.strictEqual(killed.result.metadata.reason, "killed")
      for (const pid of pids) assert.isTrue(yield* gone(pid), `process ${pid} still runs`)
    }))

  it.live("the session's end kills every job it started", () =>
    Effect.gen(function*() {
      const dir = join(root, "session")
      const session = yield* Scope.make()
      const context = yield* Layer.buildWithScope(sessionLayer(), session)
      const inSession = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(effect, context)
      yield* inSession(call("bash", { command: `mkdir -p ${dir}`, description: "dir" }))
      yield* inSession(call("bash", bg(planted(dir))))
      const pids = [yield* pidIn(join(dir, "shell")), yield* pidIn(join(dir, "child")), yield* pidIn(join(dir, "setsid")), yield* pidIn(join(dir, "forked"))]
      assert.isTrue(pids.every(alive))
      yield* Scope.close(session, Exit.void)
      for (const pid of pids) assert.isTrue(yield* gone(pid), `process ${pid} still runs`)
    }), 30_000)

  live("the job survives the abort of the call that started it", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("echo up; sleep 30"))
      const read = yield* call("bash_output", { id: idOf(result) })
      assert.strictEqual(read.result.metadata.status, "running")
    }))
})

describe("background jobs: limits", () => {
  live("past the session's most jobs, bash refuses with the limit", { jobs: { maxJobs: 2 } }, () =>
    Effect.gen(function*() {
      yield* call("bash", bg("sleep 30"))
      yield* call("bash", bg("sleep 30"))
      const third = yield* Effect.exit(call("bash", bg("sleep 30")))
      assert.isTrue(Exit.isFailure(third))
      assert.include(JSON.stringify(third), "already has 2 jobs running")
    }))

  live("starts at the same moment cannot both pass the limit", { jobs: { maxJobs: 1 } }, () =>
    Effect.gen(function*() {
      const both = yield* Effect.all([Effect.exit(call("bash", bg("sleep 30"))), Effect.exit(call("bash", bg("sleep 30")))], {
        concurrency: 2
      })
      assert.deepStrictEqual(both.map(Exit.isSuccess).sort(), [false, true])
      assert.include(JSON.stringify(both.find(Exit.isFailure)), "already has 1 jobs running")
    }))

  live("an idle job is killed and says why", { jobs: { idleTimeout: 300 } }, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("echo once; sleep 30"))
      const id = idOf(result)
      let status = "running"
      let reason: unknown
      for (let i = 0; i < 50 && status === "running"; i++) {
        const r = (yield* call("bash_output", { id, wait_ms: 200 })).result
        status = String(r.metadata.status)
        reason = r.metadata.reason
      }
      assert.strictEqual(status, "killed")
      assert.strictEqual(reason, "idle-timeout")
    }))

  live("tty without run_in_background is refused, naming the field", {}, () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(call("bash", { command: "echo", description: "d", tty: true }))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(JSON.stringify(exit), "tty needs run_in_background")
    }))
})

describe("background jobs: input", () => {
  const ask = [{ permission: "*", pattern: "*", action: "allow" as const }, { permission: "bash", pattern: "*", action: "ask" as const }]
  const shellAsk = [...ask.slice(0, 1), { permission: "bash", pattern: "bash", action: "allow" as const }, { permission: "bash", pattern: "rm *", action: "ask" as const }]

  live("a shell job's input is asked like a command under bash: ask", { rules: shellAsk }, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("bash"), "s", true)
      assert.strictEqual(result.metadata.kind, "shell")
      const exit = yield* Effect.exit(call("bash_output", { id: idOf(result), input: "rm -rf build\n" }))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(JSON.stringify(exit), "rejected")
      assert.include(JSON.stringify(exit), "rm -rf build")
    }))

  live("a shell job's input is refused under a deny rule", {
    rules: [...ask.slice(0, 1), { permission: "bash", pattern: "curl *", action: "deny" }]
  }, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("bash"), "s", true)
      const exit = yield* Effect.exit(call("bash_output", { id: idOf(result), input: "curl http://example.com\n" }))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(JSON.stringify(exit), "PermissionDeniedError")
      const fine = yield* call("bash_output", { id: idOf(result), input: "echo allowed\n", wait_ms: 5_000 })
      assert.include(String(fine.result.metadata.output), "allowed")
      assert.deepStrictEqual(fine.asked.map((a) => a.permission), ["bash"])
    }))

  live("an interpreter's input is asked as code given to it", { rules: [...ask.slice(0, 1), { permission: "bash", pattern: "python3 -c *", action: "deny" }] }, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("python3 -i"), "s", true)
      assert.strictEqual(result.metadata.kind, "interpreter")
      const exit = yield* Effect.exit(call("bash_output", { id: idOf(result), input: "print(1)\n" }))
      assert.include(JSON.stringify(exit), "PermissionDeniedError")
    }))

  live("input to another program is data, not asked", {
    rules: [...ask.slice(0, 1), { permission: "bash", pattern: "rm *", action: "deny" }]
  }, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("cat"))
      assert.strictEqual(result.metadata.kind, "program")
      const read = yield* call("bash_output", { id: idOf(result), input: "rm -rf build\n", wait_ms: 5_000 })
      assert.deepStrictEqual(read.asked, [])
      assert.strictEqual(read.result.metadata.output, "rm -rf build\n")
    }))
})
