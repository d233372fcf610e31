/**
 * The worker thread of `AnalysisWorker`: loads the bash parser once, then answers each
 * `{ id, source, options }` with `{ id, analysis }`, `{ id, bound }` (the command is nested past the
 * analysis's bound) or `{ id, error }`.
 */
import { parentPort } from "node:worker_threads"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { Bash } from "@agent-tools/tools"
import * as NodeGrammar from "../NodeGrammar.ts"

interface Request {
  readonly id: number
  readonly source: string
  readonly options: Bash.AnalysisOptions
}

const runtime = ManagedRuntime.make(Bash.parserLayer.pipe(Layer.provide(NodeGrammar.layer)))
const parser = runtime.runPromise(Effect.gen(function*() {
  const parsers = yield* Bash.BashParser
  return yield* parsers.parser
}))

parentPort?.on("message", (request: Request) => {
  parser.then(
    (p) => {
      try {
        parentPort?.postMessage({ id: request.id, analysis: Bash.analyze(p, request.source, request.options) })
      } catch (cause) {
        // Past the nesting bound: the command's own error, not a failure of the worker.
        if (cause instanceof Bash.BashAnalysisError) parentPort?.postMessage({ id: request.id, bound: cause.message })
        else parentPort?.postMessage({ id: request.id, error: cause instanceof Error ? cause.message : String(cause) })
      }
    },
    (cause: unknown) => parentPort?.postMessage({ id: request.id, error: cause instanceof Error ? cause.message : String(cause) })
  )
})
