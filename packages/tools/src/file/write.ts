/**
 * write: create a file or replace it whole. An existing file must have been read in this session
 * and be unchanged since (content hash). The replacement keeps what the model cannot see in the
 * read output: the file's encoding, its BOM, and CRLF endings when the file used only CRLF and the
 * new content uses only LF (read shows lines without their CR).
 */
import { Effect } from "effect"
import { z } from "zod"
import { FileTime, Tool } from "@agent-tools/core"
import { assertFresh, commit, editTarget, encodeFor, fail, loadText, type Services, unifiedDiff } from "./common.ts"
import { WRITE } from "./descriptions.ts"
import { describeFsError, inspect } from "./files.ts"
import { type Decoded, eolStats, encodingLabel, withEol } from "./text.ts"

const parameters = z.object({
  filePath: z.string().describe("The path of the file to write (absolute, or relative to the workspace root)"),
  content: z.string().describe("The content to write to the file")
})

export const WriteTool = Tool.define(
  "write",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    return {
      description: WRITE,
      parameters,
      annotations: { destructive: true },
      requests: (args: z.output<typeof parameters>) =>
        Effect.map(editTarget("write", args.filePath), (t) => t.requests).pipe(Effect.provideContext(services)),
      execute: Effect.fn("WriteTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context) {
        const { real, shown, requests } = yield* editTarget("write", args.filePath)
        yield* ctx.askAll(requests)
        const fileTime = yield* FileTime.FileTime
        return yield* fileTime.withLock(
          real,
          Effect.gen(function*() {
            const entry = yield* inspect(real).pipe(
              Effect.mapError((e) => new Tool.ToolError({ tool: "write", message: `Cannot read ${shown}: ${describeFsError(e)}` }))
            )
            if (entry._tag === "Directory") return yield* fail("write", `Path is a directory, not a file: ${shown}`)
            let before = ""
            let content = args.content
            let encoding: Pick<Decoded, "encoding" | "bom"> = { encoding: "utf-8", bom: false }
            const notes: Array<string> = []
            if (entry._tag !== "Missing") {
              const loaded = yield* loadText("write", real, shown)
              yield* assertFresh("write", ctx.sessionID, real)
              before = loaded.decoded.text
              encoding = { encoding: loaded.decoded.encoding, bom: loaded.decoded.bom }
              // A BOM typed by the model would be doubled by the encoder.
              if (content.startsWith("\uFEFF") && encoding.bom) content = content.slice(1)
              const old = eolStats(before)
              const fresh = eolStats(content)
              if (old.crlf > 0 && old.lf === 0 && fresh.crlf === 0 && fresh.lf > 0) {
                content = withEol(content, "\r\n")
                notes.push("kept CRLF line endings")
              }
              if (encoding.encoding !== "utf-8" || encoding.bom) notes.push(`kept ${encodingLabel(encoding)} encoding`)
            }
            const bytes = yield* encodeFor("write", shown, content, encoding)
            const diff = unifiedDiff(shown, before, content)
            yield* commit("write", ctx.sessionID, real, bytes, entry)
            const verb = entry._tag === "Missing" ? "Created" : "Wrote"
            return {
              title: shown,
              output: `${verb} ${shown} (+${diff.additions} −${diff.deletions} lines${notes.length > 0 ? `; ${notes.join(", ")}` : ""}).`,
              metadata: {
                filepath: real,
                exists: entry._tag !== "Missing",
                diff: diff.patch,
                additions: diff.additions,
                deletions: diff.deletions,
                encoding: encodingLabel(encoding)
              }
            }
          })
        )
      }, Effect.provideContext(services))
    }
  })
)
