/**
 * Where the CLI writes: results on stdout, everything else (messages, prompts, live progress) on
 * stderr, so `--json` output and the MCP protocol stay clean.
 */
import * as Effect from "effect/Effect"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import type { Tool } from "@agent-tools/core"

/** Writes text to stderr as is (no newline added): prompts and streamed output. */
export const stderr = (text: string) =>
  Stdio.Stdio.use((stdio) => Stream.make(text).pipe(Stream.run(stdio.stderr()))).pipe(Effect.ignore)

/** Writes text to stdout as is. */
export const stdout = (text: string) =>
  Stdio.Stdio.use((stdio) => Stream.make(text).pipe(Stream.run(stdio.stdout()))).pipe(Effect.ignore)

/** Writes one line to stdout. */
export const line = (text: string) => stdout(text.endsWith("\n") ? text : `${text}\n`)

/** Writes one line to stderr. */
export const errorLine = (text: string) => stderr(text.endsWith("\n") ? text : `${text}\n`)

/** The bytes a `data:…;base64,` URL holds, without decoding it. */
const dataBytes = (url: string) => {
  const comma = url.indexOf(",")
  if (!url.slice(0, comma).endsWith(";base64")) return decodeURIComponent(url.slice(comma + 1)).length
  const data = url.slice(comma + 1)
  return Math.floor(data.length * 3 / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0)
}

/** One line for an attachment a result carries (an image, a PDF): its type, size and name. */
export const attachmentLine = (attachment: Tool.Attachment) =>
  `[attachment: ${attachment.mime}, ${dataBytes(attachment.url)} bytes${
    attachment.filename === undefined ? "" : `, ${attachment.filename}`
  }; --json includes its data]`

/** How much of the printed text is compared when a progress window moves on. */
const OVERLAP = 256

/**
 * What `next` adds to `printed`: the rest after their overlap. `next` either extends `printed`
 * or, for a tool that sends the last N characters, starts somewhere inside it; with no overlap
 * (more arrived than the window holds) all of `next` is new.
 */
export const fresh = (printed: string, next: string): string => {
  if (next.startsWith(printed)) return next.slice(printed.length)
  const tail = printed.slice(-OVERLAP)
  const at = tail === "" ? -1 : next.lastIndexOf(tail)
  if (at !== -1) return next.slice(at + tail.length)
  for (let k = Math.min(tail.length - 1, next.length); k > 0; k--) {
    if (printed.endsWith(next.slice(0, k))) return next.slice(k)
  }
  return next
}

/**
 * A `ctx.metadata` handler that streams a running tool's output to stderr: each update carrying
 * `metadata.output` (the output so far, or its last part, as bash reports it) prints what is new
 * since the last one.
 */
export const liveOutput = Effect.fnUntraced(function*() {
  const stdio = yield* Stdio.Stdio
  let printed = ""
  const write = (text: string) => Stream.make(text).pipe(Stream.run(stdio.stderr()), Effect.ignore)
  const update: Tool.Context["metadata"] = (update) =>
    Effect.suspend(() => {
      const output = update.metadata?.output
      if (typeof output !== "string" || output === printed) return Effect.void
      const text = fresh(printed, output)
      printed = output
      return text === "" ? Effect.void : write(text)
    })
  return {
    update,
    /** Ends the streamed output with a newline if it did not, so later messages start a line. */
    finish: Effect.suspend(() => printed === "" || printed.endsWith("\n") ? Effect.void : write("\n"))
  }
})
