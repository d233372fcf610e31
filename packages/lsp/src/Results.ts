/**
 * Language servers' answers in the shapes `Lsp` promises: a location list from Location,
 * Location[] or LocationLink[]; hover contents as text; document symbols as a tree, from either
 * DocumentSymbol[] or the flat SymbolInformation[].
 */
import type { Lsp } from "@agent-tools/core"
import * as Uri from "./Uri.ts"

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null

export const locations = (result: unknown): ReadonlyArray<Lsp.Location> => {
  const items = Array.isArray(result) ? result : result === null || result === undefined ? [] : [result]
  return items.flatMap((item: unknown) => {
    if (!isObject(item)) return []
    const uri = (item.targetUri ?? item.uri) as string | undefined
    const range = (item.targetSelectionRange ?? item.range) as Lsp.Range | undefined
    const path = uri === undefined ? undefined : Uri.toPath(uri)
    return path === undefined || range === undefined ? [] : [{ path, range }]
  })
}

const markedText = (m: unknown): string =>
  typeof m === "string" ? m : isObject(m) && typeof m.value === "string"
    ? (typeof m.language === "string" ? `\`\`\`${m.language}\n${m.value}\n\`\`\`` : m.value)
    : ""

export const hoverText = (result: unknown): string | undefined => {
  if (!isObject(result)) return undefined
  const contents = result.contents
  const text = (Array.isArray(contents) ? contents.map(markedText).filter((t) => t !== "").join("\n\n") : markedText(contents)).trim()
  return text === "" ? undefined : text
}

export const documentSymbols = (result: unknown): ReadonlyArray<Lsp.DocumentSymbol> => {
  if (!Array.isArray(result)) return []
  const one = (s: Json): Lsp.DocumentSymbol => ({
    name: String(s.name),
    kind: Number(s.kind),
    ...(typeof s.detail === "string" && s.detail !== "" ? { detail: s.detail } : {}),
    // SymbolInformation has no range of its own: its location's.
    range: (s.selectionRange ?? s.range ?? (isObject(s.location) ? s.location.range : undefined)) as Lsp.Range,
    children: Array.isArray(s.children) ? s.children.filter(isObject).map(one) : []
  })
  return result.filter(isObject).map(one)
}
