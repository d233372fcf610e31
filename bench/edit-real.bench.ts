/**
 * Edit accuracy on real files (`bench/edit-real/cases.json`, made by `edit-real/generate.ts`):
 * our edit matching (`applyEdit`, the edit tool's matching with its line-ending handling) against
 * opencode's cascade (`baseline/opencode-replace.ts`, snapshot A, with opencode's tool-level
 * line-ending conversion), case by case in the same process.
 *
 * Scores:
 * - faithful recall: positives whose written region equals the intended lines one by one,
 *   indentation included (only the first line's leading whitespace and trailing whitespace may
 *   differ), with nothing outside the region changed;
 * - outside: writes that changed a line outside the quoted region (any case);
 * - negatives applied: writes on a case whose quote differs from the file or is ambiguous;
 * - parse breaks: TypeScript/JavaScript edits whose result no longer parses (the file did).
 *
 * Run: ./node_modules/.bin/node bench/edit-real.bench.ts [--runs=3]
 */
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { applyEdit } from "@agent-tools/tools"
import { replace as opencodeReplace } from "./baseline/opencode-replace.ts"
import { type Case, type Language, parses, sha256, sourceFile } from "./edit-real/corpus.ts"
import { fmt, machine, median } from "./lib/stats.ts"

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, "..")
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.slice(7) ?? 3)

const { files, cases } = JSON.parse(readFileSync(join(here, "edit-real/cases.json"), "utf8")) as {
  files: ReadonlyArray<{ path: string; language: Language; sha256: string }>
  cases: ReadonlyArray<Case>
}

const texts = files.map((f) => {
  const text = readFileSync(sourceFile(repo, f.path), "utf8")
  if (sha256(text) !== f.sha256) {
    throw new Error(`${f.path} is not the file the corpus was generated from: run ./node_modules/.bin/node bench/edit-real/generate.ts`)
  }
  return text
})
const fileParses = files.map((f, i) => (f.language === "ts" || f.language === "js") && parses(texts[i]!))

type Editor = (content: string, oldString: string, newString: string) => string | Error

const ours: Editor = (content, oldString, newString) => {
  const r = applyEdit(content, oldString, newString, false)
  return r._tag === "Edited" ? r.text : new Error(r._tag)
}

/** opencode's edit tool: both strings converted to the file's ending (CRLF if it has any), then replace(). */
const opencode: Editor = (content, oldString, newString) => {
  const ending = content.includes("\r\n") ? "\r\n" : "\n"
  const convert = (s: string) => s.replaceAll("\r\n", "\n").replaceAll("\n", ending)
  try {
    return opencodeReplace(content, convert(oldString), convert(newString), false, { thresholds: "A" })
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e))
  }
}

interface Outcome {
  readonly wrote: boolean
  readonly faithful: boolean
  readonly outside: boolean
  readonly parseBreak: boolean
}

const judge = (c: Case, content: string, result: string | Error): Outcome => {
  if (result instanceof Error || result === content) return { wrote: false, faithful: false, outside: false, parseBreak: false }
  const before = content.split("\n").map((l) => l.replace(/\r$/, ""))
  const after = result.split("\n").map((l) => l.replace(/\r$/, ""))
  let head = 0
  while (head < before.length && head < after.length && before[head] === after[head]) head++
  let tail = 0
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++
  const outside = head < c.start || tail < before.length - (c.start + c.count)
  let faithful = false
  if (!c.negative && !outside) {
    const region = after.slice(c.start, after.length - (before.length - (c.start + c.count)))
    faithful = region.length === c.expected.length &&
      region.every((l, i) => i === 0 ? l.trim() === c.expected[i]!.trim() : l.trimEnd() === c.expected[i]!.trimEnd())
  }
  const parseBreak = fileParses[c.source]! && !parses(result)
  return { wrote: true, faithful, outside, parseBreak }
}

/** The file as the case edits it: CRLF for `crlf` cases (a file that has CRLF already stays as it is). */
const contentOf = (c: Case) => {
  const text = texts[c.source]!
  return c.crlf && !text.includes("\r\n") ? text.replaceAll("\n", "\r\n") : text
}

