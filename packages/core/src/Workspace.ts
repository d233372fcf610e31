/**
 * Path resolution and containment on real paths: the one place that decides whether a tool path
 * lies inside the workspace.
 *
 * Containment is decided on the real path: lexical checks let an in-workspace
 * symlink, `..` or a prefix sibling (`/ws-evil` vs `/ws`) escape. The real path of a path that does
 * not exist yet is the real path of its deepest existing ancestor plus the missing components, so a
 * new file behind a symlinked directory is still attributed to the link's target.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import type { PlatformError } from "effect/PlatformError"
import { SpillStorage } from "./SpillStorage.ts"

export interface Resolved {
  /** The path as the tool received it. */
  readonly input: string
  /** Absolute, lexically normalised (no symlinks followed). */
  readonly absolute: string
  /** Symlinks followed for the existing part, the rest appended. */
  readonly real: string
  readonly exists: boolean
  /** Inside the workspace root or an extra allowed directory (on real paths). */
  readonly inside: boolean
  /**
   * Under the spill store's directory (this workspace's own spills when the store was made for it):
   * readable without an outside-directory ask.
   */
  readonly spill: boolean
}

export class PathResolutionError extends Schema.TaggedError<PathResolutionError>()("PathResolutionError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot resolve path ${shortened(this.path)}: ${this.reason}`
  }
}

/** The longest path an error shows whole; past it, its start and its length (a path of kilobytes says nothing more). */
const SHOWN_PATH_CHARS = 256

const shortened = (path: string) =>
  path.length <= SHOWN_PATH_CHARS ? path : `${path.slice(0, SHOWN_PATH_CHARS)}… (${path.length} characters)`

export class Workspace extends Context.Service<Workspace, {
  /** The workspace root, as a real path. */
  readonly root: string
  readonly resolve: (path: string) => Effect.Effect<Resolved, PathResolutionError>
  /** Whether a real path lies inside the root or an extra allowed directory. */
  readonly contains: (realPath: string) => boolean
}>()("@agent-tools/core/Workspace") {}

// ---------------------------------------------------------------------------------------------
// Implementation

