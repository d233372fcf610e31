/**
 * Parsing what `rg` prints: NUL- or newline-separated records split without quadratic
 * concatenation, `--json` match messages validated with Schema into `Ripgrep.Match`, and stderr
 * lines sorted into per-path errors (a skipped path) and everything else (a real error).
 */
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Count, Match, Skipped, Submatch } from "../../Ripgrep.ts"

/**
 * Splits a text stream into records ending with `separator` and maps each with `parse`
 * (`undefined` drops it). A final record without a separator is kept.
 */
export const records = <B>(separator: string, parse: (record: string) => B | undefined) =>
<E, R>(self: Stream.Stream<string, E, R>): Stream.Stream<B, E, R> =>
  Stream.mapAccumArray(
    self,
    (): Array<string> => [],
    (pending, chunks) => {
      const out: Array<B> = []
      for (const chunk of chunks) {
        let start = 0
        let at = chunk.indexOf(separator)
        while (at !== -1) {
          let record = chunk.slice(start, at)
          if (pending.length > 0) {
            pending.push(record)
            record = pending.join("")
            pending.length = 0
          }
          const parsed = parse(record)
          if (parsed !== undefined) out.push(parsed)
          start = at + separator.length
          at = chunk.indexOf(separator, start)
        }
        if (start < chunk.length) pending.push(chunk.slice(start))
      }
      return [pending, out] as const
    },
    {
      onHalt: (pending) => {
        if (pending.length === 0) return []
        const parsed = parse(pending.join(""))
        return parsed === undefined ? [] : [parsed]
      }
    }
  )

/** `./a/b` → `a/b`; backslashes become `/` (Windows). */
export const cleanPath = (p: string): string => {
  const slashed = p.includes("\\") ? p.replaceAll("\\", "/") : p
  return slashed.startsWith("./") ? slashed.slice(2) : slashed
}

const Data = Schema.Union([Schema.Struct({ text: Schema.String }), Schema.Struct({ bytes: Schema.String })])
const RgMatch = Schema.Struct({
  type: Schema.Literal("match"),
  data: Schema.Struct({
    path: Data,
    lines: Data,
    line_number: Schema.NullOr(Schema.Number),
    submatches: Schema.Array(Schema.Struct({ start: Schema.Number, end: Schema.Number }))
  })
})
const isRgMatch = Schema.is(RgMatch)

const decoder = new TextDecoder("utf-8")
const fromBase64 = (b64: string): string => {
  const bin = atob(b64)
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  return decoder.decode(bytes)
}
const dataText = (d: { readonly text: string } | { readonly bytes: string }): string =>
  "text" in d ? d.text : fromBase64(d.bytes)

const NON_ASCII = /[^\x00-\x7f]/

/** Converts UTF-8 byte offsets into `text` to UTF-16 indices (identity for ASCII). */
export const byteOffsetsToIndices = (text: string, offsets: ReadonlyArray<number>): Array<number> => {
  if (!NON_ASCII.test(text)) return offsets.slice()
  const sorted = [...new Set(offsets)].sort((a, b) => a - b)
  const map = new Map<number, number>()
  let bytes = 0
  let i = 0
  let k = 0
  while (k < sorted.length) {
    if (bytes >= sorted[k]! || i >= text.length) {
      map.set(sorted[k]!, i)
      k++
      continue
    }
    const code = text.codePointAt(i)!
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    i += code >= 0x10000 ? 2 : 1
  }
  return offsets.map((o) => map.get(o) ?? text.length)
}

const stripTerminator = (line: string): string =>
  line.endsWith("\r\n") ? line.slice(0, -2) : line.endsWith("\n") ? line.slice(0, -1) : line

/**
 * One `rg --json` line → a `Match`, validated with Schema, or `undefined` for the other message
 * types (begin/end/context/summary lines are recognised by their start and skipped unparsed).
 */
export const parseJsonLine = (line: string): Match | undefined => {
  if (!line.startsWith("{\"type\":\"match\"")) {
    if (line.startsWith("{\"type\":\"") || line.startsWith("{\"data\":") || line === "") return undefined
  }
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!isRgMatch(json)) return undefined
  const raw = dataText(json.data.lines)
  const text = stripTerminator(raw)
  const flat = json.data.submatches.flatMap((s) => [s.start, s.end])
  const indices = byteOffsetsToIndices(raw, flat)
  const submatches: Array<Submatch> = []
  for (let i = 0; i < indices.length; i += 2) {
    submatches.push({ start: Math.min(indices[i]!, text.length), end: Math.min(indices[i + 1]!, text.length) })
  }
  return { _tag: "Match", path: cleanPath(dataText(json.data.path)), line: json.data.line_number ?? 0, text, submatches }
}

/**
 * A parser for `rg --count --null --with-filename` lines (`path\0count`), split on "\n": a record
 * without a NUL is part of a path that contains a newline and is joined to the next one.
 */
export const countParser = () => {
  let carry: string | undefined
  return (record: string): Count | undefined => {
    const full = carry === undefined ? record : `${carry}\n${record}`
    const nul = full.lastIndexOf("\0")
    if (nul === -1) {
      carry = full
      return undefined
    }
    carry = undefined
    const count = Number(full.slice(nul + 1))
    return Number.isInteger(count) ? { _tag: "Count", path: cleanPath(full.slice(0, nul)), count } : undefined
  }
}

const OS_ERROR = /^(?:rg: )?(.+?): ((?:[^:]+) \(os error \d+\))$/
const LOOP = /^(?:rg: )?File system loop found: (.+?) points to an ancestor (.+)$/

/** A per-path error line (`./locked: Permission denied (os error 13)`) → `Skipped`. */
export const parseStderrLine = (line: string): Skipped | undefined => {
  const loop = LOOP.exec(line)
  if (loop !== null) {
    return { _tag: "Skipped", path: cleanPath(loop[1]!), reason: `file system loop: points to an ancestor ${cleanPath(loop[2]!)}` }
  }
  const os = OS_ERROR.exec(line)
  if (os !== null) return { _tag: "Skipped", path: cleanPath(os[1]!), reason: os[2]! }
  return undefined
}

/** The regex or glob error in rg's stderr, if that is why it failed. */
export const patternError = (
  stderr: string
): { readonly kind: "regex" | "glob"; readonly reason: string; readonly glob: string } | undefined => {
  const text = stderr.trim()
  if (/regex parse error|error parsing regex|the literal .* is not allowed in a regex/i.test(text)) {
    return { kind: "regex", reason: text.replace(/^rg: /, ""), glob: "" }
  }
  const glob = /error parsing glob '(.*?)': (.*)/.exec(text)
  if (glob !== null) return { kind: "glob", reason: glob[2]!, glob: glob[1]! }
  return undefined
}