interface Score {
  readonly faithful: number
  readonly outside: number
  readonly negativesApplied: number
  readonly parseBreaks: number
  readonly perMistake: Map<string, { n: number; ok: number }>
  readonly misses: Array<string>
  readonly ms: Array<number>
}

const score = (edit: Editor): Score => {
  const s: Score = { faithful: 0, outside: 0, negativesApplied: 0, parseBreaks: 0, perMistake: new Map(), misses: [], ms: [] }
  for (const c of cases) {
    const content = contentOf(c)
    const t0 = performance.now()
    const result = edit(content, c.oldString, c.newString)
    s.ms.push(performance.now() - t0)
    const o = judge(c, content, result)
    const key = `${c.mistake}${c.newForm === "n/a" ? "" : ` (newString at ${c.newForm})`}`
    const row = s.perMistake.get(key) ?? { n: 0, ok: 0 }
    row.n++
    if (c.negative ? !o.wrote : o.faithful) row.ok++
    s.perMistake.set(key, row)
    if (o.outside) (s as { outside: number }).outside++
    if (c.negative && o.wrote) (s as { negativesApplied: number }).negativesApplied++
    if (o.parseBreak) (s as { parseBreaks: number }).parseBreaks++
    if (!c.negative && o.faithful) (s as { faithful: number }).faithful++
    if (!c.negative && !o.faithful) s.misses.push(`${c.id} ${c.mistake}/${c.newForm}: ${result instanceof Error ? result.message : "written differently"}`)
  }
  return s
}

const positives = cases.filter((c) => !c.negative).length
const negatives = cases.length - positives
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ")

const totals: Record<"ours" | "opencode", Array<number>> = { ours: [], opencode: [] }
const perCase: Record<"ours" | "opencode", Array<number>> = { ours: [], opencode: [] }
let last: { ours: Score; opencode: Score } | undefined
const loads: Array<string> = []
for (let r = 0; r < runs; r++) {
  loads.push(load())
  const a = score(ours)
  const b = score(opencode)
  totals.ours.push(a.ms.reduce((x, y) => x + y, 0))
  totals.opencode.push(b.ms.reduce((x, y) => x + y, 0))
  perCase.ours.push(median(a.ms))
  perCase.opencode.push(median(b.ms))
  last = { ours: a, opencode: b }
}

const { ours: A, opencode: B } = last!
const pct = (n: number, of: number) => `${n}/${of} (${fmt((100 * n) / of, 1)} %)`
console.log(`${machine()}; ${cases.length} cases on ${files.length} real files (${positives} positives, ${negatives} negatives); ${runs} runs, load average at each run start: ${loads.join(" | ")}\n`)
console.log("| matcher | faithful recall | writes outside the region | negatives applied | parse breaks (TS/JS) | median ms per case (of run medians) | total ms per run (median) |")
console.log("|---|---|---|---|---|---|---|")
for (const [name, s, key] of [["ours", A, "ours"], ["opencode (snapshot A)", B, "opencode"]] as const) {
  console.log(
    `| ${name} | ${pct(s.faithful, positives)} | ${s.outside} | ${s.negativesApplied}/${negatives} | ${s.parseBreaks} | ` +
      `${fmt(median(perCase[key]), 3)} | ${fmt(median(totals[key]), 0)} |`
  )
}
console.log(`\nPer mistake (positives: faithful of n; negatives: refused of n):\n`)
console.log("| mistake | n | ours | opencode (snapshot A) |")
console.log("|---|---|---|---|")
for (const [key, row] of [...A.perMistake].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`| ${key} | ${row.n} | ${row.ok} | ${B.perMistake.get(key)!.ok} |`)
}
if (process.argv.includes("--misses")) console.log(`\nours, not faithful:\n${A.misses.join("\n")}`)
const met = A.faithful / positives >= 0.95 && A.outside === 0 && A.negativesApplied === 0 && A.parseBreaks === 0
console.log(`\ngoals (faithful ≥ 95 %, 0 outside, 0 negatives applied, 0 parse breaks): **${met ? "met" : "NOT met"}**`)
