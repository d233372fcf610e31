/**
 * Generates `cases.json`: edits on real files nobody here wrote (TypeScript and tab-indented
 * JavaScript from node_modules, YAML from node_modules and a pnpm lockfile vendored in `yaml/`,
 * Python from the standard library vendored in `python/`), each sent with one mistake models make
 * in the quote, plus negatives whose quote really differs from the file. Regions, edits and mistakes
 * are picked with a seeded PRNG, so the corpus is the same on every run for the same files (their
 * SHA-256 is recorded and checked).
 *
 * A positive case has one right answer: the region with the intended edit, at the file's own
 * indentation and line endings (`expected`). A negative has none: any write is wrong.
 *
 * Run: ./node_modules/.bin/node bench/edit-real/generate.ts
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

import { type Case, type Language, type Mistake, parses, sha256, sourceFile, SOURCES } from "./corpus.ts"

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, "../..")

// ---------------------------------------------------------------------------------------------
// Seeded PRNG (mulberry32)

const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const KEYWORDS = new Set(
  ("if else for while do return const let var function class new this typeof instanceof in of switch case break " +
    "continue default try catch finally throw import export from as async await yield extends super null undefined " +
    "true false void delete with def elif lambda pass raise except not and or is None True False self yield global " +
    "nonlocal assert del type interface enum readonly public private protected static implements declare namespace " +
    "keyof infer never unknown any string number boolean object symbol bigint get set")
    .split(" ")
)

const indentOf = (l: string) => /^[ \t]*/.exec(l)![0]
const blank = (l: string) => l.trim().length === 0
const isComment = (l: string) => /^\s*(\/\/|\/\*|\*|#)/.test(l)
const commentMarker = (lang: Language) => (lang === "ts" || lang === "js" ? "//" : "#")

/** Identifier tokens of a line (outside nothing: strings count too, renaming keeps the syntax). */
const identifiers = (line: string): Array<{ word: string; at: number }> =>
  [...line.matchAll(/(?<![\w$.'"-])[A-Za-z_][A-Za-z0-9_]{2,}(?![\w$])/g)]
    .map((m) => ({ word: m[0], at: m.index }))
    .filter((t) => !KEYWORDS.has(t.word))

interface Edit {
  readonly lines: ReadonlyArray<string>
  /** Old region index → new region index (-1: not kept as is). */
  readonly map: ReadonlyArray<number>
  /** Region lines the edit rewrites. */
  readonly touched: ReadonlySet<number>
}

/** The intended change: rename an identifier on one line, and/or insert a comment (and a blank line). */
const makeEdit = (region: ReadonlyArray<string>, lang: Language, rand: () => number): Edit | undefined => {
  const kind = Math.floor(rand() * 4) // 0 rename, 1 insert comment, 2 both, 3 blank line + rename
  const candidates = region.flatMap((l, i) => (!blank(l) && !isComment(l) && identifiers(l).length > 0 ? [i] : []))
  const out = [...region]
  const touched = new Set<number>()
  let map = region.map((_, i) => i)
  if (kind !== 1) {
    if (candidates.length === 0) return undefined
    const i = candidates[Math.floor(rand() * candidates.length)]!
    const ids = identifiers(region[i]!)
    const t = ids[Math.floor(rand() * ids.length)]!
    out[i] = region[i]!.slice(0, t.at) + t.word + "Next" + region[i]!.slice(t.at + t.word.length)
    touched.add(i)
  }
  if (kind === 1 || kind === 2 || kind === 3) {
    // After line k (never after a line continued with a backslash); indented like the next line.
    const spots = region.flatMap((l, k) => (k < region.length - 1 && !l.trimEnd().endsWith("\\") && !blank(region[k + 1]!) ? [k] : []))
    if (spots.length === 0) return undefined
    const k = spots[Math.floor(rand() * spots.length)]!
    const insert = kind === 3 ? [""] : [indentOf(region[k + 1]!) + `${commentMarker(lang)} edited: keep this in sync`]
    out.splice(k + 1, 0, ...insert)
    map = map.map((n) => (n > k ? n + insert.length : n))
  }
  return { lines: out, map, touched }
}

// ---------------------------------------------------------------------------------------------
// Mistakes on the quote (and, for `newForm: "quote"`, the same on newString)

const unitOf = (lines: ReadonlyArray<string>): string => {
  if (lines.some((l) => indentOf(l).startsWith("\t"))) return "\t"
  const widths = [...new Set(lines.filter((l) => !blank(l)).map((l) => indentOf(l).length))].sort((a, b) => a - b)
  let unit = Infinity
  for (let k = 1; k < widths.length; k++) unit = Math.min(unit, widths[k]! - widths[k - 1]!)
  return " ".repeat(unit === Infinity || unit === 0 ? 2 : Math.min(unit, 4))
}

const minIndent = (lines: ReadonlyArray<string>) =>
  Math.min(...lines.filter((l) => !blank(l)).map((l) => indentOf(l).length))

type Shape = (lines: ReadonlyArray<string>) => Array<string>

const shapes: Partial<Record<Mistake, (region: ReadonlyArray<string>, rand: () => number) => Shape | undefined>> = {
  dedent: (region) => {
    const m = minIndent(region)
    if (m === 0) return undefined
    return (ls) => ls.map((l) => (blank(l) ? l : l.slice(Math.min(m, indentOf(l).length))))
  },
  "indent-deeper": (region) => {
    const unit = unitOf(region)
    return (ls) => ls.map((l) => (blank(l) ? l : unit + l))
  },
  "tabs-as-spaces": (region) => {
    if (!region.some((l) => l.startsWith("\t"))) return undefined
    return (ls) => ls.map((l) => indentOf(l).replaceAll("\t", "    ") + l.trimStart())
  },
  "spaces-as-tabs": (region) => {
    const unit = unitOf(region)
    if (unit === "\t" || !region.some((l) => l.startsWith(unit))) return undefined
    return (ls) => ls.map((l) => indentOf(l).replaceAll(unit, "\t") + l.trimStart())
  },
  "trailing-whitespace": () => (ls) => ls.map((l, i) => (i % 2 === 0 && !blank(l) ? l + "  " : l)),
  "blank-lines-dropped": (region) => {
    if (!region.slice(1, -1).some(blank)) return undefined
    return (ls) => ls.filter((l) => !blank(l))
  }
}

const escapeJson = (s: string) => JSON.stringify(s).slice(1, -1)

// ---------------------------------------------------------------------------------------------

const CASES_PER_SOURCE = 36

const generate = () => {
  const cases: Array<Case> = []
  const files: Array<{ path: string; language: Language; sha256: string }> = []
  SOURCES.forEach((src, s) => {
    const raw = readFileSync(sourceFile(repo, src.path), "utf8")
    files.push({ path: src.path, language: src.language, sha256: sha256(raw) })
    // Regions are picked on the LF view; a CRLF file is edited with its own endings by the bench.
    const text = raw.replaceAll("\r\n", "\n")
    const lines = text.split("\n")
    const rand = prng(1000 + s)
    const code = src.language === "ts" || src.language === "js"
    const fileParses = code && parses(text)
    const unique = (block: string) => text.indexOf(block) === text.lastIndexOf(block)
    // The region's lines, trimmed, occur once (blank lines included, and left out): every mistake
    // below still points at one place.
    const once = (hay: string, needle: string) => hay.indexOf(needle) === hay.lastIndexOf(needle)
    const trimmedText = "\n" + lines.map((l) => l.trim()).join("\n") + "\n"
    const solidText = "\n" + lines.map((l) => l.trim()).filter((l) => l.length > 0).join("\n") + "\n"
    const distinct = (region: ReadonlyArray<string>) =>
      once(trimmedText, "\n" + region.map((l) => l.trim()).join("\n") + "\n") &&
      once(solidText, "\n" + region.map((l) => l.trim()).filter((l) => l.length > 0).join("\n") + "\n")
    let made = 0
    let tries = 0
    const positives: Array<Mistake> = [
      "none", "dedent", "indent-deeper", "tabs-as-spaces", "spaces-as-tabs", "trailing-whitespace", "blank-lines-dropped",
      "blank-line-added", "json-escaped", "line-numbers", "crlf-file"
    ]
    while (made < CASES_PER_SOURCE && tries++ < 20_000) {
      const count = 3 + Math.floor(rand() * 8)
      const start = Math.floor(rand() * (lines.length - count))
      const region = lines.slice(start, start + count)
      if (blank(region[0]!) || blank(region[region.length - 1]!)) continue
      if (region.filter((l) => !blank(l) && !isComment(l)).length < 2) continue
      if (region.some((l) => l.length > 200)) continue
      const block = region.join("\n")
      if (!unique(block) || !distinct(region)) continue
      const want = region.slice(1, -1).some(blank) && rand() < 0.3 ? "blank-lines-dropped" : positives[Math.floor(rand() * positives.length)]!
      const edit = makeEdit(region, src.language, rand)
      if (edit === undefined) continue
      const expectedText = [...lines.slice(0, start), ...edit.lines, ...lines.slice(start + count)].join("\n")
      if (fileParses && !parses(expectedText)) continue
      const id = `${s}-${made}`
      const cases0 = cases.length
      const base = { source: s, negative: false, crlf: false, start, count, expected: edit.lines }
      const both = (mistake: Mistake, shape: Shape) => {
        cases.push({ ...base, id: `${id}-q`, mistake, newForm: "quote", oldString: shape(region).join("\n"), newString: shape(edit.lines).join("\n") })
        cases.push({ ...base, id: `${id}-f`, mistake, newForm: "file", oldString: shape(region).join("\n"), newString: edit.lines.join("\n") })
      }
      switch (want) {
        case "none":
        case "crlf-file":
          cases.push({ ...base, id, mistake: want, newForm: "file", crlf: want === "crlf-file", oldString: block, newString: edit.lines.join("\n") })
          break
        case "json-escaped":
          cases.push({ ...base, id: `${id}-q`, mistake: want, newForm: "quote", oldString: escapeJson(block), newString: escapeJson(edit.lines.join("\n")) })
          cases.push({ ...base, id: `${id}-f`, mistake: want, newForm: "file", oldString: escapeJson(block), newString: edit.lines.join("\n") })
          break
        case "line-numbers":
          cases.push({
            ...base,
            id,
            mistake: want,
            newForm: "file",
            oldString: region.map((l, i) => `${start + i + 1}: ${l}`).join("\n"),
            newString: edit.lines.join("\n")
          })
          break
        case "blank-line-added": {
          if (edit.lines.length > region.length && edit.lines.some((l, n) => blank(l) && !edit.map.includes(n))) continue
          const gaps = region.flatMap((l, k) => (k < region.length - 1 && !blank(l) && !blank(region[k + 1]!) ? [k] : []))
          if (gaps.length === 0) continue
          const k = gaps[Math.floor(rand() * gaps.length)]!
          const quoted = [...region.slice(0, k + 1), "", ...region.slice(k + 1)]
          const after = edit.map[k]!
          const fresh = [...edit.lines.slice(0, after + 1), "", ...edit.lines.slice(after + 1)]
          cases.push({ ...base, id: `${id}-q`, mistake: want, newForm: "quote", oldString: quoted.join("\n"), newString: fresh.join("\n") })
          cases.push({ ...base, id: `${id}-f`, mistake: want, newForm: "file", oldString: quoted.join("\n"), newString: edit.lines.join("\n") })
          break
        }
        case "blank-lines-dropped": {
          if (shapes[want]!(region, rand) === undefined) continue
          // The quote's blank lines are missing from newString too; one the edit adds is not.
          const kept = new Set(edit.map)
          const fresh = edit.lines.filter((l, n) => !(blank(l) && kept.has(n)))
          const quoted = region.filter((l) => !blank(l)).join("\n")
          cases.push({ ...base, id: `${id}-q`, mistake: want, newForm: "quote", oldString: quoted, newString: fresh.join("\n") })
          cases.push({ ...base, id: `${id}-f`, mistake: want, newForm: "file", oldString: quoted, newString: edit.lines.join("\n") })
          break
        }
        default: {
          const shape = shapes[want]!(region, rand)
          if (shape === undefined) continue
          both(want, shape)
        }
      }
      // A distorted quote that is exact text of the file elsewhere is a quote of another place.
      const own = cases.splice(cases0).filter((c) => c.mistake === "none" || c.mistake === "crlf-file" || !text.includes(c.oldString))
      if (own.length === 0) continue
      cases.push(...own)
      made++
      // A negative from the same region every third time: a context line the file does not have.
      if (made % 3 === 0) {
        const context = region.flatMap((l, i) => (!edit.touched.has(i) && !blank(l) ? [i] : []))
        const numbered = context.filter((i) => /\d/.test(region[i]!))
        const named = context.filter((i) => identifiers(region[i]!).some((t) => t.word.length >= 4))
        const useNumber = numbered.length > 0 && rand() < 0.4
        const pool = useNumber ? numbered : named
        if (pool.length === 0) continue
        const i = pool[Math.floor(rand() * pool.length)]!
        const quoted = [...region]
        if (useNumber) {
          quoted[i] = region[i]!.replace(/\d+/, (d) => String(Number(d) + 1))
        } else {
          const t = identifiers(region[i]!).filter((x) => x.word.length >= 4)[0]!
          const other = t.word === "widget" ? "gadget" : "widget"
          quoted[i] = region[i]!.slice(0, t.at) + other + region[i]!.slice(t.at + t.word.length)
        }
        const shape = rand() < 0.5 ? shapes.dedent!(region, rand) ?? ((ls: ReadonlyArray<string>) => [...ls]) : (ls: ReadonlyArray<string>) => [...ls]
        cases.push({
          ...base,
          id: `${id}-n`,
          negative: true,
          mistake: useNumber ? "changed-number" : "changed-identifier",
          newForm: "n/a",
          oldString: shape(quoted).join("\n"),
          newString: shape(edit.lines.map((l, n) => (edit.map.indexOf(n) === i ? quoted[i]! : l))).join("\n"),
          expected: []
        })
      }
    }
    // Negatives: 2-4 line blocks that occur more than once, quoted exactly or dedented.
    let twice = 0
    for (let t = 0; t < 5000 && twice < 6; t++) {
      const count = 2 + Math.floor(rand() * 3)
      const start = Math.floor(rand() * (lines.length - count))
      const region = lines.slice(start, start + count)
      if (region.some(blank) || region.filter((l) => l.trim().length > 3).length < 2) continue
      const block = region.join("\n")
      const first = text.indexOf(block)
      if (first === text.lastIndexOf(block)) continue
      const edit = makeEdit(region, src.language, rand)
      if (edit === undefined) continue
      const shape = twice % 2 === 0 ? (ls: ReadonlyArray<string>) => [...ls] : shapes.dedent!(region, rand) ?? ((ls: ReadonlyArray<string>) => [...ls])
      cases.push({
        id: `${s}-twice-${twice}`,
        source: s,
        mistake: "occurs-twice",
        newForm: "n/a",
        negative: true,
        crlf: false,
        start,
        count,
        oldString: shape(region).join("\n"),
        newString: shape(edit.lines).join("\n"),
        expected: []
      })
      twice++
    }
    cases.push(...laterClasses(s, src.language, text, lines, code && fileParses))
  })
  return { files, cases }
}

// ---------------------------------------------------------------------------------------------
// Classes added later, from a PRNG of their own so the cases above stay as they were: a quote
// cut off inside its last line, typographic quotes, and a bare `...` placeholder in newString.

const LATER_PER_SOURCE = 6
const PLACEHOLDERS = ["...", "…", "[...]", "..."]

/** The text with " and ' as a model retypes them: “ ” and ‘ ’ in turn, ’ inside a word. */
const curly = (s: string): string => {
  let double = 0
  let single = 0
  return s.replace(/["']/g, (q, at: number) => {
    if (q === '"') return double++ % 2 === 0 ? "\u201C" : "\u201D"
    if (/\w/.test(s[at - 1] ?? "") && /\w/.test(s[at + 1] ?? "")) return "\u2019"
    return single++ % 2 === 0 ? "\u2018" : "\u2019"
  })
}

const laterClasses = (s: number, lang: Language, text: string, lines: ReadonlyArray<string>, checkParse: boolean): Array<Case> => {
  const rand = prng(5000 + s)
  const out: Array<Case> = []
  const unique = (block: string) => text.indexOf(block) !== -1 && text.indexOf(block) === text.lastIndexOf(block)
  const kinds = ["cut-off-last-line", "curly-quotes", "placeholder"] as const
  const made = new Map<string, number>(kinds.map((k) => [k, 0]))
  for (let tries = 0; tries < 20_000 && [...made.values()].some((n) => n < LATER_PER_SOURCE / 2); tries++) {
    const count = 4 + Math.floor(rand() * 7)
    const start = Math.floor(rand() * (lines.length - count))
    const region = lines.slice(start, start + count)
    if (blank(region[0]!) || blank(region[region.length - 1]!) || region.some((l) => l.length > 200)) continue
    const block = region.join("\n")
    if (!unique(block)) continue
    const edit = makeEdit(region, lang, rand)
    if (edit === undefined) continue
    if (checkParse && !parses([...lines.slice(0, start), ...edit.lines, ...lines.slice(start + count)].join("\n"))) continue
    const kind = kinds[Math.floor(rand() * kinds.length)]!
    if (made.get(kind)! >= LATER_PER_SOURCE / 2) continue
    const id = `${s}-${kind}-${made.get(kind)}`
    const base = { source: s, negative: false, crlf: false, start, count, expected: edit.lines }
    if (kind === "cut-off-last-line") {
      // Cut after the edit's last change on that line, leaving a tail with something in it.
      const last = region[region.length - 1]!
      const edited = edit.lines[edit.lines.length - 1]!
      let same = 0
      while (same < last.length && same < edited.length && last[last.length - 1 - same] === edited[edited.length - 1 - same]) same++
      const from = Math.max(indentOf(last).length + 1, last.length - same)
      const cuts = Array.from({ length: last.length - from }, (_, k) => from + k).filter((p) => last.slice(p).trim().length > 0)
      if (cuts.length === 0) continue
      const cut = cuts[Math.floor(rand() * cuts.length)]!
      const rest = last.length - cut
      const quoted = block.slice(0, block.length - rest)
      if (!unique(quoted)) continue
      const newText = edit.lines.join("\n")
      out.push({ ...base, id: `${id}-f`, mistake: kind, newForm: "file", oldString: quoted, newString: newText })
      out.push({ ...base, id: `${id}-q`, mistake: kind, newForm: "quote", oldString: quoted, newString: newText.slice(0, newText.length - rest) })
    } else if (kind === "curly-quotes") {
      if (!/["']/.test(block)) continue
      const quoted = curly(block)
      if (text.includes(quoted)) continue
      out.push({ ...base, id: `${id}-q`, mistake: kind, newForm: "quote", oldString: quoted, newString: curly(edit.lines.join("\n")) })
      out.push({ ...base, id: `${id}-f`, mistake: kind, newForm: "file", oldString: quoted, newString: edit.lines.join("\n") })
    } else {
      // Two or more real lines the edit keeps, between the first and the last, become one `...`.
      const inner = edit.lines.flatMap((l, n) => (n > 0 && n < edit.lines.length - 1 && edit.map.includes(n) && !blank(l) && !edit.touched.has(edit.map.indexOf(n)) ? [n] : []))
      const runs = inner.filter((n) => inner.includes(n + 1))
      if (runs.length === 0) continue
      const n = runs[Math.floor(rand() * runs.length)]!
      const form = PLACEHOLDERS[Math.floor(rand() * PLACEHOLDERS.length)]!
      const elided = [...edit.lines.slice(0, n), indentOf(edit.lines[n]!) + form, ...edit.lines.slice(n + 2)]
      out.push({ ...base, id, mistake: kind, newForm: "n/a", negative: true, oldString: block, newString: elided.join("\n"), expected: [] })
    }
    made.set(kind, made.get(kind)! + 1)
  }
  // Negatives: a block that occurs twice, with quotes, quoted with curly quotes.
  for (let t = 0, twice = 0; t < 5000 && twice < 2; t++) {
    const count = 2 + Math.floor(rand() * 3)
    const start = Math.floor(rand() * (lines.length - count))
    const region = lines.slice(start, start + count)
    const block = region.join("\n")
    if (region.some(blank) || !/["']/.test(block) || text.indexOf(block) === text.lastIndexOf(block)) continue
    const edit = makeEdit(region, lang, rand)
    if (edit === undefined) continue
    out.push({
      id: `${s}-curly-twice-${twice++}`,
      source: s,
      mistake: "curly-quotes-twice",
      newForm: "n/a",
      negative: true,
      crlf: false,
      start,
      count,
      oldString: curly(block),
      newString: curly(edit.lines.join("\n")),
      expected: []
    })
  }
  return out
}

const corpus = generate()
writeFileSync(join(here, "cases.json"), JSON.stringify(corpus, null, 1) + "\n")
const by = new Map<string, number>()
for (const c of corpus.cases) by.set(c.mistake, (by.get(c.mistake) ?? 0) + 1)
console.log(`${corpus.cases.length} cases (${corpus.cases.filter((c) => c.negative).length} negatives) over ${corpus.files.length} files`)
console.log([...by].map(([m, n]) => `${m}: ${n}`).join(", "))
