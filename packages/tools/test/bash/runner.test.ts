/**
 * The runner with real processes: kill trees, background jobs, stdin, pagers, editors, partial
 * output, abort, interruption. Timing bounds only where a time limit is part of the behaviour.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { SpillStorage } from "@agent-tools/core"
import * as Bash from "../../src/bash/index.ts"
import { alive, directRunnerLayer, kill, pidsIn, run, runnerLayer, survivors } from "./process.ts"

// Every case runs both ways the output can travel: through pipes into Truncate.stream, and
// straight into a spill file the command writes (a store with direct spills).
for (const [mode, layer] of [["pipes", runnerLayer], ["spill file", directRunnerLayer]] as const) {
describe(`output through ${mode}`, () => {
const live = (name: string, body: () => Effect.Effect<void, unknown, any>) =>
  it.live(name, () => body().pipe(Effect.provide(layer)), 30_000)

  describe("timeouts kill the whole tree", () => {
    live("a child and a grandchild that ignore SIGTERM are gone after a 1 s timeout; the call returns at the deadline", () =>
      Effect.gen(function*() {
        const script = [
          "trap '' TERM",
          "(trap '' TERM; echo \"pid $BASHPID\"; sleep 1000 & echo \"pid $!\"; wait) &",
          "echo \"pid $$\"",
          "sleep 1000"
        ].join("\n")
        const started = Date.now()
        const result = yield* run(script, { timeout: 1_000 })
        const elapsed = Date.now() - started
        const pids = pidsIn(result.output.content)
        assert.strictEqual(pids.length, 3, result.output.content)
        assert.strictEqual(result.reason, "timeout")
        // At the deadline, not after the 1000 s the command would run: the bound is loose so that a
        // busy machine cannot fail it.
        assert.isBelow(elapsed, 60_000)
        assert.deepStrictEqual(yield* survivors(pids), [])
      }))

    live("returns by the deadline even when a detached (setsid) grandchild keeps the pipe open", () =>
      Effect.gen(function*() {
        const started = Date.now()
        // It holds the output without writing: once the call's end has closed the output's far
        // side, a writer would end on its next write (a broken pipe).
        const result = yield* run("setsid sh -c 'echo \"pid $$\"; exec sleep 1000' & sleep 1000", {
          timeout: 1_000
        })
        const elapsed = Date.now() - started
        const escaped = pidsIn(result.output.content)
        kill(escaped) // it left our process group on purpose: not ours to keep
        assert.strictEqual(result.reason, "timeout")
        assert.isTrue(result.escaped)
        // At the deadline, not after the 1000 s the command would run: the bound is loose so that a
        // busy machine cannot fail it.
        assert.isBelow(elapsed, 60_000)
        assert.strictEqual(escaped.length, 1)
      }))

    live("keeps the output printed before the timeout", () =>
      Effect.gen(function*() {
        const result = yield* run("echo PROGRESS-MARK; sleep 30", { timeout: 1_000 })
        assert.strictEqual(result.reason, "timeout")
        assert.strictEqual(result.output.content, "PROGRESS-MARK\n")
        assert.strictEqual(result.exitCode, null)
      }))

    live("keeps what a TERM handler prints while the tree dies", () =>
      Effect.gen(function*() {
        const result = yield* run("trap 'echo cleaning up; exit 1' TERM; echo started; sleep 30 & wait", { timeout: 1_000 })
        assert.strictEqual(result.reason, "timeout")
        assert.strictEqual(result.output.content, "started\ncleaning up\n")
      }))
  })

  describe("nothing waits for input or for background jobs", () => {
    live("a background `sleep 100 &` does not hold the call, and is killed", () =>
      Effect.gen(function*() {
        const result = yield* run("sleep 100 & echo \"pid $!\"; echo done")
        assert.strictEqual(result.reason, "exit")
        assert.strictEqual(result.exitCode, 0)
        assert.isTrue(result.background)
        assert.isFalse(result.escaped)
        assert.isFalse(result.sandboxed)
        assert.match(result.output.content, /done\n$/)
        assert.deepStrictEqual(yield* survivors(pidsIn(result.output.content)), [])
      }))

    live("a background job that closes its output does not count as holding the call", () =>
      Effect.gen(function*() {
        const result = yield* run("sleep 100 > /dev/null 2>&1 & echo \"pid $!\"")
        assert.strictEqual(result.reason, "exit")
        assert.isFalse(result.background)
        assert.deepStrictEqual(yield* survivors(pidsIn(result.output.content)), [])
      }))

    live("a background job that keeps printing is cut off and killed", () =>
      Effect.gen(function*() {
        const result = yield* run("(echo \"pid $BASHPID\"; while :; do echo tick; sleep 0.1; done) & echo done")
        assert.strictEqual(result.reason, "exit")
        assert.isTrue(result.background)
        assert.include(result.output.content, "done\n")
        assert.deepStrictEqual(yield* survivors(pidsIn(result.output.content)), [])
      }))

    live("nothing can open the terminal: the command has no controlling tty", () =>
      Effect.gen(function*() {
        const result = yield* run("cat /dev/tty; echo after")
        assert.strictEqual(result.reason, "exit")
        // cat fails at once instead of waiting; stdout and stderr may interleave either way.
        assert.include(result.output.content, "after\n")
        assert.match(result.output.content, /cat: \/dev\/tty: No such device or address\n/)
      }))

    live("`read x` sees a closed stdin at once", () =>
      Effect.gen(function*() {
        const result = yield* run("read x; echo \"got:$x\"")
        assert.strictEqual(result.reason, "exit")
        assert.strictEqual(result.output.content, "got:\n")
      }))

    live("pagers and editors are non-interactive", () =>
      Effect.gen(function*() {
        const result = yield* run("echo $GIT_EDITOR $EDITOR $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT")
        assert.strictEqual(result.output.content, "true true cat cat 0\n")
      }))

    describe("in a git repository with 500 commits", () => {
      const repo = mkdtempSync(join(tmpdir(), "bash-git-"))
      const git = (...args: Array<string>) => execFileSync("git", args, { cwd: repo, stdio: ["pipe", "pipe", "ignore"] })
      git("init", "-q")
      git("config", "user.email", "t@example.com")
      git("config", "user.name", "T")
      git("config", "core.pager", "less") // a pager that would wait on a terminal
      // Each commit's parent is the branch tip fast-import holds: no `from` needed.
      const stream = Array.from({ length: 500 }, (_, i) =>
        `commit refs/heads/main\ncommitter T <t@example.com> ${1_700_000_000 + i} +0000\ndata ${`commit ${i}`.length}\ncommit ${i}\n`)
        .join("\n")
      execFileSync("git", ["fast-import", "--quiet"], { cwd: repo, input: stream })
      git("checkout", "-q", "main")
      writeFileSync(join(repo, "file.txt"), "change\n")
      git("add", "file.txt")

      live("`git log` returns all 500 commits without a pager", () =>
        Effect.gen(function*() {
          const result = yield* run("git log --oneline", { cwd: repo })
          assert.strictEqual(result.reason, "exit")
          assert.strictEqual(result.exitCode, 0)
          assert.strictEqual(result.output.totalLines, 500)
        }))

      live("`git commit` without -m does not wait for an editor", () =>
        Effect.gen(function*() {
          const result = yield* run("git commit", { cwd: repo })
          assert.strictEqual(result.reason, "exit")
          assert.strictEqual(result.exitCode, 1)
          assert.match(result.output.content, /Aborting commit due to empty commit message/)
          rmSync(repo, { recursive: true, force: true })
        }))
    })
  })

  describe("abort and interruption", () => {
    live("the abort signal kills the tree and keeps the output", () =>
      Effect.gen(function*() {
        const controller = new AbortController()
        setTimeout(() => controller.abort(), 300)
        const result = yield* run("echo \"pid $$\"; sleep 100 & echo \"pid $!\"; wait", { abort: controller.signal })
        assert.strictEqual(result.reason, "aborted")
        const pids = pidsIn(result.output.content)
        assert.strictEqual(pids.length, 2)
        assert.deepStrictEqual(yield* survivors(pids), [])
      }))

    live("an abort that happened before the call runs nothing", () =>
      Effect.gen(function*() {
        const controller = new AbortController()
        controller.abort()
        const marker = join(tmpdir(), `bash-abort-${process.pid}`)
        const result = yield* run(`touch ${marker}`, { abort: controller.signal })
        assert.strictEqual(result.reason, "aborted")
        assert.isFalse(existsSync(marker))
      }))

    live("interrupting the fiber kills the process", () =>
      Effect.gen(function*() {
        const pids: Array<number> = []
        // Completed by the first preview that shows the shell's pid: no polling for it.
        const started = yield* Deferred.make<void>()
        const emit = (text: string) =>
          Effect.suspend(() => {
            pids.push(...pidsIn(text))
            return pids.length > 0 ? Deferred.succeed(started, undefined) : Effect.void
          }).pipe(Effect.asVoid)
        const fiber = yield* run("echo \"pid $$\"; sleep 100", { preview: { chars: 100, interval: 20, emit } }).pipe(Effect.forkChild)
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual(yield* survivors(pids), [])
      }))
  })

  describe("results", () => {
    live("a non-zero exit is a result", () =>
      Effect.gen(function*() {
        const result = yield* run("echo out; echo err >&2; exit 3")
        assert.strictEqual(result.exitCode, 3)
        assert.strictEqual(result.reason, "exit")
        assert.strictEqual(result.signal, null)
      }))

    live("a shell killed by a signal reports it", () =>
      Effect.gen(function*() {
        const result = yield* run("kill -KILL $$")
        assert.strictEqual(result.exitCode, null)
        assert.strictEqual(result.signal, "SIGKILL")
      }))

    live("stdout and stderr are interleaved in arrival order", () =>
      Effect.gen(function*() {
        const result = yield* run("echo a; sleep 0.1; echo b >&2; sleep 0.1; echo c")
        assert.strictEqual(result.output.content, "a\nb\nc\n")
      }))

    live("runs in the given directory", () =>
      Effect.gen(function*() {
        const result = yield* run("pwd", { cwd: "/tmp" })
        assert.strictEqual(result.output.content, "/tmp\n")
      }))

    live("a large output is truncated head+tail and spilled byte for byte", () =>
      Effect.gen(function*() {
        const result = yield* run("seq 1 100000")
        assert.isTrue(result.output.truncated)
        assert.strictEqual(result.output.totalLines, 100000)
        const lines = result.output.content.split("\n")
        assert.include(lines, "1")
        assert.include(lines, "100000")
        const spill = yield* SpillStorage.SpillStorage
        const bytes = yield* spill.read(result.output.outputPath!).pipe(Stream.decodeText(), Stream.mkString)
        assert.strictEqual(bytes, Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(""))
      }))

    live("the live preview is throttled and capped", () =>
      Effect.gen(function*() {
        const previews: Array<string> = []
        const result = yield* run("for i in $(seq 1 20); do seq 1 20000; sleep 0.05; done", {
          preview: { chars: 30_000, interval: 250, emit: (text) => Effect.sync(() => previews.push(text)) }
        })
        assert.isAbove(previews.length, 0)
        // Hundreds of chunks, yet at most one preview per 250 ms of the run (+1 for the first, +1 at the end).
        assert.isAtMost(previews.length, Math.floor(result.durationMs / 250) + 2)
        for (const p of previews) assert.isAtMost(p.length, 30_002)
        assert.isTrue(previews.at(-1)!.startsWith("…\n"))
      }))

    if (mode === "spill file") {
      live("the command writes into a pipe that is drained into the spill file", () =>
        Effect.gen(function*() {
          const result = yield* run("test -p /dev/stdout && test -p /dev/stderr && echo pipes")
          assert.strictEqual(result.output.content, "pipes\n")
        }))

      live("without mkfifo the command writes into the spill file itself", () =>
        Effect.gen(function*() {
          const result = yield* run("test -f /dev/stdout && echo file; exit 4", { env: { ...Bash.NON_INTERACTIVE_ENV, PATH: "/nonexistent" } })
          assert.strictEqual(result.output.content, "file\n")
          assert.strictEqual(result.exitCode, 4)
        }))

      live("no FIFO is left beside the spill", () =>
        Effect.gen(function*() {
          const result = yield* run("seq 1 100000")
          const dir = dirname(result.output.outputPath!)
          assert.deepStrictEqual(readdirSync(dir).filter((name) => name.endsWith(".pipe")), [])
        }))
    }

    live("nothing is left behind after a normal run", () =>
      Effect.gen(function*() {
        const result = yield* run("echo \"pid $$\"")
        assert.isFalse(alive(pidsIn(result.output.content)[0]!))
      }))
  })
})
}
