/**
 * grep of a spill that lives in a store without files (S3, memory), named by its reference
 * (`s3://bucket/key`): the spill is streamed from the store and searched in this process, block
 * of whole lines by block, with the portable search's JavaScript regex — so only the current block
 * (and the 100 lines shown) is held, whatever the spill's size. The output is grep's usual one,
 * the reference standing where a file path would.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { RipgrepPortable, SpillStorage, Tool } from "@agent-tools/core"
import { format, type Line, preview } from "./tool.ts"
import { searchError, SkippedPaths } from "../internal/search/common.ts"
import { spillFailure } from "../internal/shared/failures.ts"
import { MATCH_LIMIT } from "../internal/limits.ts"

/** Whether `path` is a spill that only its store can read (a file store's spills are files that grep searches). */
export const isStoreSpill = (spill: SpillStorage.SpillStorage["Service"], path: string | undefined): path is string =>
  path !== undefined && spill.directory === undefined && spill.owns(path)

export const grepSpill = Effect.fn("GrepTool.spill")(function*(
  spill: SpillStorage.SpillStorage["Service"],
  ref: string,
  pattern: string
) {
  const regex = yield* RipgrepPortable.compilePattern({ pattern }).pipe(Effect.mapError(searchError("grep")))
  const decoder = new TextDecoder("utf-8")
  const lines: Array<Line> = []
  let total = 0
  let linesBefore = 0
  let pending = ""
  /** Searches `block`, whole lines only, numbered from `linesBefore + 1`. */
  const search = (block: string) => {
    for (const m of RipgrepPortable.searchText(block, regex, ref)) {
      total++
      if (lines.length < MATCH_LIMIT) lines.push({ line: linesBefore + m.line, text: preview(m.text, m.submatches) })
    }
    for (let i = block.indexOf("\n"); i !== -1; i = block.indexOf("\n", i + 1)) linesBefore++
  }
  yield* spill.read(ref).pipe(
    Stream.runForEach((bytes) =>
      Effect.sync(() => {
        const text = pending + decoder.decode(bytes, { stream: true })
        const end = text.lastIndexOf("\n")
        if (end === -1) {
          pending = text
          return
        }
        pending = text.slice(end + 1)
        search(text.slice(0, end + 1))
      })
    ),
    Effect.mapError((e) => spillFailure("grep", e))
  )
  const rest = pending + decoder.decode()
  if (rest !== "") search(rest)
  const shown = lines.length === 0 ? [] : [{ path: ref, mtime: 0, count: total, lines }]
  const { count, output } = format(shown, total, total === 0 ? 0 : 1, (p) => p, new SkippedPaths())
  return {
    title: pattern,
    output,
    metadata: { matches: total, files: total === 0 ? 0 : 1, shown: count, skipped: 0, truncated: total > count }
  } satisfies Tool.Result
})
