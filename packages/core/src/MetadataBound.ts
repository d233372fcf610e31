/**
 * A result's metadata bounded for a front end that sends it on whole: the MCP server's
 * `structuredContent` and the CLI's `--json`. The registry truncates a result's text to the tool's
 * `maxBytes`, but metadata can be as big as the text was (todowrite's whole list, an upstream MCP
 * server's `structuredContent`), and would carry what the truncation cut straight past it.
 *
 * Metadata whose JSON fits `maxBytes` is kept as it is. Otherwise its largest values are replaced,
 * biggest first, by a short marker saying how many bytes were left out and where the full output
 * is (`outputPath`, when the text was spilled), until it fits; small values (`truncated`,
 * `outputPath`, exit codes, titles) are shorter than the marker and so are never replaced. Should
 * the small values alone still not fit, only `truncated`, `outputPath` and `spillError` are kept,
 * beside one marker for the rest.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Tool from "./Tool.ts"
import { ToolRegistry } from "./ToolRegistry.ts"
import { Truncate } from "./Truncate.ts"
import * as Utf8 from "./Utf8.ts"

/** The key of the one marker left when no value-by-value replacement brings the metadata under the limit. */
export const LEFT_OUT_KEY = "[metadata left out]"

/** Keys kept in every case: they say whether and where the full output was kept. */
const ESSENTIAL = ["truncated", "outputPath", "spillError"] as const

const bigints = (_key: string, v: unknown) => typeof v === "bigint" ? v.toString() : v

/** The UTF-8 size of a value's JSON; a value that cannot be serialised (a cycle) counts as unbounded. */
const sizeOf = (value: unknown): number => {
  try {
    return Utf8.byteLength(JSON.stringify(value, bigints) ?? "null")
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/** The text that stands in for a value left out. */
export const marker = (bytes: number, maxBytes: number, outputPath: string | undefined): string =>
  `[left out: ${Number.isFinite(bytes) ? `${bytes} bytes of` : "unserialisable"} metadata, over the ${maxBytes}-byte limit of a result${
    outputPath === undefined ? "" : `; the full output is in ${outputPath}`
  }]`

/** `metadata` with its largest values replaced by markers until its JSON fits `maxBytes`. */
export const bound = (metadata: Record<string, unknown>, maxBytes: number): Record<string, unknown> => {
  let total = sizeOf(metadata)
  if (total <= maxBytes) return metadata
  const outputPath = typeof metadata.outputPath === "string" ? metadata.outputPath : undefined
  const sizes = Object.entries(metadata).map(([key, value]) => ({ key, size: sizeOf(value) }))
  const replaced = new Map<string, string>()
  for (const { key, size } of sizes.toSorted((a, b) => b.size - a.size)) {
    if (total <= maxBytes) break
    if ((ESSENTIAL as ReadonlyArray<string>).includes(key)) continue
    const note = marker(size, maxBytes, outputPath)
    const noteSize = sizeOf(note)
    if (size <= noteSize) break
    replaced.set(key, note)
    total = Number.isFinite(total) && Number.isFinite(size) ? total - size + noteSize : sizeOf({ ...metadata, ...Object.fromEntries(replaced) })
  }
  if (total <= maxBytes) {
    return Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, replaced.has(key) ? replaced.get(key) : value]))
  }
  const kept: Record<string, unknown> = {}
  for (const key of ESSENTIAL) if (key in metadata && sizeOf(metadata[key]) <= maxBytes / 4) kept[key] = metadata[key]
  kept[LEFT_OUT_KEY] = marker(sizeOf(metadata), maxBytes, outputPath)
  return kept
}

/**
 * The byte limit of tool `id`'s result text for a call with `ctx`: the `maxBytes` the registry
 * truncates it to (configuration, the tool's own preference, the call's overrides).
 */
export const maxBytesOf = Effect.fn("MetadataBound.maxBytesOf")(function*(id: string, ctx: Pick<Tool.Context, "truncation">) {
  const registry = yield* ToolRegistry
  const truncate = yield* Truncate
  const tool = Option.getOrUndefined(yield* registry.get(id))
  const own = tool?.truncation
  return truncate.limits({ ...ctx.truncation, tool: tool?.id ?? id, toolDefaults: own === false ? undefined : own }).maxBytes
})
