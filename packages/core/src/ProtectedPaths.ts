/**
 * The workspace's control files: files inside the workspace whose content decides what runs
 * outside the sandbox later. Git runs `core.fsmonitor`, hooks and filters from `.git/config` at the
 * user's next `git status` or `git commit`; `agent-tools.json` and `.agent-tools/` configure the
 * agent itself (servers it starts, tools it loads). A command in the sandbox may write the
 * workspace, so without more it could plant code that runs unconfined later.
 *
 * This module is the one list of those paths, read by both sides that guard them:
 * - the sandbox mounts each one that exists read-only over the writable workspace;
 * - the file tools (write, edit, multiedit, apply_patch) always ask before changing one, whatever
 *   the rules allow (`Permission.Item.alwaysAsk`).
 *
 * The list: `DEFAULTS`, the directory the repository's `core.hooksPath` names when it lies in the
 * workspace (read from `.git/config` with a small INI reader: git itself is never run on the
 * workspace's behalf), `.git` itself when it is a file pointing at the git directory, and the
 * configured `sandbox.protectedPaths` (the `ProtectedPaths` reference; none by default).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"

/** Control files every workspace has protected, relative to its root. */
export const DEFAULTS: ReadonlyArray<string> = [
  ".git/config",
  ".git/config.worktree",
  // Names the directory git reads `config` from instead of `.git`.
  ".git/commondir",
  ".git/hooks",
  "agent-tools.json",
  ".agent-tools"
]

export interface Config {
  /** Paths relative to the workspace root protected besides `DEFAULTS` (config `sandbox.protectedPaths`). */
  readonly configured: ReadonlyArray<string>
}

/** The configured extra paths; by default none (the `DEFAULTS` are always protected). */
export const ProtectedPaths = Context.Reference<Config>("@agent-tools/core/ProtectedPaths", {
  defaultValue: () => ({ configured: [] })
})

export const layer = (configured: ReadonlyArray<string>): Layer.Layer<never> => Layer.succeed(ProtectedPaths, { configured })

export interface Resolved {
  /** The workspace root. */
  readonly root: string
  /** Every protected path, relative to the root with `/` separators, whether it exists or not. */
  readonly relative: ReadonlyArray<string>
  /** The real paths of the protected entries that exist inside the workspace, parents first. */
  readonly existing: ReadonlyArray<string>
}

/** Strips a git config value of its quotes and a trailing comment (`"a b" # c` → `a b`). */
const configValue = (raw: string): string => {
  let out = ""
  let quoted = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (c === "\\" && i + 1 < raw.length) {
      const next = raw[++i]!
      out += next === "n" ? "\n" : next === "t" ? "\t" : next
    } else if (c === "\"") quoted = !quoted
    else if (!quoted && (c === "#" || c === ";")) break
    else out += c
  }
  return out.trim()
}

/**
 * `core.hooksPath` of a git config file's text (the last one set), or undefined. Section and key
 * names are case-insensitive; `[core "sub"]` is another section.
 */
export const hooksPath = (text: string): string | undefined => {
  let inCore = false
  let found: string | undefined
  for (const line of text.split(/\r?\n/)) {
    let rest = line.trim()
    const section = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"(?:[^"\\]|\\.)*"\s*)?\]/.exec(rest)
    if (section !== null) {
      inCore = section[1]!.toLowerCase() === "core" && !section[0].includes("\"")
      rest = rest.slice(section[0].length).trim()
      if (rest === "") continue
    }
    if (!inCore) continue
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(rest)
    if (entry === null || entry[1]!.toLowerCase() !== "hookspath") continue
    found = entry[2] === undefined ? undefined : configValue(entry[2])
  }
  return found === "" ? undefined : found
}

