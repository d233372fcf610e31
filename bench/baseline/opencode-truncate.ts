/**
 * A faithful re-implementation of opencode's `Truncate.output` (packages/opencode/src/tool/truncate.ts,
 * snapshot 4bd5a158a), the baseline of `truncate.bench.ts`.
 *
 * Kept as opencode has it, bugs included: `text.split("\n")` of the whole text, a trailing newline
 * counted as an extra line, whole lines only (an oversize single line gives an empty preview), tail
 * built with `unshift`, the full text always written with one `writeFileString`, and the spill id
 * `tool_` + 12 hex of (ms * 4096 + counter) + 14 random base62.
 */
import { Effect, FileSystem, Path } from "effect"

export const MAX_LINES = 2000
export const MAX_BYTES = 50 * 1024

export interface Options {
  readonly maxLines?: number
  readonly maxBytes?: number
  readonly direction?: "head" | "tail"
}

export type Result = { content: string; truncated: false } | { content: string; truncated: true; outputPath: string }

let lastMs = 0
let counter = 0
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** `Identifier.create("tool", "ascending")`: 6 bytes of ms*4096+counter, big-endian hex, then 14 random base62. */
const identifier = (): string => {
  const now = Date.now()
  if (now !== lastMs) {
    lastMs = now
    counter = 0
  }
  counter++
  const value = BigInt(now) * 4096n + BigInt(counter)
  let hex = ""
  for (let i = 5; i >= 0; i--) hex += Number((value >> BigInt(i * 8)) & 0xffn).toString(16).padStart(2, "0")
  let random = ""
  for (const b of globalThis.crypto.getRandomValues(new Uint8Array(14))) random += BASE62[b % 62]
  return `tool_${hex}${random}`
}

/**
 * Steps 1–5 of opencode's algorithm (everything but the spill write and the message): split,
 * count, walk. `undefined` when the text is returned unchanged.
 */
export const plan = (text: string, options: Options = {}) => {
  const maxLines = options.maxLines ?? MAX_LINES
  const maxBytes = options.maxBytes ?? MAX_BYTES
  const direction = options.direction ?? "head"
  const lines = text.split("\n")
  const totalBytes = Buffer.byteLength(text, "utf-8")

  if (lines.length <= maxLines && totalBytes <= maxBytes) return undefined

  const out: Array<string> = []
  let i = 0
  let bytes = 0
  let hitBytes = false

  if (direction === "head") {
    for (i = 0; i < lines.length && i < maxLines; i++) {
      const size = Buffer.byteLength(lines[i]!, "utf-8") + (i > 0 ? 1 : 0)
      if (bytes + size > maxBytes) {
        hitBytes = true
        break
      }
      out.push(lines[i]!)
      bytes += size
    }
  } else {
    for (i = lines.length - 1; i >= 0 && out.length < maxLines; i--) {
      const size = Buffer.byteLength(lines[i]!, "utf-8") + (out.length > 0 ? 1 : 0)
      if (bytes + size > maxBytes) {
        hitBytes = true
        break
      }
      out.unshift(lines[i]!)
      bytes += size
    }
  }

  const removed = hitBytes ? totalBytes - bytes : lines.length - out.length
  const unit = hitBytes ? "bytes" : "lines"
  return { direction, removed, unit, preview: out.join("\n") }
}

/** opencode's `Truncate.output` with its `write` (ensureDir + writeFileString) into `dir`. */
export const output = (dir: string, text: string, options: Options = {}) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const cut = plan(text, options)
    if (cut === undefined) return { content: text, truncated: false } as Result

    yield* fs.makeDirectory(dir, { recursive: true })
    const file = path.join(dir, identifier())
    yield* fs.writeFileString(file, text)

    const hint =
      `The tool call succeeded but the output was truncated. Full output saved to: ${file}\nUse Grep to search the full content or Read with offset/limit to view specific sections.`
    const message = cut.direction === "head"
      ? `${cut.preview}\n\n...${cut.removed} ${cut.unit} truncated...\n\n${hint}`
      : `...${cut.removed} ${cut.unit} truncated...\n\n${hint}\n\n${cut.preview}`

    return { content: message, truncated: true, outputPath: file } as Result
  })
