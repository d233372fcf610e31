/**
 * edit: one string replacement in a file, through the replacer cascade (replacers/). Also the
 * runner multiedit uses: the permission requests asked first (as one prompt), then every edit of
 * a call applied in order on the running text inside one file transaction (one read, one atomic
 * write, under the file's lock) — nothing written if any edit fails.
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { Events, Tool } from "@agent-tools/core"
import {
  type Call,
  type Change,
  type Changed,
  type ChangedBytes,
  fail,
  planChange,
  type Planned,
  REBASED_NOTE,
  type Services,
  transaction
} from "../internal/file/common.ts"
import { notFoundMessage, similarNames } from "../internal/file/notFound.ts"
import { editBytes } from "./editBytes.ts"
import { EDIT } from "./description.ts"
import { diagnosticsAfterChange, THIS_FILE } from "../internal/file/diagnostics.ts"
import { applyEdit, type EditOutcome } from "./editText.ts"
import { describe, formatRange, matchedNote, reasonOf } from "./replacers/messages.ts"
import type { LineRange, StrategyName } from "./replacers/index.ts"
import { type Decoded, encodingLabel } from "../internal/text.ts"

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
  readonly lineCompleted?: boolean | undefined
}

export interface EditsResult {
  readonly shown: string
  readonly real: string
  readonly created: boolean
  /** Made on the file's current content, changed elsewhere since the read (see `transaction`). */
  readonly rebased: boolean
  readonly reports: ReadonlyArray<EditReport>
  readonly metadata: Tool.Metadata
}

/** The change of `edits` on the file, in order; `label(i)` prefixes an edit's error (multiedit). */
const editsChange = (
  tool: string,
  edits: ReadonlyArray<EditSpec>,
  label: (index: number) => string
): Change<Array<EditReport>, Services> =>
(current) =>
    Effect.gen(function*() {
      const { shown, real, entry, bytes } = current
      const first = edits[0]!
      if (bytes !== undefined && edits.length === 1 && first.oldString !== "") {
        const quick = editBytes(shown, bytes, first.oldString, first.newString, first.replaceAll ?? false)
        if (quick !== undefined) {
          const { strategy, matches, reindented, unescaped, lineNumbersStripped, lineCompleted } = quick
          return {
            bytes: quick.bytes,
            diff: quick.diff,
            encoding: { encoding: "utf-8", bom: quick.bom },
            result: [{ strategy, matches, replacements: matches.length, reindented, unescaped, lineNumbersStripped, lineCompleted }]
          } satisfies ChangedBytes<Array<EditReport>>
        }
      }
      const decoded = current.decoded
      let text: string
      let encoding: Pick<Decoded, "encoding" | "bom">
      const reports: Array<EditReport> = []
      if (decoded === undefined) {
        if (first.oldString !== "") {
          return yield* fail(tool, "not-found", label(0) + notFoundMessage(shown, yield* similarNames(real)))
        }
        text = first.newString
        encoding = { encoding: "utf-8", bom: false }
        reports.push({ strategy: "create", matches: [], replacements: 0, reindented: false, unescaped: false, lineNumbersStripped: false })
      } else {
        if (entry._tag === "File" && first.oldString === "") {
          return yield* fail(
            tool,
            "invalid",
            label(0) +
              `oldString cannot be empty when editing an existing file (${shown}). Provide the exact text to replace, ` +
              "or use the write tool to replace the whole file."
          )
        }
        text = decoded.text
        encoding = decoded
      }
      let span: EditOutcome["span"] | undefined
      for (let i = reports.length; i < edits.length; i++) {
        const edit = edits[i]!
        const outcome = applyEdit(text, edit.oldString, edit.newString, edit.replaceAll ?? false)
        if (outcome._tag !== "Edited") {
          const why = describe(outcome, shown, text, edit.oldString)
          return yield* fail(tool, reasonOf(outcome), label(i) + why + (edits.length > 1 ? `\nNo changes were written to ${shown}.` : ""))
        }
        text = outcome.text
        // One edit of the file's text knows what it changed; after several, the texts are compared.
        span = i === 0 && edits.length === 1 ? outcome.span : undefined
        reports.push({
          strategy: outcome.strategy,
          matches: outcome.matches,
          replacements: outcome.matches.length,
          reindented: outcome.reindented,
          unescaped: outcome.unescaped,
          lineNumbersStripped: outcome.lineNumbersStripped,
          lineCompleted: outcome.lineCompleted
        })
      }
      return { text, span, encoding: { encoding: encoding.encoding, bom: encoding.bom }, result: reports } satisfies Changed<Array<EditReport>>
    })

