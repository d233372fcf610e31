/**
 * codex's patches sent to the shell: models trained on codex call `apply_patch` as a command with
 * the patch in a heredoc (`apply_patch <<'EOF'` … `EOF`, also `applypatch`, the delimiter quoted
 * or not, optionally after `cd DIR &&`). There is no such program; like codex, a bash call that is
 * exactly that one invocation (nothing before or after it) runs as the apply_patch tool: its
 * permission requests, its all-or-nothing apply, its result. Anything else stays a shell command.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Path from "effect/Path"
import { Events, FileTime, Tool, Truncate, Workspace } from "@agent-tools/core"
import * as FileSystem from "effect/FileSystem"
import { ApplyPatchTool } from "./tool.ts"

/** A recognised invocation: the patch text and the directory `cd` named, if any (still quoted as written). */
export interface ShellPatch {
  readonly patchText: string
  readonly cd: string | undefined
}

// One shell word for `cd`: single-quoted, double-quoted without expansions, or plain.
const WORD = `'[^']*'|"[^"\\\\$\`]*"|[^\\s;&|<>'"$\`\\\\()]+`
const INVOCATION = new RegExp(
  `^\\s*(?:cd[ \\t]+(${WORD})[ \\t]*&&[ \\t]*)?(?:apply_patch|applypatch)[ \\t]*<<[ \\t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\\2[ \\t]*\\n` +
    `([\\s\\S]*?)\\n\\3[ \\t]*(?:\\n\\s*)?$`
)

/** The patch a whole bash command hands to `apply_patch` through a heredoc, or undefined. */
export const recognise = (command: string): ShellPatch | undefined => {
  const m = INVOCATION.exec(command)
  if (m === null) return undefined
  const body = m[4]!
  const lines = body.split("\n").map((l) => l.trim())
  if (lines[0] !== "*** Begin Patch" || lines.findLast((l) => l.length > 0) !== "*** End Patch") return undefined
  // `cd ~/x` and `cd -` name directories only the shell knows.
  if (m[1] !== undefined && /^[~-]/.test(m[1])) return undefined
  return { patchText: body, cd: m[1] }
}

const unquote = (word: string): string => (/^(['"]).*\1$/s.test(word) ? word.slice(1, -1) : word)

const FILE_LINE = /^(\*\*\* (?:Add File|Delete File|Update File|Move to): )(.*)$/

/** The patch with its relative file paths made absolute against `base`. */
const rebase = (patchText: string, base: string, path: Path.Path): string =>
  patchText.split("\n").map((line) => {
    const m = FILE_LINE.exec(line)
    if (m === null) return line
    const file = m[2]!.trim()
    return file.length === 0 || path.isAbsolute(file) ? line : m[1]! + path.join(base, file)
  }).join("\n")

type Needs = typeof ApplyPatchTool extends Tool.Definition<string, infer _P, infer R> ? R : never

/** What the bash tool runs instead of the shell for a recognised call. */
export interface PatchCall {
  /** The apply_patch call's plan: its requests (with the diff) and the patch worked out for the run. */
  readonly plan: (ctx: Tool.Context) => Effect.Effect<Tool.Plan, Tool.ExecuteError>
  /** Runs it, taking over `planned` (the plan's state) when given. */
  readonly execute: (ctx: Tool.Context, planned?: unknown) => Effect.Effect<Tool.Result, Tool.ExecuteError>
}

/**
 * Built with the bash tool: the apply_patch tool over the services at hand, or nothing where the
 * file tools' services (FileTime, Events, Path) are not provided (a shell-only set of tools). The
 * returned function gives the call a bash invocation stands for; `cwd` is the bash call's working
 * directory, which relative paths in the patch (and `cd`) are taken against.
 */
export const makeShellPatch = Effect.gen(function*() {
  const context = yield* Effect.context<never>()
  const path = Context.getOrUndefined(context, Path.Path)
  const workspace = Context.getOrUndefined(context, Workspace.Workspace)
  const present = [FileTime.FileTime, Events.Events, FileSystem.FileSystem, Truncate.Truncate].every((key) =>
    Context.getOrUndefined(context, key as Context.Key<unknown, unknown>) !== undefined
  )
  if (!present || path === undefined || workspace === undefined) {
    return (_command: string, _cwd: string): PatchCall | undefined => undefined
  }
  const tool = yield* Tool.build(ApplyPatchTool).pipe(
    Effect.provideContext(context as Context.Context<Needs>)
  )
  return (command: string, cwd: string): PatchCall | undefined => {
    const found = recognise(command)
    if (found === undefined) return undefined
    const base = found.cd === undefined ? cwd : path.resolve(cwd, unquote(found.cd))
    const args = { patchText: base === path.resolve(workspace.root) ? found.patchText : rebase(found.patchText, base, path) }
    return {
      plan: (ctx) => tool.plan(args, ctx),
      execute: (ctx, planned) => tool.run(args, ctx, planned)
    }
  }
})
