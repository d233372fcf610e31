/**
 * opencode's edit cascade, re-implemented from a written description of its behaviour (snapshot A
 * of `packages/opencode/src/tool/edit.ts`, thresholds 0.0 / 0.3) as the baseline for
 * the edit benchmarks: the nine replacers in opencode's order, its `replace()` loop, its full-matrix
 * Levenshtein. `thresholds: "L"` switches BlockAnchor to snapshot L (0.65 / 0.65 with the size
 * check) and adds L's empty-oldString and disproportionate-match guards.
 *
 * Kept deliberately faithful, slow paths included: it is what we are measured against.
 */

export type Replacer = (content: string, find: string) => Generator<string, void, unknown>

export interface Options {
  readonly thresholds?: "A" | "L" | undefined
}

function levenshtein(a: string, b: string): number {
  if (a === "" || b === "") return Math.max(a.length, b.length)
  const matrix = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      matrix[i]![j] = Math.min(matrix[i - 1]![j]! + 1, matrix[i]![j - 1]! + 1, matrix[i - 1]![j - 1]! + cost)
    }
  }
  return matrix[a.length]![b.length]!
}

const offsetOf = (lines: ReadonlyArray<string>, start: number, end: number) => {
  let from = 0
  for (let k = 0; k < start; k++) from += lines[k]!.length + 1
  let to = from
  for (let k = start; k <= end; k++) {
    to += lines[k]!.length
    if (k < end) to += 1
  }
  return [from, to] as const
}

export const SimpleReplacer: Replacer = function*(_content, find) {
  yield find
}

export const LineTrimmedReplacer: Replacer = function*(content, find) {
  const originalLines = content.split("\n")
  const searchLines = find.split("\n")
  if (searchLines[searchLines.length - 1] === "") searchLines.pop()
  for (let i = 0; i <= originalLines.length - searchLines.length; i++) {
    let matches = true
    for (let j = 0; j < searchLines.length; j++) {
      if (originalLines[i + j]!.trim() !== searchLines[j]!.trim()) {
        matches = false
        break
      }
    }
    if (matches) {
      const [from, to] = offsetOf(originalLines, i, i + searchLines.length - 1)
      yield content.substring(from, to)
    }
  }
}

const blockAnchor = (single: number, multiple: number, sizeCheck: boolean): Replacer =>
  function*(content, find) {
    const originalLines = content.split("\n")
    const searchLines = find.split("\n")
    if (searchLines.length < 3) return
    if (searchLines[searchLines.length - 1] === "") searchLines.pop()
    const first = searchLines[0]!.trim()
    const last = searchLines[searchLines.length - 1]!.trim()
    const searchSize = searchLines.length
    const candidates: Array<{ startLine: number; endLine: number }> = []
    for (let i = 0; i < originalLines.length; i++) {
      if (originalLines[i]!.trim() !== first) continue
      for (let j = i + 2; j < originalLines.length; j++) {
        if (originalLines[j]!.trim() === last) {
          const actual = j - i + 1
          if (!sizeCheck || Math.abs(actual - searchSize) <= Math.max(1, Math.floor(searchSize * 0.25))) {
            candidates.push({ startLine: i, endLine: j })
          }
          break
        }
      }
    }
    if (candidates.length === 0) return
    const score = (c: { startLine: number; endLine: number }, early: boolean) => {
      const actual = c.endLine - c.startLine + 1
      const linesToCheck = Math.min(searchSize - 2, actual - 2)
      if (linesToCheck <= 0) return 1
      let similarity = 0
      for (let j = 1; j < searchSize - 1 && j < actual - 1; j++) {
        const a = originalLines[c.startLine + j]!.trim()
        const b = searchLines[j]!.trim()
        const maxLen = Math.max(a.length, b.length)
        if (maxLen === 0) continue
        const sim = 1 - levenshtein(a, b) / maxLen
        if (early) {
          similarity += sim / linesToCheck
          if (similarity >= single) break
        } else similarity += sim
      }
      return early ? similarity : similarity / linesToCheck
    }
    if (candidates.length === 1) {
      const c = candidates[0]!
      if (score(c, true) >= single) {
        const [from, to] = offsetOf(originalLines, c.startLine, c.endLine)
        yield content.substring(from, to)
      }
      return
    }
    let best: { startLine: number; endLine: number } | undefined
    let max = -1
    for (const c of candidates) {
      const s = score(c, false)
      if (s > max) {
        max = s
        best = c
      }
    }
    if (best !== undefined && max >= multiple) {
      const [from, to] = offsetOf(originalLines, best.startLine, best.endLine)
      yield content.substring(from, to)
    }
  }

export const WhitespaceNormalizedReplacer: Replacer = function*(content, find) {
  const normalize = (text: string) => text.replace(/\s+/g, " ").trim()
  const normalizedFind = normalize(find)
  const lines = content.split("\n")
  for (const line of lines) {
    if (normalize(line) === normalizedFind) {
      yield line
    } else if (normalize(line).includes(normalizedFind)) {
      const words = find.trim().split(/\s+/)
      if (words.length > 0) {
        const pattern = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+")
        try {
          const match = line.match(new RegExp(pattern))
          if (match) yield match[0]
        } catch {
          // invalid pattern: skip
        }
      }
    }
  }
  const findLines = find.split("\n")
  if (findLines.length > 1) {
    for (let i = 0; i <= lines.length - findLines.length; i++) {
      const block = lines.slice(i, i + findLines.length)
      if (normalize(block.join("\n")) === normalizedFind) yield block.join("\n")
    }
  }
}

