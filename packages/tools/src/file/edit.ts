/**
 * edit: one string replacement in a file, through the replacer cascade (replacers/). Also the
 * runner multiedit uses: the permission requests asked first (as one prompt), then every edit of
 * a call applied in order on the running text, one atomic write, all under the file's lock — nothing written if any edit fails.
 */
import { Effect } from "effect"
import { z } from "zod"
import { FileTime, Tool } from "@agent-tools/core"
import {
  assertFresh,
  commit,
  editTarget,
  encodeFor,
  fail,
  loadText,
  notFoundMessage,
  type Services,
  similarNames,
  unifiedDiff
} from "./common.ts"
import { EDIT } from "./descriptions.ts"
import { applyEdit } from "./editText.ts"
import { describeFsError, inspect } from "./files.ts"
import { describe, formatRange, matchedNote } from "./replacers/messages.ts"
import type { LineRange, StrategyName } from "./replacers/index.ts"
import { type Decoded, encodingLabel } from "./text.ts"

export interface EditSpec {
  readonly oldString: string
  readonly newString: string
  readonly replaceAll?: boolean | undefined
}

export interface EditReport {
  readonly strategy: StrategyName | "create"
  readonly matches: ReadonlyArray<LineRange>
  readonly replacements: number
  readonly reindented: boolean
  readonly unescaped: boolean
  readonly lineNumbersStripped: boolean
}

export interface EditsResult {
  readonly shown: string
  readonly real: string
  readonly created: boolean
  readonly reports: ReadonlyArray<EditReport>
  readonly metadata: Tool.Metadata
}

/** Applies `edits` to `filePath` all-or-nothing; `label(i)` prefixes an edit's error (multiedit). */
export const runEdits = Effect.fnUntraced(function*(
  tool: string,
  ctx: Tool.Context,
  filePath: string,
  edits: ReadonlyArray<EditSpec>,
  label: (index: number) => string
): Effect.fn.Return<EditsResult, Tool.ExecuteError, Services> {
  const { real, shown, requests } = yield* editTarget(tool, filePath)
  yield* ctx.askAll(requests)
  const fileTime = yield* FileTime.FileTime
  return yield* fileTime.withLock(
    real,
    Effect.gen(function*() {
      const entry = yield* inspect(real).pipe(
        Effect.mapError((e) => new Tool.ToolError({ tool, message: `Cannot read ${shown}: ${describeFsError(e)}` }))
      )
      const first = edits[0]!
      let before = ""
      let text: string
      let encoding: Pick<Decoded, "encoding" | "bom">
      const reports: Array<EditReport> = []
      if (entry._tag === "Missing") {
        if (first.oldString !== "") {
          return yield* fail(tool, label(0) + notFoundMessage(shown, yield* similarNames(real)))
        }
        text = first.newString
        encoding = { encoding: "utf-8", bom: false }
        reports.push({ strategy: "create", matches: [], replacements: 0, reindented: false, unescaped: false, lineNumbersStripped: false })
      } else {
        if (entry._tag === "File" && first.oldString === "") {
          return yield* fail(
            tool,
            label(0) +
              `oldString cannot be empty when editing an existing file (${shown}). Provide the exact text to replace, ` +
              "or use the write tool to replace the whole file."
          )
        }
        const loaded = yield* loadText(tool, real, shown)
        yield* assertFresh(tool, ctx.sessionID, real)
        before = loaded.decoded.text
        text = before
        encoding = loaded.decoded
      }
      for (let i = reports.length; i < edits.length; i++) {
        const edit = edits[i]!
        const outcome = applyEdit(text, edit.oldString, edit.newString, edit.replaceAll ?? false)
        if (outcome._tag !== "Edited") {
          const why = describe(outcome, shown, text, edit.oldString)
          return yield* fail(tool, label(i) + why + (edits.length > 1 ? `\nNo changes were written to ${shown}.` : ""))
        }
        text = outcome.text
        reports.push({
          strategy: outcome.strategy,
          matches: outcome.matches,
          replacements: outcome.matches.length,
          reindented: outcome.reindented,
          unescaped: outcome.unescaped,
          lineNumbersStripped: outcome.lineNumbersStripped
        })
      }
      const bytes = yield* encodeFor(tool, shown, text, encoding)
      const diff = unifiedDiff(shown, before, text)
      yield* commit(tool, ctx.sessionID, real, bytes, entry)
      const last = reports[reports.length - 1]!
      return {
        shown,
        real,
        created: entry._tag === "Missing",
        reports,
        metadata: {
          filepath: real,
          diff: diff.patch,
          filediff: { file: shown, additions: diff.additions, deletions: diff.deletions },
          additions: diff.additions,
          deletions: diff.deletions,
          encoding: encodingLabel(encoding),
          strategy: last.strategy,
          matches: last.matches,
          replacements: last.replacements
        }
      } satisfies EditsResult
    })
  )
})

const parameters = z.object({
  filePath: z.string().describe("The path of the file to modify (absolute, or relative to the workspace root)"),
  oldString: z.string().describe("The text to replace"),
  newString: z.string().describe("The text to replace it with (must be different from oldString)"),
  replaceAll: z.boolean().optional().describe("Replace all occurrences of oldString (default false)")
})

export const EditTool = Tool.define(
  "edit",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    return {
      description: EDIT,
      parameters,
      annotations: { destructive: true },
      requests: (args: z.output<typeof parameters>) =>
        Effect.map(editTarget("edit", args.filePath), (t) => t.requests).pipe(Effect.provideContext(services)),
      execute: Effect.fn("EditTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context) {
        if (args.oldString === args.newString) {
          return yield* fail("edit", "No changes to apply: oldString and newString are identical.")
        }
        const result = yield* runEdits("edit", ctx, args.filePath, [args], () => "")
        const report = result.reports[0]!
        const output = result.created
          ? `Created ${result.shown}.`
          : `Edit applied successfully${
            report.replacements > 1 ? ` (${report.replacements} replacements)` : ""
          }.${matchedNote(report.strategy, report.matches, report.reindented, report.lineNumbersStripped)}`
        return {
          title: result.shown,
          output,
          metadata: {
            ...result.metadata,
            ...(report.matches.length > 0 ? { matchedLines: report.matches.map(formatRange).join(", ") } : {}),
            reindented: report.reindented,
            unescaped: report.unescaped
          }
        }
      }, Effect.provideContext(services))
    }
  })
)
