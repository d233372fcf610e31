/**
 * Finding the programs the agent itself runs on the host (the sandbox `bwrap`, `rg`, the shell) so
 * that the workspace cannot substitute its own. PATH often lists directories the workspace owns
 * (`node_modules/.bin` under `npx`, `npm run`, `pnpm exec`; relative entries such as `.`); a
 * command in the sandbox may write there, so a program found there would run unconfined at the
 * next call.
 *
 * `find` looks a program up once, skipping relative PATH entries and entries inside the workspace
 * or any other directory a sandboxed command may write, and returns an absolute path; `check`
 * verifies a path before each spawn: it still is a regular, executable file whose real path lies
 * outside those directories, owned by root or by the user this process runs as, writable by
 * neither its group nor others, in a directory others cannot write. A failed check fails the
 * call; it never falls back to a PATH lookup.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"

/** A program cannot be found, or may not be run, with the reason. */
export class UntrustedProgramError extends Schema.TaggedError<UntrustedProgramError>()("UntrustedProgramError", {
  reason: Schema.Literals(["not-found", "untrusted"]),
  program: Schema.String,
  message: Schema.String
}) {}

/** The user id of this process, when the platform has one (not on Windows). */
const currentUid = (): number | undefined =>
  typeof process !== "undefined" && typeof process.getuid === "function" ? process.getuid() : undefined

const within = (parent: string, child: string) =>
  child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`)

/** `untrusted` with each entry's real path added (a workspace reached through a symbolic link). */
const realDirectories = Effect.fnUntraced(function*(untrusted: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const all = new Set(untrusted)
  const reals = yield* Effect.forEach(untrusted, (dir) => fs.realPath(dir).pipe(Effect.option), { concurrency: "unbounded" })
  for (const real of reals) if (Option.isSome(real)) all.add(real.value)
  return [...all]
})

const MISSING = "it does not exist"

/** Why `file` may not be run, or undefined when it may. */
const problem = Effect.fnUntraced(function*(file: string, untrusted: ReadonlyArray<string>) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  if (!path.isAbsolute(file)) return "it is not an absolute path"
  // At once, and the two stats after them at once: this runs before every spawn.
  const [real, dirs] = yield* Effect.all([fs.realPath(file).pipe(Effect.option), realDirectories(untrusted)], { concurrency: 2 })
  if (Option.isNone(real)) return MISSING
  const inside = dirs.find((d) => within(d, file) || within(d, real.value))
  if (inside !== undefined) return `it lies in ${inside}, which sandboxed commands can write`
  const [info, parent] = yield* Effect.all([fs.stat(real.value).pipe(Effect.option), fs.stat(path.dirname(real.value)).pipe(Effect.option)], {
    concurrency: 2
  })
  if (Option.isNone(info) || info.value.type !== "File") return `${real.value} is not a regular file`
  if (path.sep === "\\") return undefined
  const mode = info.value.mode
  if ((mode & 0o111) === 0) return `${real.value} is not executable`
  if ((mode & 0o022) !== 0) return `${real.value} is writable by its group or by others (mode ${(mode & 0o777).toString(8)})`
  const uid = currentUid()
  const owner = Option.getOrUndefined(info.value.uid)
  if (uid !== undefined && owner !== undefined && owner !== 0 && owner !== uid) {
    return `${real.value} is owned by user ${owner}, neither root nor the user running the agent`
  }
  // A directory anyone may write (without the sticky bit) lets anyone replace the program.
  if (Option.isSome(parent) && (parent.value.mode & 0o002) !== 0 && (parent.value.mode & 0o1000) === 0) {
    return `its directory ${path.dirname(real.value)} is writable by everyone`
  }
  return undefined
})

/**
 * Verifies, before a spawn, that `file` may still be run; `untrusted` are the directories
 * sandboxed commands can write (the workspace first).
 */
export const check = Effect.fn("TrustedProgram.check")(function*(
  file: string,
  untrusted: ReadonlyArray<string>
): Effect.fn.Return<string, UntrustedProgramError, FileSystem.FileSystem | Path.Path> {
  const why = yield* problem(file, untrusted)
  if (why === undefined) return file
  return yield* new UntrustedProgramError({
    reason: why === MISSING ? "not-found" : "untrusted",
    program: file,
    message: `${file} is not run: ${why}. Programs the agent runs must lie outside the workspace and the sandbox's writable paths.`
  })
})

export interface FindOptions {
  /** The directories of PATH, in order (relative entries are skipped). */
  readonly path: ReadonlyArray<string>
  /** Directories sandboxed commands can write: the workspace and the sandbox's writable paths. */
  readonly untrusted: ReadonlyArray<string>
}

/**
 * The first `names` entry in a trusted PATH directory that passes `check`, as an absolute path. The
 * reasons candidates were skipped go into the error.
 */
export const find = Effect.fn("TrustedProgram.find")(function*(
  names: ReadonlyArray<string>,
  options: FindOptions
): Effect.fn.Return<string, UntrustedProgramError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const skipped: Array<string> = []
  const dirs = yield* realDirectories(options.untrusted)
  const candidates = [...new Set(options.path)]
    .filter((dir) => dir !== "" && path.isAbsolute(dir) && !dirs.some((d) => within(d, dir)))
    .flatMap((dir) => names.map((name) => path.join(dir, name)))
  // Which exist, asked at once (PATH is often ten directories long); then checked in PATH's order.
  const exist = yield* Effect.forEach(candidates, (candidate) => fs.exists(candidate).pipe(Effect.orElseSucceed(() => false)), {
    concurrency: "unbounded"
  })
  for (const [i, candidate] of candidates.entries()) {
    if (exist[i]) {
      const why = yield* problem(candidate, options.untrusted)
      if (why === undefined) return candidate
      skipped.push(`${candidate}: ${why}`)
    }
  }
  return yield* new UntrustedProgramError({
    reason: "not-found",
    program: names[0] ?? "",
    message: `${names[0]} was not found in a trusted PATH directory (absolute, outside the workspace and the sandbox's writable paths)${
      skipped.length === 0 ? "" : `; skipped ${skipped.join("; ")}`
    }`
  })
})
