/**
 * grep: regex search of file contents with the Ripgrep service.
 *
 * Matches are grouped by file and files ordered newest first; at most 100 matches are shown and
 * the total is counted over the whole tree, in two passes with bounded memory:
 * 1. count the matching lines of every file (`Ripgrep.count`, rg `--count`: no match text is
 *    read) and the matching files' mtimes in batches (`Ripgrep.mtimes`), keeping only the newest
 *    files that can still be shown (`NewestFiles`);
 * 2. search just those files again for the lines to show (long lines cut to 2000 characters
 *    around the match).
 * Unreadable paths, and matched files that vanish before their mtime is read, are skipped and
 * counted. Symbolic links are not followed, so a link cannot lead the search out of the workspace.
 * Hidden files are searched (CI configs, `.env.example`), `.git` never; ignore files still apply.
 * A `path` naming a spill of a store without files (`s3://…`) is searched in the store (`grepSpill`).
 */
import * as Effect from "effect/Effect"
import * as Path from "effect/Path"
import * as Stream from "effect/Stream"
import * as z from "zod"
import { Ripgrep, SpillStorage, Tool } from "@agent-tools/core"
import { fail, plural, requestsOf, resolveRoot, searchError, type Services, SkippedPaths } from "../internal/search/common.ts"
import { MATCH_LIMIT, MAX_LINE_LENGTH } from "../internal/limits.ts"
import { GREP } from "./description.ts"
import { grepSpill, isStoreSpill } from "./spill.ts"
import { type FileCount, NewestFiles } from "../internal/search/topk.ts"

const parameters = z.lazy(() =>
  z.object({
    pattern: z.string().describe("The regex pattern to search for in file contents"),
    path: z.string().optional().describe("The directory to search in. Defaults to the current working directory."),
    include: z.string().optional().describe("File pattern to include in the search (e.g. \"*.js\", \"*.{ts,tsx}\")")
  })
)

export interface Line {
  readonly line: number
  readonly text: string
}

export interface Shown extends FileCount {
  readonly lines: ReadonlyArray<Line>
}

/**
 * A line of at most `MAX_LINE_LENGTH` characters: a long line is cut to a window around its first
 * match (minified files), marked with "..." where cut and with the full length.
 */
export const preview = (text: string, submatches: ReadonlyArray<Ripgrep.Submatch>, max = MAX_LINE_LENGTH): string => {
  if (text.length <= max) return text
  const first = submatches[0] ?? { start: 0, end: 0 }
  const start = first.end <= max ? 0 : Math.max(0, Math.min(first.start - Math.floor(max / 4), text.length - max))
  const end = Math.min(text.length, start + max)
  return `${start > 0 ? "..." : ""}${text.slice(start, end)}${end < text.length ? "..." : ""} [line cut: ${text.length} characters]`
}

export const format = (
  shown: ReadonlyArray<Shown>,
  total: number,
  files: number,
  absolute: (path: string) => string,
  skipped: SkippedPaths
): { readonly output: string; readonly count: number } => {
  const notice = skipped.notice()
  const count = shown.reduce((n, f) => n + f.lines.length, 0)
  if (total === 0 || count === 0) return { output: notice === "" ? "No files found" : `No files found\n\n${notice}`, count: 0 }
  const truncated = total > count
  const lines = [`Found ${plural(total, "match", "matches")}${truncated ? ` in ${plural(files, "file")} (showing the first ${count})` : ""}`]
  shown.forEach((file, i) => {
    if (i > 0) lines.push("")
    lines.push(`${absolute(file.path)}:`)
    for (const m of file.lines) lines.push(`  Line ${m.line}: ${m.text}`)
  })
  if (truncated) {
    lines.push(
      "",
      `(Results truncated: showing ${count} of ${total} matches (${total - count} more), newest files first. Use a more specific path, include or pattern to see the rest.)`
    )
  }
  if (notice !== "") lines.push("", notice)
  return { output: lines.join("\n"), count }
}

const grepRequest = (args: z.output<typeof parameters>): Tool.AskInput => ({
  permission: "grep",
  patterns: [args.pattern],
  always: ["*"],
  metadata: { pattern: args.pattern, path: args.path, include: args.include }
})

