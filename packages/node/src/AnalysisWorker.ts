/**
 * The bash analysis of big commands on a worker thread, so that analysing one never holds up the
 * other calls a server is serving (the analysis is synchronous CPU work: on the main thread a
 * 50 KB command kept `tools/list` waiting for a second). Commands under `OFFLOAD_CHARS` stay on
 * the calling thread, where they take well under a millisecond and a round trip would cost more.
 * The worker starts on the first big command, holds the process open only while it has work, and
 * ends with the layer. If it cannot start or dies, the analysis runs in place (with a warning).
 */
import { Worker } from "node:worker_threads"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Bash } from "@agent-tools/tools"

/** Commands of at least this many characters are analysed on the worker. */
export const OFFLOAD_CHARS = 4 * 1024

type Reply =
  | { readonly id: number; readonly analysis: Bash.Analysis }
  | { readonly id: number; readonly bound: string }
  | { readonly id: number; readonly error: string }

// The worker entry beside this module: `.ts` when running from sources, `.js` when built.
const entry = new URL(`./internal/analysisWorker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url)

/** A BashAnalyzer that sends big commands to a worker thread; the worker ends with the scope. */
export const make = Effect.gen(function*() {
  let worker: Worker | undefined
  const pending = new Map<number, (reply: Reply) => void>()
  let nextId = 0

  // A worker that failed is forgotten (the next big command starts a new one) and its calls fail over.
  const failAll = (w: Worker, error: string) => {
    if (worker === w) worker = undefined
    for (const [id, resolve] of [...pending]) resolve({ id, error })
  }
  const start = () => {
    const w = new Worker(entry)
    w.unref()
    w.on("message", (reply: Reply) => pending.get(reply.id)?.(reply))
    w.on("error", (e) => failAll(w, `the analysis worker failed: ${e.message}`))
    w.on("exit", (code) => failAll(w, `the analysis worker exited with code ${code}`))
    return w
  }
  yield* Effect.addFinalizer(() =>
    Effect.promise(async () => {
      const w = worker
      worker = undefined
      await w?.terminate()
    }).pipe(Effect.ignore)
  )

  const onWorker = (source: string, options: Bash.AnalysisOptions) =>
    Effect.callback<Bash.Analysis, string | Bash.BashAnalysisError>((resume) => {
      const id = nextId++
      const w = worker ??= start()
      pending.set(id, (reply) => {
        pending.delete(id)
        if (pending.size === 0) w.unref()
        resume(
          "error" in reply
            ? Effect.fail(reply.error)
            : "bound" in reply
            ? Effect.fail(new Bash.BashAnalysisError({ message: reply.bound }))
            : Effect.succeed(reply.analysis)
        )
      })
      w.ref() // the process waits for an answer being computed
      try {
        w.postMessage({ id, source, options })
      } catch (cause) {
        // Options that cannot be copied to a thread: analysed in place instead.
        pending.get(id)?.({ id, error: `the analysis could not be sent to the worker: ${String(cause)}` })
      }
      return Effect.sync(() => {
        pending.delete(id)
        if (pending.size === 0) w.unref()
      })
    })

  const analyzer: Bash.Analyzer = {
    analyze: (parser, source, options) => {
      if (source.length < OFFLOAD_CHARS) return Bash.analyzeInPlace.analyze(parser, source, options)
      // Over the size limit: refused here, never sent.
      const tooLarge = Bash.sizeError(source)
      if (tooLarge !== undefined) return Effect.fail(tooLarge)
      return onWorker(source, options).pipe(
        Effect.catch((error) =>
          typeof error !== "string"
            ? Effect.fail(error)
            : Effect.logWarning(`${error}; analysing on the main thread`).pipe(
              Effect.andThen(Bash.analyzeInPlace.analyze(parser, source, options))
            )
        ),
        Effect.withSpan("AnalysisWorker.analyze")
      )
    }
  }
  return analyzer
})

/** Big bash commands are analysed on a worker thread for as long as the layer lives. */
export const layer: Layer.Layer<never> = Layer.unwrap(Effect.map(make, Bash.analyzerLayer))
