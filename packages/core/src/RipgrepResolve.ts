/**
 * Finding a usable `rg`, first usable wins (each candidate must answer `--version` and pass
 * `TrustedProgram.check`): the configured path, `rg` on PATH (never a relative entry or one inside
 * the untrusted directories), a binary downloaded earlier into the cache directory, then the
 * download step (not available in this build, which says so). The failure lists every step's reason.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as EnvVar from "./EnvVar.ts"
import * as Ripgrep from "./Ripgrep.ts"
import * as TrustedProgram from "./TrustedProgram.ts"

export interface Options {
  /** An rg binary to use; tried first (falls through to PATH when unusable). */
  readonly path?: string | undefined
  /** Where a downloaded rg is looked for (default `$XDG_CACHE_HOME` or `~/.cache`, then `agent-tools/ripgrep`). */
  readonly cacheDir?: string | undefined
  /** Whether the download step may run (default true). */
  readonly download?: boolean | undefined
  /**
   * Directories sandboxed commands can write (the workspace first): an rg inside them is never
   * run, and PATH entries inside them are skipped.
   */
  readonly untrusted?: ReadonlyArray<string> | undefined
}

export interface Binary {
  readonly path: string
  readonly version: string
  /** The directories the binary is checked against before each run (`Options.untrusted`). */
  readonly untrusted?: ReadonlyArray<string> | undefined
}

export const KILL = { forceKillAfter: "500 millis" } as const
const VERSION = /ripgrep (\d+\.\d+\.\d+)/

export const optionalConfig = EnvVar.get

/** Finds a usable rg, or fails with every step's reason. */
export const resolve = Effect.fn("RipgrepBinary.resolve")(function*(options: Options = {}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const windows = path.sep === "\\"
  const names = windows ? ["rg.exe", "rg"] : ["rg"]
  const tried: Array<string> = []
  const untrusted = options.untrusted ?? []

  const probe = (candidate: string): Effect.Effect<Binary, string> =>
    TrustedProgram.check(candidate, untrusted).pipe(
      Effect.mapError((e) => e.message),
      Effect.provideService(FileSystem.FileSystem, fs),
      Effect.provideService(Path.Path, path)
    ).pipe(Effect.andThen(spawner.string(ChildProcess.make(candidate, ["--version"], { stdin: "ignore", stderr: "ignore", ...KILL })).pipe(
      Effect.timeout("10 seconds"),
      Effect.mapError((e) => (e._tag === "TimeoutError" ? "did not answer --version within 10 s" : e.message)),
      Effect.flatMap((out) => {
        const version = VERSION.exec(out)?.[1]
        return version === undefined
          ? Effect.fail(`not ripgrep (--version printed ${JSON.stringify(out.slice(0, 80))})`)
          : Effect.succeed({ path: candidate, version, untrusted })
      })
    )))
  const isFile = (candidate: string) =>
    fs.stat(candidate).pipe(
      Effect.map((info) => info.type === "File"),
      Effect.catch(() => Effect.succeed(false))
    )

  // 1. configured
  const configured = options.path ?? (yield* optionalConfig("AGENT_TOOLS_RG_PATH"))
  if (configured !== undefined) {
    const found = yield* Effect.result(
      Effect.flatMap(isFile(configured), (ok) => (ok ? probe(configured) : Effect.fail("no such file")))
    )
    if (found._tag === "Success") return found.success
    tried.push(`configured path ${configured}: ${found.failure}`)
  }

  // 2. PATH
  const pathVar = (yield* optionalConfig("PATH")) ?? ""
  const dirs = [...new Set(pathVar.split(windows ? ";" : ":").filter((d) => d !== ""))]
  let seen = 0
  for (const dir of dirs) {
    // A relative entry (`.`, `node_modules/.bin`) names whatever directory rg is started from.
    if (!path.isAbsolute(dir)) continue
    for (const name of names) {
      const candidate = path.resolve(dir, name)
      if (!(yield* isFile(candidate))) continue
      seen++
      const found = yield* Effect.result(probe(candidate))
      if (found._tag === "Success") return found.success
      tried.push(`${candidate} (on PATH): ${found.failure}`)
    }
  }
  if (seen === 0) tried.push(`rg on PATH: not found in ${dirs.length} directories`)

  // 3. cached download
  const cacheRoot = options.cacheDir ?? (yield* defaultCacheDir(path))
  if (cacheRoot !== undefined) {
    const candidate = path.join(cacheRoot, names[0]!)
    if (yield* isFile(candidate)) {
      const found = yield* Effect.result(probe(candidate))
      if (found._tag === "Success") return found.success
      tried.push(`cached ${candidate}: ${found.failure}`)
    } else tried.push(`cached download ${candidate}: not present`)
  } else tried.push("cached download: no cache directory (neither XDG_CACHE_HOME nor HOME is set)")

  // 4. download
  if (options.download !== false) tried.push(`download: ${yield* download(cacheRoot)}`)
  return yield* new Ripgrep.RipgrepNotFoundError({ tried })
})

const defaultCacheDir = Effect.fnUntraced(function*(path: Path.Path) {
  const xdg = yield* optionalConfig("XDG_CACHE_HOME")
  const home = xdg === undefined ? yield* optionalConfig("HOME") : undefined
  const base = xdg ?? (home === undefined ? undefined : path.join(home, ".cache"))
  return base === undefined ? undefined : path.join(base, "agent-tools", "ripgrep")
})

/**
 * The download step. Core has no HTTP client (and this machine image no network), so the step
 * reports that instead of fetching; a runtime with network access can place a verified rg at
 * `<cacheDir>/rg` and step 3 picks it up.
 */
const download = (cacheDir: string | undefined): Effect.Effect<string> =>
  Effect.succeed(
    `not available in this build (offline; no HTTP client in core)${cacheDir === undefined ? "" : `; place rg at ${cacheDir}`}`
  )
