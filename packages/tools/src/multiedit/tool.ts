/**
 * multiedit: several edits to one file, applied in order on the running text, all or nothing
 * (opencode's multiedit wrote each edit as it went, although its description promised atomicity).
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { Events, Tool } from "@agent-tools/core"
import type { Planned, Services } from "../internal/file/common.ts"
import { fail, REBASED_NOTE } from "../internal/file/common.ts"
import { MULTIEDIT } from "./description.ts"
import { diagnosticsAfterChange, THIS_FILE } from "../internal/file/diagnostics.ts"
import { type EditReport, planEdits, runEdits } from "../edit/tool.ts"
import { formatRange, matchedNote } from "../edit/replacers/messages.ts"

const parameters = z.lazy(() =>
  z.object({
    filePath: z.string().describe("The path of the file to modify (absolute, or relative to the workspace root)"),
    edits: z
      .array(
        z.object({
          oldString: z.string().describe("The text to replace"),
          newString: z.string().describe("The text to replace it with"),
          replaceAll: z.boolean().optional().describe("Replace all occurrences of oldString (default false)")
        })
      )
      .min(1)
      .describe("Edits applied in order, each on the result of the previous one")
  })
)

const labelFor = (n: number) => (i: number) => (n === 1 ? "" : `Edit ${i + 1} of ${n} failed: `)

export const MultiEditTool = Tool.define(
  "multiedit",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const events = yield* Events.Events
    return {
      description: MULTIEDIT,
      parameters,
      annotations: { destructive: true },
      plan: (args: z.output<typeof parameters>) =>
        planEdits("multiedit", args, args.edits, labelFor(args.edits.length)).pipe(Effect.provideContext(services)),
      execute: Effect.fn("MultiEditTool.execute")(function*(
        args: z.output<typeof parameters>,
        ctx: Tool.Context,
        planned?: Planned<Array<EditReport>>
      ) {
        const n = args.edits.length
        const label = labelFor(n)
        const identical = args.edits.findIndex((e) => e.oldString === e.newString)
        if (identical !== -1) {
          return yield* fail("multiedit", "invalid", `${label(identical)}No changes to apply: oldString and newString are identical.`)
        }
        const result = yield* runEdits("multiedit", ctx, args, args.edits, label, planned)
        yield* events.publish({ _tag: "FileEdited", path: result.real, tool: "multiedit", sessionID: ctx.sessionID })
        const notes = result.reports.flatMap((r, i) => {
          if (r.strategy === "create") return [`${i + 1}. created the file`]
          const note = matchedNote(r.strategy, r.matches, r.reindented, r.lineNumbersStripped, r.lineCompleted)
          return note === "" ? [] : [`${i + 1}.${note}`]
        })
        const errors = yield* diagnosticsAfterChange([result], THIS_FILE)
        return {
          title: result.shown,
          output: `Applied ${n} edit${n === 1 ? "" : "s"} to ${result.shown}.` + (result.rebased ? ` ${REBASED_NOTE}` : "") +
            (notes.length > 0 ? `\n${notes.join("\n")}` : "") + errors,
          metadata: {
            ...result.metadata,
            results: result.reports.map((r) => ({
              strategy: r.strategy,
              matchedLines: r.matches.map(formatRange).join(", "),
              replacements: r.replacements,
              reindented: r.reindented
            }))
          }
        }
      }, Effect.provideContext(services))
    }
  })
)
