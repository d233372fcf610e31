/**
 * write: create a file or replace it whole. An existing file must have been read in this session
 * and be unchanged since (content hash). The replacement keeps what the model cannot see in the
 * read output: the file's encoding, its BOM, and CRLF endings when the file used only CRLF and the
 * new content uses only LF (read shows lines without their CR). A file of any size can be replaced;
 * over the edit size limit the result counts the lines instead of showing the diff.
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { Events, Tool } from "@agent-tools/core"
import { type Change, type Planned, planChange, type Services, transaction } from "../internal/file/common.ts"
import { WRITE } from "./description.ts"
import { diagnosticsAfterChange, THIS_FILE } from "../internal/file/diagnostics.ts"
import { type Decoded, eolStats, encodingLabel, withEol } from "../internal/text.ts"

const UTF8: Pick<Decoded, "encoding" | "bom"> = { encoding: "utf-8", bom: false }

const parameters = z.lazy(() =>
  z.object({
    filePath: z.string().describe("The path of the file to write (absolute, or relative to the workspace root)"),
    content: z.string().describe("The content to write to the file")
  })
)

type Args = z.output<typeof parameters>

/** The file's new content: `content`, in the file's encoding and line endings; the notes say what was kept. */
const replaceWith = (args: Args): Change<Array<string>, never> => ({ decoded }) => {
  if (decoded === undefined) return Effect.succeed({ text: args.content, encoding: UTF8, result: [] })
  let content = args.content
  const encoding = { encoding: decoded.encoding, bom: decoded.bom }
  const notes: Array<string> = []
  if (content.startsWith("\uFEFF") && encoding.bom) content = content.slice(1)
  const old = eolStats(decoded.text)
  const fresh = eolStats(content)
  if (old.crlf > 0 && old.lf === 0 && fresh.crlf === 0 && fresh.lf > 0) {
    content = withEol(content, "\r\n")
    notes.push("kept CRLF line endings")
  }
  if (encoding.encoding !== "utf-8" || encoding.bom) notes.push(`kept ${encodingLabel(encoding)} encoding`)
  return Effect.succeed({ text: content, encoding, result: notes })
}

export const WriteTool = Tool.define(
  "write",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const events = yield* Events.Events
    return {
      description: WRITE,
      parameters,
      annotations: { destructive: true },
      plan: (args: Args) => planChange("write", args, replaceWith(args), { anySize: true }).pipe(Effect.provideContext(services)),
      execute: Effect.fn("WriteTool.execute")(function*(args: Args, ctx: Tool.Context, planned?: Planned<Array<string>>) {
        const done = yield* transaction("write", ctx, args, replaceWith(args), { anySize: true }, planned)
        yield* events.publish({ _tag: "FileEdited", path: done.real, tool: "write", sessionID: ctx.sessionID })
        const notes = done.result
        const diff = done.diff
        const errors = yield* diagnosticsAfterChange([done], THIS_FILE)
        return {
          title: done.shown,
          output: `${done.created ? "Created" : "Wrote"} ${done.shown} (+${diff.additions} −${diff.deletions} lines${
            notes.length > 0 ? `; ${notes.join(", ")}` : ""
          }).${errors}`,
          metadata: {
            filepath: done.real,
            exists: !done.created,
            diff: diff.patch,
            additions: diff.additions,
            deletions: diff.deletions,
            encoding: encodingLabel(done.encoding)
          }
        }
      }, Effect.provideContext(services))
    }
  })
)