export const IndentationFlexibleReplacer: Replacer = function*(content, find) {
  const removeIndentation = (text: string) => {
    const lines = text.split("\n")
    const nonEmpty = lines.filter((l) => l.trim().length > 0)
    if (nonEmpty.length === 0) return text
    const minIndent = Math.min(...nonEmpty.map((l) => l.match(/^(\s*)/)?.[1]?.length ?? 0))
    return lines.map((l) => (l.trim().length === 0 ? l : l.slice(minIndent))).join("\n")
  }
  const normalizedFind = removeIndentation(find)
  const contentLines = content.split("\n")
  const findLines = find.split("\n")
  for (let i = 0; i <= contentLines.length - findLines.length; i++) {
    const block = contentLines.slice(i, i + findLines.length).join("\n")
    if (removeIndentation(block) === normalizedFind) yield block
  }
}

const unescapeString = (s: string): string =>
  s.replace(/\\(n|t|r|'|"|`|\\|\n|\$)/g, (match, c: string) => {
    switch (c) {
      case "n":
        return "\n"
      case "t":
        return "\t"
      case "r":
        return "\r"
      case "'":
        return "'"
      case '"':
        return '"'
      case "`":
        return "`"
      case "\\":
        return "\\"
      case "\n":
        return "\n"
      case "$":
        return "$"
      default:
        return match
    }
  })

export const EscapeNormalizedReplacer: Replacer = function*(content, find) {
  const unescaped = unescapeString(find)
  if (content.includes(unescaped)) yield unescaped
  const lines = content.split("\n")
  const findLines = unescaped.split("\n")
  for (let i = 0; i <= lines.length - findLines.length; i++) {
    const block = lines.slice(i, i + findLines.length).join("\n")
    if (unescapeString(block) === unescaped) yield block
  }
}

export const MultiOccurrenceReplacer: Replacer = function*(content, find) {
  let start = 0
  while (true) {
    const index = content.indexOf(find, start)
    if (index === -1) break
    yield find
    start = index + find.length
  }
}

export const TrimmedBoundaryReplacer: Replacer = function*(content, find) {
  const trimmed = find.trim()
  if (trimmed === find) return
  if (content.includes(trimmed)) yield trimmed
  const lines = content.split("\n")
  const findLines = find.split("\n")
  for (let i = 0; i <= lines.length - findLines.length; i++) {
    const block = lines.slice(i, i + findLines.length).join("\n")
    if (block.trim() === trimmed) yield block
  }
}

export const ContextAwareReplacer: Replacer = function*(content, find) {
  const findLines = find.split("\n")
  if (findLines.length < 3) return
  if (findLines[findLines.length - 1] === "") findLines.pop()
  const contentLines = content.split("\n")
  const first = findLines[0]!.trim()
  const last = findLines[findLines.length - 1]!.trim()
  for (let i = 0; i < contentLines.length; i++) {
    if (contentLines[i]!.trim() !== first) continue
    for (let j = i + 2; j < contentLines.length; j++) {
      if (contentLines[j]!.trim() === last) {
        const blockLines = contentLines.slice(i, j + 1)
        if (blockLines.length === findLines.length) {
          let matching = 0
          let total = 0
          for (let k = 1; k < blockLines.length - 1; k++) {
            const a = blockLines[k]!.trim()
            const b = findLines[k]!.trim()
            if (a.length > 0 || b.length > 0) {
              total++
              if (a === b) matching++
            }
          }
          if (total === 0 || matching / total >= 0.5) {
            yield blockLines.join("\n")
            break
          }
        }
        break
      }
    }
  }
}

/** snapshot L's guard: a match much larger than oldString is refused. */
const isDisproportionate = (search: string, old: string): boolean => {
  const o = old.split("\n").length
  const s = search.split("\n").length
  if (s >= Math.max(o + 3, 2 * o)) return true
  if (o === 1) return false
  return search.trim().length > Math.max(old.trim().length + 500, 4 * old.trim().length)
}

/** opencode's `replace`; throws its error messages. */
export function replace(content: string, oldString: string, newString: string, replaceAll = false, options: Options = {}): string {
  const l = options.thresholds === "L"
  if (oldString === newString) throw new Error("No changes to apply: oldString and newString are identical.")
  if (l && oldString === "") throw new Error("oldString cannot be empty when editing an existing file.")
  let notFound = true
  const replacers = [
    SimpleReplacer,
    LineTrimmedReplacer,
    l ? blockAnchor(0.65, 0.65, true) : blockAnchor(0.0, 0.3, false),
    WhitespaceNormalizedReplacer,
    IndentationFlexibleReplacer,
    EscapeNormalizedReplacer,
    TrimmedBoundaryReplacer,
    ContextAwareReplacer,
    MultiOccurrenceReplacer
  ]
  for (const replacer of replacers) {
    for (const search of replacer(content, oldString)) {
      const index = content.indexOf(search)
      if (index === -1) continue
      notFound = false
      if (replaceAll) return content.replaceAll(search, newString)
      if (index !== content.lastIndexOf(search)) continue
      if (l && isDisproportionate(search, oldString)) {
        throw new Error("Refusing replacement because the matched span is much larger than oldString.")
      }
      return content.substring(0, index) + newString + content.substring(index + search.length)
    }
  }
  if (notFound) {
    throw new Error("Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.")
  }
  throw new Error("Found multiple matches for oldString. Provide more surrounding context to make the match unique.")
}
