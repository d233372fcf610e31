/**
 * Terminal jobs through a fake `Terminal`: the wrapped command and its size reach `spawn`, input
 * is written as keys, cols/rows resize, `screen` is the terminal's, and the model reads the
 * output without escape sequences. Without a terminal layer, `tty` is refused with its reason.
 */
import { rmSync } from "node:fs"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Queue, Stream } from "effect"
import { Terminal } from "@agent-tools/core"
import { base, bg, call, idOf, sessionLayer, type Setup } from "./support.ts"

afterAll(() => rmSync(base, { recursive: true, force: true }))

interface Recorded {
  readonly spawned: Array<Terminal.SpawnOptions>
  readonly written: Array<string>
  readonly resized: Array<readonly [number, number]>
  readonly killed: Array<string>
}

/** A terminal that echoes what is typed, in green, and exits when it reads `exit\r`. */
const fakeTerminal = (recorded: Recorded): Terminal.Service => ({
  available: Effect.succeed({ ok: true }),
  spawn: (options) =>
    Effect.gen(function*() {
      recorded.spawned.push(options)
      const output = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      const exited = yield* Deferred.make<Terminal.Exit>()
      const encode = (text: string) => new TextEncoder().encode(text)
      yield* Queue.offer(output, encode("\u001b[32mready\u001b[0m\r\n"))
      const end = (exit: Terminal.Exit) => Effect.andThen(Deferred.succeed(exited, exit), Queue.end(output))
      let size = [options.cols, options.rows] as const
      return {
        pid: 4242,
        output: Stream.fromQueue(output),
        write: (data) =>
          Effect.gen(function*() {
            recorded.written.push(data)
            yield* Queue.offer(output, encode(`\u001b[32m${data.replaceAll("\r", "\r\n")}\u001b[0m`))
            if (data === "exit\r") yield* end({ code: 0, signal: null })
          }),
        resize: (cols, rows) => Effect.sync(() => void recorded.resized.push((size = [cols, rows] as const))),
        screen: Effect.sync(() => `screen ${size[0]}x${size[1]}`),
        kill: (signal) => Effect.andThen(Effect.sync(() => void recorded.killed.push(signal ?? "SIGTERM")), end({ code: null, signal: signal ?? "SIGTERM" })),
        exited: Deferred.await(exited)
      } satisfies Terminal.Process
    })
})

const live = (name: string, setup: Setup, body: () => Effect.Effect<void, unknown, any>) =>
  it.live(name, () => Effect.scoped(body().pipe(Effect.provide(sessionLayer(setup)))), 30_000)

describe("terminal jobs", () => {
  const recorded: Recorded = { spawned: [], written: [], resized: [], killed: [] }
  live("write, read, resize and screen go through the terminal", { terminal: fakeTerminal(recorded) }, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("some-repl", { tty: true, cols: 100, rows: 30 }))
      const id = idOf(result)
      assert.strictEqual(recorded.spawned.length, 1)
      const spawned = recorded.spawned[0]!
      assert.deepStrictEqual([spawned.cols, spawned.rows], [100, 30])
      assert.deepStrictEqual(spawned.args.slice(-2), ["-c", "some-repl"])
      assert.strictEqual(spawned.env.TERM, "xterm-256color")
      assert.strictEqual(result.metadata.tty, true)
      assert.strictEqual(result.metadata.output, "ready\n")

      const typed = yield* call("bash_output", { id, input: "hello\r", wait_ms: 2_000, cols: 90, rows: 20, screen: true })
      assert.deepStrictEqual(recorded.written, ["hello\r"])
      assert.deepStrictEqual(recorded.resized, [[90, 20]])
      assert.strictEqual(typed.result.metadata.output, "hello\n")
      assert.strictEqual(typed.result.metadata.screen, "screen 90x20")

      const killed = yield* call("bash_kill", { id })
      assert.strictEqual(killed.result.metadata.status, "killed")
      assert.deepStrictEqual(recorded.killed, ["SIGTERM"])
    }))

  live("without a terminal layer, tty is refused with the terminal's reason", {}, () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(call("bash", bg("top", { tty: true })))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(JSON.stringify(exit), "no terminal layer is provided")
    }))

  live("screen on a job without a terminal says why", {}, () =>
    Effect.gen(function*() {
      const { result } = yield* call("bash", bg("sleep 5"))
      const exit = yield* Effect.exit(call("bash_output", { id: idOf(result), screen: true }))
      assert.include(JSON.stringify(exit), "tty job")
    }))
})
