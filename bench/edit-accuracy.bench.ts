/**
 * Edit accuracy on `bench/edit-corpus/cases.json` (realistic model mistakes: indentation drift,
 * trailing spaces, escaped newlines, missing blank lines, a typo or a wrong value in a middle line,
 * elided middles, ambiguous quotes, CRLF files …), for our edit matching and for opencode's cascade
 * (snapshot A and L thresholds), each with its tool's line-ending handling.
 *
 * Per tool:
 * - recall: "apply" cases where the edit landed in the intended lines (and nowhere else);
 * - exact: "apply" cases whose result is byte for byte the intended file;
 * - wrong-region writes: any case where the tool changed lines outside the intended ones (must be 0);
 * - unsafe writes: "refuse" cases (ambiguous, elided or misremembered quotes) where the tool wrote.
 *
 * Run: ./node_modules/.bin/node --expose-gc bench/edit-accuracy.bench.ts
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { applyEdit } from "@agent-tools/tools"
import { replace as opencodeReplace } from "./baseline/opencode-replace.ts"
import { fmt, machine } from "./lib/stats.ts"

const here = dirname(fileURLToPath(import.meta.url))

interface Case {
  readonly id: string
  readonly file: string
  readonly mistake: string
  readonly oldString: string
  readonly newString: string
  readonly expect: "apply" | "refuse"
  readonly target: { readonly startLine: number; readonly endLine: number }
  readonly intended?: { readonly old: string; readonly new: string } | undefined
}

const { cases } = JSON.parse(readFileSync(join(here, "edit-corpus/cases.json"), "utf8")) as { cases: ReadonlyArray<Case> }
const files = new Map<string, string>()
const fileText = (name: string) => {
  if (!files.has(name)) files.set(name, readFileSync(join(here, "edit-corpus/files", name), "utf8"))
  return files.get(name)!
}

type Editor = (content: string, oldString: string, newString: string) => string | Error

const ours: Editor = (content, oldString, newString) => {
  const r = applyEdit(content, oldString, newString, false)
  return r._tag === "Edited" ? r.text : new Error(r._tag)
}

/** opencode's edit tool: both strings converted to the file's ending (CRLF if it has any), then replace(). */
const opencode = (thresholds: "A" | "L"): Editor => (content, oldString, newString) => {
  const ending = content.includes("\r\n") ? "\r\n" : "\n"
  const convert = (s: string) => s.replaceAll("\r\n", "\n").replaceAll("\n", ending)
  try {
    return opencodeReplace(content, convert(oldString), convert(newString), false, { thresholds })
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e))
  }
}

const editors: ReadonlyArray<readonly [string, Editor]> = [
  ["ours", ours],
  ["opencode (snapshot A: 0.0 / 0.3)", opencode("A")],
  ["opencode (snapshot L: 0.65)", opencode("L")]
]

/** The 1-based line range of `before` that differs from `after` (common head and tail cut). */
const changedLines = (before: string, after: string): { readonly first: number; readonly last: number } => {
  const a = before.split("\n")
  const b = after.split("\n")
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  return { first: head + 1, last: a.length - tail }
}

type Outcome = "exact" | "right region" | "wrong region" | "refused" | "unsafe write"

const classify = (c: Case, content: string, result: string | Error): Outcome => {
  if (result instanceof Error) return "refused"
  const { first, last } = changedLines(content, result)
  // An insertion between two lines has last = first - 1; it is inside when it touches the target.
  const inside = first >= c.target.startLine && last <= c.target.endLine
  if (!inside) return "wrong region"
  if (c.expect === "refuse") return "unsafe write"
  const eol = content.includes("\r\n") ? "\r\n" : "\n"
  const expected = content.replace(c.intended!.old.replaceAll("\n", eol), c.intended!.new.replaceAll("\n", eol))
  return result === expected ? "exact" : "right region"
}

const results = editors.map(([name, edit]) => ({
  name,
  outcomes: cases.map((c) => {
    const content = fileText(c.file)
    return { c, outcome: classify(c, content, edit(content, c.oldString, c.newString)) }
  })
}))

const apply = cases.filter((c) => c.expect === "apply").length
const refuse = cases.length - apply
console.log(`${machine()}; ${cases.length} cases (${apply} with one right answer, ${refuse} where any write is unsafe)\n`)
console.log("| matcher | recall (right region) | exact result | wrong-region writes | unsafe writes on refuse cases |")
console.log("|---|---|---|---|---|")
for (const r of results) {
  const count = (o: ReadonlyArray<Outcome>) => r.outcomes.filter((x) => o.includes(x.outcome)).length
  const right = r.outcomes.filter((x) => x.c.expect === "apply" && (x.outcome === "exact" || x.outcome === "right region")).length
  console.log(
    `| ${r.name} | ${right}/${apply} (${fmt((100 * right) / apply, 0)}%) | ${count(["exact"])}/${apply} | ` +
      `${count(["wrong region"])} | ${count(["unsafe write"])}/${refuse} |`
  )
}

const mistakes = [...new Set(cases.map((c) => c.mistake))]
console.log(`\nPer mistake (apply cases: exact / right region of n; refuse cases: writes of n):\n`)
console.log(`| mistake | n | ${results.map((r) => r.name).join(" | ")} |`)
console.log(`|---|---|${results.map(() => "---").join("|")}|`)
for (const m of mistakes) {
  const of = cases.filter((c) => c.mistake === m)
  const cells = results.map((r) => {
    const xs = r.outcomes.filter((x) => x.c.mistake === m)
    const wrong = xs.filter((x) => x.outcome === "wrong region").length
    const tail = wrong > 0 ? `, **${wrong} wrong region**` : ""
    if (of[0]!.expect === "refuse") return `${xs.filter((x) => x.outcome === "unsafe write").length} writes${tail}`
    return `${xs.filter((x) => x.outcome === "exact").length} / ${xs.filter((x) => x.outcome === "exact" || x.outcome === "right region").length}${tail}`
  })
  console.log(`| ${m} | ${of.length} | ${cells.join(" | ")} |`)
}

const wrongOurs = results[0]!.outcomes.filter((x) => x.outcome === "wrong region" || x.outcome === "unsafe write")
if (wrongOurs.length > 0) {
  console.log(`\nours wrote where it must not: ${wrongOurs.map((x) => x.c.id).join(", ")}`)
  process.exitCode = 1
}
