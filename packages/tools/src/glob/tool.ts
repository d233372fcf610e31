/**
 * glob: the 100 most recently modified files of the WHOLE tree that match a pattern.
 *
 * The pattern is a `filter` (it selects files, it never re-includes ignored ones: as an rg
 * `--glob`, `**\/*` would whitelist node_modules/). Every matching file is listed with its mtime
 * (`Ripgrep.files({ stat: true })`) and offered to a
 * `TopK` heap, so the result is the global newest 100 (not the first 100 found, sorted) with
 * memory bounded by 100 entries however large the tree. `.gitignore` is honoured; hidden entries
 * (`.github/`, `.env.example`) are listed, `.git` never. Pattern forms that usually come back empty are
 * normalised: a leading `./`, and an absolute pattern (its literal directory prefix becomes the
 * search path, asking `external_directory` when it lies outside the workspace). When nothing
 * matches but ignored files would have, the output says so.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Stream from "effect/Stream"
import * as z from "zod"
import { Ripgrep, Tool } from "@agent-tools/core"
import { listing, requestsOf, resolveRoot, searchError, type Services, SkippedPaths } from "../internal/search/common.ts"
import { FILE_LIMIT } from "../internal/limits.ts"
import { GLOB } from "./description.ts"
import { newestFirst, TopK } from "../internal/search/topk.ts"

const parameters = z.lazy(() =>
  z.object({
    pattern: z.string().min(1, "must not be empty: give a glob such as \"**/*.ts\"").describe(
      "The glob pattern to match files against"
    ),
    path: z.string().optional().describe(
      "The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."
    )
  })
)

const IGNORED_PROBE_TIMEOUT = Duration.seconds(2)

/**
 * `./src/*.ts` → `src/*.ts`; `/abs/dir/**\/*.ts` → path `/abs/dir`, pattern `**\/*.ts` (the
 * longest leading run of segments without glob characters is the directory).
 */
export const splitPattern = (pattern: string, path: string | undefined): { readonly pattern: string; readonly path: string | undefined } => {
  let p = pattern.trim()
  while (p.startsWith("./")) p = p.slice(2)
  if (!p.startsWith("/")) return { pattern: p, path }
  const segments = p.split("/")
  let literal = 0
  while (literal < segments.length - 1 && !/[*?[{\\]/.test(segments[literal]!)) literal++
  const dir = segments.slice(0, literal).join("/") || "/"
  return { pattern: segments.slice(literal).join("/"), path: dir }
}

interface Entry {
  readonly path: string
  readonly mtime: number
}

/** An event with its mtime is offered as it is: no copy per file of a large tree. */
const hasMtime = (e: Ripgrep.FileEntry): e is Ripgrep.FileEntry & Entry => e.mtime !== undefined

export const GlobTool = Tool.define(
  "glob",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const rg = yield* Ripgrep.Ripgrep
    const path = yield* Path.Path

    /** Whether ignored files would have matched (bounded: first hit, 2 s). */
    const ignoredMatches = (cwd: string, pattern: string) =>
      Stream.runHead(
        rg.files({ cwd, filter: [pattern], hidden: true, noIgnore: true, limit: 1 }).pipe(Stream.filter((e) => e._tag === "File"))
      ).pipe(
        Effect.timeoutOption(IGNORED_PROBE_TIMEOUT),
        Effect.map((found) => Option.isSome(Option.flatten(found))),
        Effect.orElseSucceed(() => false)
      )

    /** The search root, the pattern under it, and the call's permission requests. */
    const prepare = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      const split = splitPattern(args.pattern, args.path)
      const root = yield* resolveRoot("glob", split.path, { directoryOnly: true })
      const requests = requestsOf(root, {
        permission: "glob",
        patterns: [args.pattern],
        always: ["*"],
        metadata: { pattern: args.pattern, path: args.path }
      })
      return { split, root, requests }
    }, Effect.provideContext(services))

    // The run takes over what the call's plan prepared (a run without a plan prepares its own).
    type Prepared = Effect.Success<ReturnType<typeof prepare>>
    const execute = Effect.fn("GlobTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context, planned?: Prepared) {
      const { split, root, requests } = planned ?? (yield* prepare(args))
      yield* ctx.askAll(requests)
      const pattern = split.pattern === "" ? "**" : split.pattern
      const top = new TopK<Entry>(FILE_LIMIT, newestFirst)
      const skipped = new SkippedPaths()
      yield* rg.files({ cwd: root.real, filter: [pattern], hidden: true, stat: true }).pipe(
        // A chunk at a time: a listing served from the index arrives as one chunk of every file.
        Stream.runForEachArray((events) =>
          Effect.sync(() => {
            for (const e of events) {
              if (e._tag === "Skipped") skipped.add(e.path)
              else top.offer(hasMtime(e) ? e : { path: e.path, mtime: 0 })
            }
          })
        ),
        Effect.mapError(searchError("glob"))
      )
      const total = top.offered
      const truncated = total > top.size
      const lines: Array<string> = []
      if (total === 0) {
        lines.push("No files found")
        if (yield* ignoredMatches(root.real, pattern)) {
          lines.push(
            "",
            "(Files matching this pattern exist but are ignored (.gitignore/.ignore). To list them, pass their directory as the path.)"
          )
        }
      } else {
        for (const entry of top.sorted()) lines.push(path.join(root.real, entry.path))
        if (truncated) {
          lines.push(
            "",
            `(Results are truncated: showing the ${top.size} most recently modified of ${total} matching files. Use a more specific path or pattern.)`
          )
        }
      }
      return listing(root, lines, top, skipped)
    }, Effect.provide(services))

    return { description: GLOB, parameters, execute, plan: (args: z.output<typeof parameters>) => Effect.map(prepare(args), (p) => ({ requests: p.requests, state: p })), annotations: { readOnly: true } } satisfies Tool.Def<typeof parameters, Tool.Metadata, Prepared>
  })
)
