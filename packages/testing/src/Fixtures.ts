/**
 * Workspace fixtures: a real temp directory for integration tests, an in-memory one for unit tests.
 *
 * Relative keys are placed under the workspace root; absolute keys are used as they are (handy for
 * files outside the workspace, e.g. `"/outside/secret"` in memory).
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import type * as Scope from "effect/Scope"
import type { PlatformError } from "effect/PlatformError"
import * as MemoryFileSystem from "./MemoryFileSystem.ts"

/** The root of `memoryWorkspace`. */
export const root = "/ws"

export type Files = Readonly<Record<string, string | Uint8Array>>

/**
 * Creates a real temporary directory holding `files` (parents created) and returns its real path
 * (`/tmp` may itself be a symlink, e.g. on macOS). Removed when the scope closes.
 */
export const tempWorkspace = (
  files: Files = {},
  options: { readonly prefix?: string | undefined } = {}
): Effect.Effect<string, PlatformError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: options.prefix ?? "agent-tools-" }))
    for (const [name, content] of Object.entries(files)) {
      const file = path.resolve(dir, name)
      yield* fs.makeDirectory(path.dirname(file), { recursive: true })
      yield* typeof content === "string" ? fs.writeFileString(file, content) : fs.writeFile(file, content)
    }
    return dir
  })

export interface MemoryOptions {
  /** link path → target; relative link paths are placed under the root, targets are kept verbatim. */
  readonly symlinks?: Readonly<Record<string, string>> | undefined
  /** Extra (empty) directories. */
  readonly directories?: ReadonlyArray<string> | undefined
}

const underRoot = (p: string) => (p.startsWith("/") ? p : `${root}/${p.replace(/^\.\//, "")}`)
const mapKeys = <V>(record: Readonly<Record<string, V>>) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [underRoot(k), v]))

/**
 * FileSystem (in memory) + Path (posix) with a workspace at `/ws` holding `files`.
 * Provide `Workspace.layer({ root: Fixtures.root })` on top of it for path resolution.
 */
export const memoryWorkspace = (
  files: Files = {},
  options: MemoryOptions = {}
): Layer.Layer<FileSystem.FileSystem | Path.Path> =>
  Layer.merge(
    MemoryFileSystem.layer({
      files: mapKeys(files),
      symlinks: mapKeys(options.symlinks ?? {}),
      directories: [root, ...(options.directories ?? []).map(underRoot)]
    }),
    Path.layer
  )
