/**
 * Skill discovery: a skill is a folder holding a `SKILL.md` whose front matter names it and says
 * when to use it:
 *
 *     ---
 *     name: release-notes
 *     description: Write release notes from the git log
 *     ---
 *     (the instructions)
 *
 * Skills are found under the configured directories (`SkillConfig`, relative to the workspace
 * root), at most `MAX_DEPTH` levels down. A SKILL.md without a name or description is skipped
 * with a warning; when two skills share a name, the one found last wins.
 *
 * Skill files are judged by their real path, like `read` judges a path: a SKILL.md (or a skill
 * folder) that is a symbolic link out of its skills directory is only a skill when its target lies
 * inside the workspace, and loading it then asks `read` for that file. A link that leads out of
 * the workspace is skipped with a warning: discovery runs at start, where nothing can be asked,
 * and reading the target would put an outside file's text in the tool's description. A skills
 * directory inside the workspace that is itself a link out of it counts as such a link for every
 * skill in it; a configured directory outside the workspace is the user's and is its own home.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { Workspace } from "@agent-tools/core"

export interface SkillConfig {
  /** Directories searched for skills: absolute, or relative to the workspace root. */
  readonly directories: ReadonlyArray<string>
}

/** Where skills are looked for unless configured. */
export const DEFAULT_DIRECTORIES: ReadonlyArray<string> = [".agent-tools/skills", ".agents/skills", ".claude/skills"]

export const SkillConfig = Context.Reference<SkillConfig>("@agent-tools/tools/SkillConfig", {
  defaultValue: () => ({ directories: DEFAULT_DIRECTORIES })
})

export interface Skill {
  readonly name: string
  readonly description: string
  /** The SKILL.md file, as found under its skills directory. */
  readonly file: string
  /** Its folder. */
  readonly dir: string
  /**
   * The real path of the skills directory it was found in: a file whose real path is outside it
   * is a link out. Undefined when that directory is itself a link out (see `discover`).
   */
  readonly home: string | undefined
}

export const FILE_NAME = "SKILL.md"
/** How deep under a skills directory a SKILL.md is looked for. */
export const MAX_DEPTH = 4
const SKIPPED_DIRS = new Set([".git", "node_modules"])

/** A YAML front matter's plain `key: value` pairs (quotes removed, folded `>`/`|` blocks joined). */
export const frontMatter = (text: string): { readonly fields: Record<string, string>; readonly body: string } | undefined => {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  if (match === null) return undefined
  const fields: Record<string, string> = {}
  let key: string | undefined
  for (const line of match[1]!.split(/\r?\n/)) {
    const pair = /^([A-Za-z0-9_-]+):[ \t]*(.*)$/.exec(line)
    if (pair !== null) {
      key = pair[1]!
      const raw = pair[2]!.trim()
      fields[key] = /^[>|][+-]?$/.test(raw) ? "" : raw.replace(/^(["'])([\s\S]*)\1$/, "$2")
    } else if (key !== undefined && /^\s+\S/.test(line)) {
      fields[key] = fields[key] === "" ? line.trim() : `${fields[key]} ${line.trim()}`
    }
  }
  return { fields, body: text.slice(match[0].length) }
}

/** Every SKILL.md under `dir`, depth-first in name order. */
const findSkillFiles = Effect.fnUntraced(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const found: Array<string> = []
  const walk = (current: string, depth: number): Effect.Effect<void> =>
    Effect.gen(function*() {
      const entries = yield* fs.readDirectoryEntries(current).pipe(Effect.orElseSucceed(() => []))
      for (const entry of [...entries].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) {
        const full = path.join(current, entry.name)
        if (entry.name === FILE_NAME && entry.type !== "Directory") found.push(full)
        else if (depth < MAX_DEPTH && !SKIPPED_DIRS.has(entry.name)) {
          const type = entry.type === "SymbolicLink" || entry.type === "Unknown"
            ? yield* fs.stat(full).pipe(Effect.map((s) => s.type), Effect.orElseSucceed(() => "Unknown" as const))
            : entry.type
          if (type === "Directory") yield* walk(full, depth + 1)
        }
      }
    })
  yield* walk(dir, 0)
  return found
})

/** Whether a skill file's real path lies inside its skills directory's real path. */
export const isHome = (home: string | undefined, real: string, sep = "/"): boolean =>
  home !== undefined && Workspace.isWithin(home, real, sep)

/**
 * The skills under `directories` (resolved against `root`), sorted by name. `inWorkspace` says
 * whether a real path lies inside the workspace (`Workspace.contains`).
 */
export const discover = Effect.fn("Skills.discover")(function*(
  root: string,
  directories: ReadonlyArray<string>,
  inWorkspace: (realPath: string) => boolean
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const byName = new Map<string, Skill>()
  for (const directory of directories) {
    const absolute = path.resolve(root, directory)
    const realDir = yield* fs.realPath(absolute).pipe(Effect.orElseSucceed(() => undefined))
    if (realDir === undefined) continue
    const home = Workspace.isWithin(root, absolute, path.sep) && !inWorkspace(realDir) ? undefined : realDir
    for (const file of yield* findSkillFiles(absolute)) {
      const real = yield* fs.realPath(file).pipe(Effect.orElseSucceed(() => undefined))
      if (real === undefined) continue
      if (!isHome(home, real, path.sep) && !inWorkspace(real)) {
        yield* Effect.logWarning(`skill skipped: ${file} links to ${real}, outside its skills directory and the workspace`)
        continue
      }
      const text = yield* fs.readFileString(real).pipe(Effect.orElseSucceed(() => undefined))
      const parsed = text === undefined ? undefined : frontMatter(text)
      const name = parsed?.fields.name ?? ""
      const description = parsed?.fields.description ?? ""
      if (name === "" || description === "") {
        yield* Effect.logWarning(`skill skipped: ${file} needs front matter with a name and a description`)
        continue
      }
      const earlier = byName.get(name)
      if (earlier !== undefined) yield* Effect.logWarning(`skill "${name}" of ${file} replaces the one in ${earlier.file}`)
      byName.set(name, { name, description, file, dir: path.dirname(file), home })
    }
  }
  return [...byName.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
})

/** Up to `limit` files of a skill's folder besides its SKILL.md (absolute paths, in name order). */
export const sampleFiles = Effect.fn("Skills.sampleFiles")(function*(dir: string, limit: number) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const files: Array<string> = []
  const walk = (current: string, depth: number): Effect.Effect<void> =>
    Effect.gen(function*() {
      const entries = yield* fs.readDirectoryEntries(current).pipe(Effect.orElseSucceed(() => []))
      for (const entry of [...entries].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) {
        if (files.length >= limit) return
        const full = path.join(current, entry.name)
        if (entry.type === "Directory") {
          if (depth < MAX_DEPTH && !SKIPPED_DIRS.has(entry.name)) yield* walk(full, depth + 1)
        } else if (!(depth === 0 && entry.name === FILE_NAME)) files.push(full)
      }
    })
  yield* walk(dir, 0)
  return files
})
