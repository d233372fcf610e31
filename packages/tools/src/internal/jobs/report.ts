/**
 * A job's new output as a tool result: decoded (a terminal's escape sequences removed), filtered
 * by a regular expression over lines when asked, cut to the truncation limits from the end (the
 * latest output matters most; all of it stays in the job's spill, whose path is given), and
 * followed by the job's id and status.
 */
import { Jobs, TerminalText, type Tool, type Truncate } from "@agent-tools/core"

export interface ReportOptions {
  readonly limits: Truncate.Limits
  /** Keeps only the lines this matches (the others are consumed all the same). */
  readonly filter?: RegExp | undefined
  /** The live preview for `metadata.output`, in characters. */
  readonly previewChars?: number | undefined
  /** A sentence on what happened (started, killed…), put before the status. */
  readonly note?: string | undefined
}

/** The last `maxLines` lines and `maxBytes` bytes of `text`; how many lines were left out. */
export const lastWithin = (text: string, maxLines: number, maxBytes: number): { readonly text: string; readonly removedLines: number } => {
  const lines = text.split("\n")
  const trailing = lines.at(-1) === "" ? lines.pop() : undefined
  let kept = lines.slice(-maxLines)
  const encoder = new TextEncoder()
  let bytes = kept.reduce((n, l) => n + encoder.encode(l).length + 1, 0)
  while (kept.length > 1 && bytes > maxBytes) {
    bytes -= encoder.encode(kept[0]!).length + 1
    kept = kept.slice(1)
  }
  const removed = lines.length - kept.length
  let out = kept.join("\n") + (trailing === undefined ? "" : "\n")
  // One line longer than the whole budget: its end.
  if (bytes > maxBytes) out = `…${out.slice(-Math.max(1, Math.floor(maxBytes / 4)))}`
  return { text: out, removedLines: removed }
}

/**
 * How much of the new output's end is decoded when no filter needs every line: a little more than
 * the byte limit (a terminal's a few times more: its escape codes and overwritten lines shrink in
 * the text). A read returns up to the job's whole ring, and a loop of quick reads of a loud job
 * would otherwise make a ring-sized string (or two: a UTF-16 one) and its lines every time.
 */
const window = (read: Jobs.Read, limits: Truncate.Limits, tty: boolean): Uint8Array => {
  const keep = (tty ? 4 : 1) * limits.maxBytes + 8
  if (read.bytes.length <= keep) return read.bytes
  let start = read.bytes.length - keep
  // A character's continuation bytes (10xxxxxx) are not a place to start.
  for (let step = 0; step < 3 && (read.bytes[start]! & 0xc0) === 0x80; step++) start++
  return read.bytes.subarray(start)
}

const decode = (bytes: Uint8Array, tty: boolean) => {
  const text = new TextDecoder().decode(bytes)
  return tty ? TerminalText.plain(text) : text
}

const filtered = (text: string, filter: RegExp | undefined) => {
  if (filter === undefined) return text
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  const kept = lines.filter((l) => filter.test(l))
  return kept.length === 0 ? "" : `${kept.join("\n")}\n`
}

export interface Report {
  readonly output: string
  readonly metadata: Tool.Metadata
}

export const report = (job: Jobs.Job, read: Jobs.Read, options: ReportOptions): Report => {
  const bytes = options.filter === undefined ? window(read, options.limits, job.tty) : read.bytes
  const text = filtered(decode(bytes, job.tty), options.filter)
  const cut = lastWithin(text, options.limits.maxLines, options.limits.maxBytes)
  const truncated = read.omittedBytes > 0 || bytes.length < read.bytes.length || cut.removedLines > 0 || cut.text.length < text.length
  const notes: Array<string> = []
  if (options.note !== undefined) notes.push(options.note)
  notes.push(`Job ${job.id}: ${Jobs.describeStatus(read.status)}.`)
  if (truncated) {
    const omitted = read.omittedBytes > 0 ? `${read.omittedBytes} bytes before this output no longer fitted in memory` : "the start of this output was cut"
    notes.push(
      read.outputPath === undefined
        ? `Only the last of the new output is shown (${omitted}).`
        : `Only the last of the new output is shown (${omitted}); the job's whole output is in ${read.outputPath} (page it with read, or grep it).`
    )
  }
  if (options.filter !== undefined) notes.push(`Only lines matching ${options.filter.source} are shown; the others were consumed too.`)
  const body = cut.text === "" ? "(no new output)" : cut.text
  const output = `${body.replace(/\n$/, "")}\n\n<bash_job>\n${notes.join("\n")}\n</bash_job>`
  const chars = options.previewChars ?? 30_000
  const metadata: Tool.Metadata = {
    id: job.id,
    status: read.status._tag,
    exit: read.status._tag === "exited" ? read.status.code : null,
    signal: read.status._tag === "killed" ? read.status.signal : null,
    ...(read.status._tag === "killed" ? { reason: read.status.reason } : {}),
    output: cut.text.length <= chars ? cut.text : cut.text.slice(-chars),
    totalBytes: read.totalBytes,
    tty: job.tty,
    sandboxed: job.sandboxed,
    truncated
  }
  if (read.outputPath !== undefined) metadata.outputPath = read.outputPath
  return { output, metadata }
}
