import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { AnalysisWorker } from "@agent-tools/node"
import { Bash } from "@agent-tools/tools"

const options = { cwd: "/ws/sub", home: "/home/u" }
/** Pads a script past the offload size with a harmless command of many words. */
const big = (script: string) =>
  `${script}\necho ${Array.from({ length: AnalysisWorker.OFFLOAD_CHARS / 4 }, (_, i) => `w${i}`).join(" ")} > /dev/null`

const scripts = [
  big("cd .. && cat ../secret > out.txt; rm -rf build"),
  big("sudo -u x timeout 5 bash -c 'git push origin main' | tee log.txt"),
  big("for f in *.ts; do sed -i s/a/b/ \"$f\"; done; eval \"$CMD\""),
  big("cat <<EOF > notes.md\nhello\nEOF\nfind . -name '*.tmp' -exec rm {} +")
]

const withWorker = <A, E>(f: (analyzer: Bash.Analyzer, parser: Effect.Effect<Bash.SyncParser, Bash.BashParserError>) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const analyzer = yield* AnalysisWorker.make
    const parsers = yield* Bash.BashParser
    return yield* f(analyzer, parsers.parser)
  }).pipe(Effect.scoped, Effect.provide(Bash.parserLayer))

/** How many event-loop turns the calling thread made while `effect` ran. */
const turnsDuring = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    let turns = 0
    let running = true
    const tick = () => {
      if (!running) return
      turns++
      setImmediate(tick)
    }
    setImmediate(tick)
    const result = yield* effect.pipe(Effect.ensuring(Effect.sync(() => void (running = false))))
    return { result, turns }
  })

describe("AnalysisWorker", () => {
  it.live("a big command's analysis on the worker equals the analysis in place", () =>
    withWorker((analyzer, parser) =>
      Effect.gen(function*() {
        for (const script of scripts) {
          assert.isAtLeast(script.length, AnalysisWorker.OFFLOAD_CHARS)
          const inPlace = yield* Bash.analyzeInPlace.analyze(parser, script, options)
          assert.deepStrictEqual(yield* analyzer.analyze(parser, script, options), inPlace)
        }
      })), { timeout: 60_000 })

  it.live("while the worker analyses a big command the calling thread keeps turning; in place it does not", () =>
    withWorker((analyzer, parser) =>
      Effect.gen(function*() {
        const script = big("ls -la")
        yield* analyzer.analyze(parser, "x".repeat(AnalysisWorker.OFFLOAD_CHARS), options) // the worker is up
        // In place the thread is busy from start to end (at most one turn, where the fiber scheduler
        // happens to yield); on the worker it turns freely while the answer is computed.
        const inPlace = yield* turnsDuring(Bash.analyzeInPlace.analyze(parser, script, options))
        assert.isAtMost(inPlace.turns, 1)
        const offloaded = yield* turnsDuring(analyzer.analyze(parser, script, options))
        assert.isAbove(offloaded.turns, 1)
        assert.deepStrictEqual(offloaded.result, inPlace.result)
      })), { timeout: 60_000 })

  it.live("the analysis bounds hold on the worker: nesting and size are the command's errors, not a fallback", () =>
    withWorker((analyzer, parser) =>
      Effect.gen(function*() {
        let deep = "ls"
        for (let i = 0; i < 1000; i++) deep = `echo $(${deep})`
        const logs: Array<string> = []
        const logger = Logger.make(({ message }) => void logs.push(String(message)))
        const nested = yield* Effect.flip(analyzer.analyze(parser, big(deep), options).pipe(Effect.provide(Logger.layer([logger]))))
        assert.strictEqual(nested._tag, "BashAnalysisError")
        assert.match(nested.message, /^The command nests more than 500 levels deep/)
        const large = yield* Effect.flip(analyzer.analyze(parser, `echo ${"x".repeat(Bash.MAX_COMMAND_BYTES)}`, options))
        assert.strictEqual(large._tag, "BashAnalysisError")
        assert.match(large.message, /^The command is 131077 bytes; a command may be at most 131072 bytes \(128 KiB\)/)
        assert.deepStrictEqual(logs, []) // no fallback to the main thread
      })), { timeout: 60_000 })

  it.live("what cannot be sent to the worker is analysed in place, with a warning", () =>
    withWorker((analyzer, parser) =>
      Effect.gen(function*() {
        const script = scripts[0]!
        const odd = { ...options, extra: () => "not copyable" } as typeof options
        const logs: Array<string> = []
        const logger = Logger.make(({ message }) => void logs.push(String(message)))
        const result = yield* analyzer.analyze(parser, script, odd).pipe(Effect.provide(Logger.layer([logger])))
        assert.deepStrictEqual(result, yield* Bash.analyzeInPlace.analyze(parser, script, options))
        assert.strictEqual(logs.length, 1)
        assert.match(logs[0]!, /^the analysis could not be sent to the worker: DataCloneError: .*; analysing on the main thread$/)
      })), { timeout: 60_000 })
})