/** The plan of an edit call (see `planChange`): the prompt shows its diff, the run reuses it. */
export const planEdits = (tool: string, call: Call, edits: ReadonlyArray<EditSpec>, label: (index: number) => string) =>
  planChange(tool, call, editsChange(tool, edits, label), { rebase: true })

/** Applies `edits` to the call's file all-or-nothing; `label(i)` prefixes an edit's error (multiedit). */
export const runEdits = Effect.fnUntraced(function*(
  tool: string,
  ctx: Tool.Context,
  call: Call,
  edits: ReadonlyArray<EditSpec>,
  label: (index: number) => string,
  planned?: Planned<Array<EditReport>> | undefined
): Effect.fn.Return<EditsResult, Tool.ExecuteError, Services> {
  const done = yield* transaction(tool, ctx, call, editsChange(tool, edits, label), { rebase: true }, planned)
  const reports = done.result
  const last = reports[reports.length - 1]!
  return {
    shown: done.shown,
    real: done.real,
    created: done.created,
    rebased: done.rebased,
    reports,
    metadata: {
      filepath: done.real,
      diff: done.diff.patch,
      filediff: { file: done.shown, additions: done.diff.additions, deletions: done.diff.deletions },
      additions: done.diff.additions,
      deletions: done.diff.deletions,
      encoding: encodingLabel(done.encoding),
      strategy: last.strategy,
      matches: last.matches,
      replacements: last.replacements,
      ...(done.rebased ? { rebased: true } : {})
    }
  } satisfies EditsResult
})

const parameters = z.lazy(() =>
  z.object({
    filePath: z.string().describe("The path of the file to modify (absolute, or relative to the workspace root)"),
    oldString: z.string().describe("The text to replace"),
    newString: z.string().describe("The text to replace it with (must be different from oldString)"),
    replaceAll: z.boolean().optional().describe("Replace all occurrences of oldString (default false)")
  })
)

export const EditTool = Tool.define(
  "edit",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const events = yield* Events.Events
    return {
      description: EDIT,
      parameters,
      annotations: { destructive: true },
      plan: (args: z.output<typeof parameters>) => planEdits("edit", args, [args], () => "").pipe(Effect.provideContext(services)),
      execute: Effect.fn("EditTool.execute")(function*(
        args: z.output<typeof parameters>,
        ctx: Tool.Context,
        planned?: Planned<Array<EditReport>>
      ) {
        if (args.oldString === args.newString) {
          return yield* fail("edit", "invalid", "No changes to apply: oldString and newString are identical.")
        }
        const result = yield* runEdits("edit", ctx, args, [args], () => "", planned)
        yield* events.publish({ _tag: "FileEdited", path: result.real, tool: "edit", sessionID: ctx.sessionID })
        const report = result.reports[0]!
        const output = result.created
          ? `Created ${result.shown}.`
          : `Edit applied successfully${
            report.replacements > 1 ? ` (${report.replacements} replacements)` : ""
          }.${matchedNote(report.strategy, report.matches, report.reindented, report.lineNumbersStripped, report.lineCompleted)}${
            result.rebased ? ` ${REBASED_NOTE}` : ""
          }`
        const errors = yield* diagnosticsAfterChange([result], THIS_FILE)
        return {
          title: result.shown,
          output: output + errors,
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
