/**
 * Where a command's analysis runs. `analyze` is synchronous CPU work (a tree-sitter parse and a
 * walk of the tree): on the thread that serves requests, a big command holds up every other call
 * until its analysis is done. `BashAnalyzer` lets a host run it elsewhere (the Node layer sends
 * big commands to a worker thread); by default it runs in place, on the calling thread.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Analysis, analyzeBounded, type BashAnalysisError, type Options } from "./analysis.ts"
import type { BashParserError, SyncParser } from "./parser.ts"

export interface Analyzer {
  /**
   * Analyses `source`; `parser` loads the in-thread parser, for an analyzer that needs it. A
   * command over the size or nesting bounds fails with BashAnalysisError, wherever it runs.
   */
  readonly analyze: (
    parser: Effect.Effect<SyncParser, BashParserError>,
    source: string,
    options: Options
  ) => Effect.Effect<Analysis, BashParserError | BashAnalysisError>
}

/** On the calling thread. */
export const inPlace: Analyzer = {
  analyze: (parser, source, options) => Effect.flatMap(parser, (p) => analyzeBounded(p, source, options))
}

export const BashAnalyzer = Context.Reference<Analyzer>("@agent-tools/tools/bash/BashAnalyzer", {
  defaultValue: () => inPlace
})

/** Runs the analysis with `analyzer`. */
export const layer = (analyzer: Analyzer): Layer.Layer<never> => Layer.succeed(BashAnalyzer, analyzer)