export const GrepTool = Tool.define(
  "grep",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const rg = yield* Ripgrep.Ripgrep
    const path = yield* Path.Path
    const spill = yield* SpillStorage.SpillStorage

    /** The search root and the call's permission requests. */
    const prepare = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      if (args.pattern === "") return yield* fail("grep", "invalid", "pattern is required")
      // A spill in a store without files: nothing outside the workspace is reached, only grep is asked.
      if (isStoreSpill(spill, args.path)) return { root: undefined, requests: [grepRequest(args)] }
      const root = yield* resolveRoot("grep", args.path, { directoryOnly: false })
      return { root, requests: requestsOf(root, grepRequest(args)) }
    }, Effect.provideContext(services))

    // The run takes over what the call's plan prepared (a run without a plan prepares its own).
    type Prepared = Effect.Success<ReturnType<typeof prepare>>
    const execute = Effect.fn("GrepTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context, planned?: Prepared) {
      const { root, requests } = planned ?? (yield* prepare(args))
      yield* ctx.askAll(requests)
      if (root === undefined) return yield* grepSpill(spill, args.path!, args.pattern)
      const cwd = root.isDirectory ? root.real : path.dirname(root.real)
      const target = root.isDirectory ? undefined : [path.basename(root.real)]
      const skipped = new SkippedPaths()

      // Pass 1: count per file, mtimes in batches, keep the newest files that can be shown.
      const newest = new NewestFiles(MATCH_LIMIT)
      const pending = new Map<string, number>()
      const counted = rg.count({
        cwd,
        pattern: args.pattern,
        filter: args.include === undefined ? undefined : [args.include],
        hidden: true,
        paths: target
      }).pipe(
        Stream.filter((e): e is Ripgrep.Count => {
          if (e._tag === "Skipped") return (skipped.add(e.path), false)
          const before = pending.get(e.path)
          pending.set(e.path, (before ?? 0) + e.count)
          return before === undefined
        }),
        Stream.map((e) => e.path)
      )
      yield* rg.mtimes(cwd, counted).pipe(
        Stream.runForEach((m) =>
          Effect.sync(() => {
            const count = pending.get(m.path)
            if (count === undefined) return
            pending.delete(m.path)
            newest.add({ path: m.path, mtime: m.mtime, count })
          })
        ),
        Effect.mapError(searchError("grep"))
      )
      for (const gone of pending.keys()) skipped.add(gone)

      // Pass 2: the lines to show, from the chosen files only.
      const chosen = newest.shown()
      const lines = new Map<string, Array<Line>>(chosen.map((f) => [f.path, []]))
      const want = new Map(chosen.map((f) => [f.path, f.take]))
      if (chosen.length > 0) {
        yield* rg.search({
          cwd,
          pattern: args.pattern,
          paths: chosen.map((f) => f.path),
          maxCount: Math.max(...chosen.map((f) => f.take))
        }).pipe(
          Stream.runForEach((e) =>
            Effect.sync(() => {
              if (e._tag !== "Match") return
              const got = lines.get(e.path)
              if (got !== undefined && got.length < (want.get(e.path) ?? 0)) got.push({ line: e.line, text: preview(e.text, e.submatches) })
            })
          ),
          Effect.mapError(searchError("grep"))
        )
      }
      const shown = chosen.map((f) => ({ ...f, lines: lines.get(f.path) ?? [] })).filter((f) => f.lines.length > 0)
      const { count, output } = format(shown, newest.total, newest.files, (p) => path.join(cwd, p), skipped)
      return {
        title: args.pattern,
        output,
        metadata: { matches: newest.total, files: newest.files, shown: count, skipped: skipped.count, truncated: newest.total > count }
      }
    }, Effect.provide(services))

    return { description: GREP, parameters, execute, plan: (args: z.output<typeof parameters>) => Effect.map(prepare(args), (p) => ({ requests: p.requests, state: p })), annotations: { readOnly: true } } satisfies Tool.Def<typeof parameters, Tool.Metadata, Prepared>
  })
)