/** The workspace root is missing or unusable: the layer cannot be built. */
export class WorkspaceRootError extends Schema.TaggedError<WorkspaceRootError>()("WorkspaceRootError", {
  root: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Workspace root ${this.root} ${this.reason}`
  }
}

export interface LayerOptions {
  /** The workspace root; relative tool paths resolve against it. Must exist. */
  readonly root: string
  /** Extra directories treated as inside (they may not exist yet). */
  readonly allow?: ReadonlyArray<string> | undefined
  /**
   * Directories holding spills (a file spill store's `directory`): paths in them resolve with
   * `spill: true`, so read and grep page them without an outside ask. They may not exist yet.
   */
  readonly spillDirectories?: ReadonlyArray<string> | undefined
  /**
   * Waits until a spill still being written in the background is complete (`SpillStorage.ready`):
   * every path is resolved after it, so read and grep never see a spill before it is whole.
   */
  readonly spillReady?: ((path: string) => Effect.Effect<void>) | undefined
}

const MAX_DANGLING_HOPS = 40

// Node and MemoryFileSystem both keep the errno code on the cause; ELOOP and ENOTDIR share a reason tag.
const errnoCode = (e: PlatformError): string | undefined => {
  const cause: unknown = e.reason.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined
}

const explain = (e: PlatformError): string => {
  if (e.reason._tag === "BadArgument") return `invalid path (${e.reason.message})`
  switch (errnoCode(e)) {
    case "ELOOP":
      return "symbolic link loop (too many levels of symbolic links)"
    case "ENOTDIR":
      return "a component of the path is not a directory"
    case "ENAMETOOLONG":
      return "file name too long"
  }
  return e.reason._tag === "PermissionDenied" ? "permission denied while following the path" : e.message
}

/** `true` when `child` equals `parent` or lies under it (separator-aware, so `/ws-evil` is not in `/ws`). */
export const isWithin = (parent: string, child: string, sep = "/"): boolean =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep)

/** Builds the service; exported for callers that want it without a layer. */
export const make = Effect.fnUntraced(function*(options: LayerOptions) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path

  const isNotFound = (e: PlatformError) => e.reason._tag === "NotFound"

  /**
   * realPath of the deepest existing ancestor + the missing components. A dangling symlink met at
   * that boundary is followed lexically (its target may not exist), bounded like ELOOP.
   */
  const canonical = (
    absolute: string,
    shown: string,
    hops = 0
  ): Effect.Effect<{ readonly real: string; readonly exists: boolean }, PathResolutionError> => {
    const fail = (reason: string) => Effect.fail(new PathResolutionError({ path: shown, reason }))
    const walk = (
      dir: string,
      rest: ReadonlyArray<string>
    ): Effect.Effect<{ readonly real: string; readonly exists: boolean }, PathResolutionError> =>
      fs.realPath(dir).pipe(
        Effect.matchEffect({
          onSuccess: (realDir) => {
            if (rest.length === 0) return Effect.succeed({ real: realDir, exists: true })
            const [first, ...more] = rest as [string, ...Array<string>]
            const candidate = path.join(realDir, first)
            // `first` is missing, or a symlink whose target is missing: only the latter needs following.
            return fs.readLink(candidate).pipe(
              Effect.matchEffect({
                onFailure: () => Effect.succeed({ real: path.join(candidate, ...more), exists: false }),
                onSuccess: (target) =>
                  hops >= MAX_DANGLING_HOPS
                    ? fail("symbolic link loop (too many levels of symbolic links)")
                    : canonical(path.resolve(realDir, target, ...more), shown, hops + 1)
              })
            )
          },
          onFailure: (e) =>
            isNotFound(e) && dir !== path.dirname(dir)
              ? walk(path.dirname(dir), [path.basename(dir), ...rest])
              : fail(explain(e))
        })
      )
    return walk(absolute, [])
  }

  const givenRoot = path.resolve(options.root)
  const root = yield* fs.realPath(givenRoot).pipe(
    Effect.mapError((e) =>
      new WorkspaceRootError({ root: givenRoot, reason: isNotFound(e) ? "does not exist" : `cannot be resolved: ${e.message}` })
    )
  )
  const rootInfo = yield* fs.stat(root).pipe(
    Effect.mapError((e) => new WorkspaceRootError({ root: givenRoot, reason: `cannot be read: ${e.message}` }))
  )
  if (rootInfo.type !== "Directory") return yield* new WorkspaceRootError({ root: givenRoot, reason: "is not a directory" })

  // Allowed and spill directories may not exist yet: canonicalise them like any other path.
  const canonicalDir = (dir: string) =>
    Effect.map(canonical(path.resolve(root, dir), dir), (r) => r.real).pipe(
      Effect.mapError((e) => new WorkspaceRootError({ root: dir, reason: `(allowed directory) ${e.reason}` }))
    )
  const allowed = [root, ...(yield* Effect.forEach(options.allow ?? [], canonicalDir))]
  const spillDirs = yield* Effect.forEach(options.spillDirectories ?? [], canonicalDir)

  const contains = (realPath: string): boolean => allowed.some((dir) => isWithin(dir, realPath, path.sep))

  /**
   * The real path the kernel reaches: each `..` steps up from the real directory reached so far,
   * so `link/../x` is `x` next to the link's target, not next to the link.
   */
  const physical = Effect.fnUntraced(function*(input: string, shown: string) {
    const joined = path.isAbsolute(input) ? input : `${givenRoot}${path.sep}${input}`
    const separators = path.sep === "\\" ? /[\\/]/ : /\//
    const parts = joined.split(separators)
    if (!parts.includes("..")) return yield* canonical(path.resolve(joined), shown)
    let current = path.parse(joined).root
    let pending: Array<string> = []
    for (const part of joined.slice(current.length).split(separators)) {
      if (part !== "..") {
        if (part !== "" && part !== ".") pending.push(part)
        continue
      }
      const reached = yield* canonical(path.resolve(current, ...pending), shown)
      current = path.dirname(reached.real)
      pending = []
    }
    return yield* canonical(path.resolve(current, ...pending), shown)
  })

  const resolve = Effect.fn("Workspace.resolve")(function*(input: string) {
    const absolute = path.resolve(givenRoot, input) // never `~`-expanded: tools get literal paths
    if (absolute.includes("\0")) return yield* new PathResolutionError({ path: input, reason: "the path contains a NUL byte" })
    if (options.spillReady !== undefined) yield* options.spillReady(absolute)
    const { real, exists } = yield* physical(input, absolute)
    const inside = contains(real)
    const spill = spillDirs.some((dir) => isWithin(dir, real, path.sep))
    yield* Effect.annotateCurrentSpan({ input, real, inside, spill })
    return { input, absolute, real, exists, inside, spill } satisfies Resolved
  })

  return Workspace.of({ root, resolve, contains })
})

/**
 * The Workspace for `root` (+ `allow`, `spillDirectories`). Needs FileSystem and Path. Fails when
 * the root does not exist or is not a directory.
 */
export const layer = (
  options: LayerOptions
): Layer.Layer<Workspace, WorkspaceRootError, FileSystem.FileSystem | Path.Path> => Layer.effect(Workspace, make(options))

/**
 * The Workspace whose spill directory is the given SpillStorage's `directory` (none for a store
 * without one, e.g. in memory): this workspace's spills are readable without asking.
 */
export const layerWithSpillStorage = (
  options: Omit<LayerOptions, "spillDirectories">
): Layer.Layer<Workspace, WorkspaceRootError, FileSystem.FileSystem | Path.Path | SpillStorage> =>
  Layer.effect(
    Workspace,
    Effect.gen(function*() {
      const spill = yield* SpillStorage
      return yield* make({
        ...options,
        spillDirectories: spill.directory === undefined ? [] : [spill.directory],
        spillReady: spill.ready
      })
    })
  )