const within = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`)

/** The protected paths of the workspace at `root` (an absolute real path), as they are now. */
export const resolve = Effect.fn("ProtectedPaths.resolve")(function*(root: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const { configured } = yield* ProtectedPaths
  const relative = new Set<string>()
  const add = (absolute: string) => {
    const rel = path.relative(root, absolute).split(path.sep).join("/")
    if (rel !== "" && rel !== ".." && !rel.startsWith("../") && !path.isAbsolute(rel)) relative.add(rel)
  }
  for (const rel of [...DEFAULTS, ...configured]) add(path.resolve(root, rel))
  const dotGit = path.join(root, ".git")
  // The file-system steps run at once: this is on every sandboxed call's path.
  // A directory's names, lower-cased: a case-insensitive file system's other spelling still counts.
  const listing = (dir: string) =>
    fs.readDirectory(dir).pipe(Effect.map((names) => new Set(names.map((name) => name.toLowerCase()))), Effect.option)
  const [gitInfo, config, listed, gitListed] = yield* Effect.all([
    fs.stat(dotGit).pipe(Effect.option),
    fs.readFileString(path.join(dotGit, "config")).pipe(Effect.option),
    listing(root),
    listing(dotGit)
  ], { concurrency: "unbounded" })
  // A `.git` file (a worktree or submodule checkout) names the git directory: rewritten, it points git elsewhere.
  if (Option.isSome(gitInfo) && gitInfo.value.type === "File") add(dotGit)
  const hooks = Option.isSome(config) ? hooksPath(config.value) : undefined
  // Relative to the working tree's top (where git runs hooks); `~` paths lie in the home directory.
  if (hooks !== undefined && !hooks.startsWith("~")) {
    const dir = path.resolve(root, hooks)
    add(dir)
    // husky's `_` directory holds stubs that run the scripts of its parent directory.
    if (path.basename(dir) === "_") add(path.dirname(dir))
  }
  // Entries that cannot exist are not looked up (each lookup would fail, with an error made, on
  // every file change): those whose first component the root does not list, and those under
  // `.git/` when `.git` is not a directory or does not list their next component.
  const gitDirectory = Option.isSome(gitInfo) && gitInfo.value.type === "Directory"
  const listedIn = (names: Option.Option<Set<string>>, name: string | undefined) =>
    Option.isNone(names) || name === undefined || names.value.has(name.toLowerCase())
  const present = [...relative].filter((rel) => {
    const parts = rel.split("/")
    if (!listedIn(listed, parts[0])) return false
    return !rel.startsWith(".git/") || (gitDirectory && listedIn(gitListed, parts[1]))
  })
  const reals = yield* Effect.forEach(present, (rel) => fs.realPath(path.join(root, rel)).pipe(Effect.option), { concurrency: "unbounded" })
  const existing = new Set<string>()
  for (const real of reals) {
    if (Option.isSome(real) && within(root, real.value) && real.value !== root) existing.add(real.value)
  }
  const depth = (p: string) => p.split("/").length
  return {
    root,
    relative: [...relative],
    existing: [...existing].sort((a, b) => depth(a) - depth(b))
  } satisfies Resolved
})

/**
 * Whether writing the real path `real` changes a protected entry: it is one, or lies under one
 * (compared case-insensitively, so a case-insensitive file system cannot slip `.GIT/config` by).
 */
export const covers = (resolved: Resolved, real: string): boolean => {
  const fold = (p: string) => p.toLowerCase()
  const target = fold(real)
  return resolved.existing.some((p) => within(fold(p), target)) ||
    resolved.relative.some((rel) => within(fold(`${resolved.root}/${rel}`), target))
}

/** The protected path `real` is covered by (as shown: relative to the root), or undefined. */
export const coveringEntry = (resolved: Resolved, real: string): string | undefined => {
  const target = real.toLowerCase()
  return resolved.relative.find((rel) => within(`${resolved.root}/${rel}`.toLowerCase(), target)) ??
    resolved.existing.find((p) => within(p.toLowerCase(), target))
}

/**
 * The protected entries inside the workspace's `.git` directory that do not exist now: a sandbox
 * cannot mount them read-only (a bind would create them in the host's workspace), so a command
 * could create one — `.git/commondir` alone makes git read its config from elsewhere. Git never
 * needs a command to create these in an existing repository, so the sandbox removes what the call
 * created (`removeCreated`) once its processes are gone.
 */
export const absentGitEntries = Effect.fn("ProtectedPaths.absentGitEntries")(function*(resolved: Resolved) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dotGit = path.join(resolved.root, ".git")
  const info = yield* fs.stat(dotGit).pipe(Effect.option)
  if (Option.isNone(info) || info.value.type !== "Directory") return []
  // Each entry at once: this is on every sandboxed call's path.
  const found = yield* Effect.forEach(
    resolved.relative.filter((rel) => rel.startsWith(".git/")).map((rel) => path.join(resolved.root, rel)),
    (full) =>
      Effect.gen(function*() {
        if (yield* fs.exists(full).pipe(Effect.orElseSucceed(() => true))) return undefined
        // `exists` follows links: a dangling link counts as present (and stays, as it was).
        const link = yield* fs.readLink(full).pipe(Effect.option)
        return Option.isNone(link) ? full : undefined
      }),
    { concurrency: "unbounded" }
  )
  return found.filter((full): full is string => full !== undefined)
})

/** Removes those of `absent` (from `absentGitEntries`) that exist now; returns the removed ones. */
export const removeCreated = Effect.fn("ProtectedPaths.removeCreated")(function*(absent: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const removed: Array<string> = []
  for (const full of absent) {
    const created = (yield* fs.exists(full).pipe(Effect.orElseSucceed(() => false))) ||
      Option.isSome(yield* fs.readLink(full).pipe(Effect.option))
    if (!created) continue
    const done = yield* fs.remove(full, { recursive: true, force: true }).pipe(Effect.result)
    if (done._tag === "Success") removed.push(full)
  }
  return removed
})
