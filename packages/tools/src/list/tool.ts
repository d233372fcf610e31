/**
 * list: a tree view of a directory, without the usual dependency/build/cache directories
 * (`LIST_IGNORES`), the caller's `ignore` globs and `.gitignore`d files; hidden files are shown.
 *
 * At most 100 files are shown, chosen shallowest first (then by path) over the whole tree with a
 * bounded heap, so the top of the tree is always visible; every top-level directory is listed,
 * with the number of its files that are not shown. A notice says how many files were left out.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as z from "zod"
import { Ripgrep, Tool } from "@agent-tools/core"
import { listing, plural, requestsOf, resolveRoot, searchError, type Services, SkippedPaths } from "../internal/search/common.ts"
import { LIST_LIMIT } from "../internal/limits.ts"
import { LIST } from "./description.ts"
import { TopK } from "../internal/search/topk.ts"

const parameters = z.lazy(() =>
  z.object({
    path: z.string().optional().describe(
      "The directory to list (absolute, or relative to the workspace root). Omit it to list the workspace root."
    ),
    ignore: z.array(z.string()).optional().describe("List of glob patterns to ignore")
  })
)

/** Directory (trailing "/") and file names the list tool leaves out, as opencode's ls does. */
export const LIST_IGNORES = [
  "node_modules/", "__pycache__/", ".git/", "dist/", "build/", "target/", "vendor/", "bin/", "obj/", ".idea/", ".vscode/",
  ".zig-cache/", "zig-out", ".coverage", "coverage/", "tmp/", "temp/", ".cache/", "cache/", "logs/", ".venv/", "venv/", "env/"
]

const MAX_TOP_LEVEL = 1000

interface Entry {
  readonly path: string
  readonly depth: number
}

const shallowestFirst = (a: Entry, b: Entry) => a.depth - b.depth || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

interface Node {
  readonly dirs: Map<string, Node>
  readonly files: Array<string>
}

const node = (): Node => ({ dirs: new Map(), files: [] })
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Renders `root/` and its tree: directories first, then files, each sorted; two spaces a level. */
export const renderTree = (
  root: string,
  files: ReadonlyArray<string>,
  topLevel: ReadonlyMap<string, number>
): string => {
  const tree = node()
  for (const file of files) {
    const parts = file.split("/")
    let at = tree
    for (const dir of parts.slice(0, -1)) {
      let next = at.dirs.get(dir)
      if (next === undefined) at.dirs.set(dir, next = node())
      at = next
    }
    at.files.push(parts[parts.length - 1]!)
  }
  for (const dir of topLevel.keys()) if (!tree.dirs.has(dir)) tree.dirs.set(dir, node())
  const shownUnder = (n: Node): number => n.files.length + [...n.dirs.values()].reduce((s, d) => s + shownUnder(d), 0)
  const lines = [`${root.endsWith("/") ? root : `${root}/`}`]
  const render = (n: Node, depth: number) => {
    const indent = "  ".repeat(depth + 1)
    for (const name of [...n.dirs.keys()].sort(byName)) {
      const child = n.dirs.get(name)!
      const total = depth === 0 ? topLevel.get(name) : undefined
      const hidden = total === undefined ? 0 : total - shownUnder(child)
      lines.push(`${indent}${name}/${hidden > 0 ? ` (${plural(hidden, "file")} not shown)` : ""}`)
      render(child, depth + 1)
    }
    for (const file of [...n.files].sort(byName)) lines.push(`${indent}${file}`)
  }
  render(tree, 0)
  return lines.join("\n")
}

export const ListTool = Tool.define(
  "list",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const rg = yield* Ripgrep.Ripgrep

    /** The listed directory and the call's permission requests. */
    const prepare = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      const root = yield* resolveRoot("list", args.path, { directoryOnly: true })
      const requests = requestsOf(root, { permission: "list", patterns: [root.real], always: ["*"], metadata: { path: root.real } })
      return { root, requests }
    }, Effect.provideContext(services))

    // The run takes over what the call's plan prepared (a run without a plan prepares its own).
    type Prepared = Effect.Success<ReturnType<typeof prepare>>
    const execute = Effect.fn("ListTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context, planned?: Prepared) {
      const { root, requests } = planned ?? (yield* prepare(args))
      yield* ctx.askAll(requests)
      const glob = [...LIST_IGNORES.map((p) => `!${p}`), ...(args.ignore ?? []).map((p) => `!${p.replace(/^!/, "")}`)]
      const top = new TopK<Entry>(LIST_LIMIT, shallowestFirst)
      const topLevel = new Map<string, number>()
      const skipped = new SkippedPaths()
      yield* rg.files({ cwd: root.real, glob, hidden: true }).pipe(
        Stream.runForEach((e) =>
          Effect.sync(() => {
            if (e._tag === "Skipped") return skipped.add(e.path)
            const slash = e.path.indexOf("/")
            if (slash !== -1) {
              const dir = e.path.slice(0, slash)
              if (topLevel.has(dir) || topLevel.size < MAX_TOP_LEVEL) topLevel.set(dir, (topLevel.get(dir) ?? 0) + 1)
            }
            top.offer({ path: e.path, depth: e.path.split("/").length })
          })
        ),
        Effect.mapError(searchError("list"))
      )
      const total = top.offered
      const truncated = total > top.size
      const lines = [renderTree(root.real, top.sorted().map((e) => e.path), topLevel)]
      if (total === 0) lines.push("  (no files)")
      if (truncated) {
        lines.push(
          "",
          `(Showing ${top.size} of ${total} files, shallowest first; ${total - top.size} more not shown. List a subdirectory with path, or use glob to find files by name.)`
        )
      }
      return listing(root, lines, top, skipped)
    }, Effect.provide(services))

    return {
      description: LIST,
      parameters,
      execute,
      plan: (args: z.output<typeof parameters>) => Effect.map(prepare(args), (p) => ({ requests: p.requests, state: p })),
      annotations: { readOnly: true }
    } satisfies Tool.Def<typeof parameters, Tool.Metadata, Prepared>
  })
)
