/**
 * Recognises, in a sandboxed command's output, the errors the sandbox caused, so the model reads
 * in plain words why a path failed and what to do, instead of guessing at a missing file.
 *
 * Inside the sandbox a path outside the workspace that was not approved does not exist
 * ("No such file or directory"), and the read-only system directories refuse writes
 * ("Read-only file system"). The messages of the shell, coreutils, Python, Perl and Node name the
 * path beside the error; each such path is resolved from the command's directory, and reported
 * when it lies outside everything the call could reach — or when it is one of the workspace's
 * protected control files (`ProtectedPaths`), mounted read-only inside the writable workspace:
 * there a write fails with "Read-only file system" and a rename over it with "Device or resource
 * busy".
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { ProtectedPaths, type Sandbox, Workspace } from "@agent-tools/core"

type Kind = "read-only" | "busy" | "denied" | "missing" | "protected"

const ERRORS: ReadonlyArray<readonly [RegExp, Kind]> = [
  [/Read-only file system|EROFS|\[Errno 30\]/, "read-only"],
  [/Device or resource busy|EBUSY|\[Errno 16\]/, "busy"],
  [/Permission denied|EACCES|Operation not permitted|EPERM|\[Errno 13\]/, "denied"],
  [/No such file or directory|ENOENT|\[Errno 2\]/, "missing"]
]

/** At most this many paths are named (a `find /` can print thousands of errors). */
const MAX_PATHS = 5
/** Only this many lines of output are inspected, from the end (where errors usually are). */
const MAX_LINES = 2_000

/**
 * The paths an error line names: quoted ones, and the word before `: <error>`; a bare name
 * (`agent-tools.json`) only with `bare` (a write that may have hit a protected file).
 */
const pathsIn = (line: string, bare: boolean): Array<string> => {
  const found: Array<string> = []
  // Quoted by ', ", ` or typographic quotes (`\u2018`, `\u2019`, escaped: code outside comments stays
  // ASCII, so the bundles load as one-byte text).
  for (const m of line.matchAll(/['"\u2018`]([^'"\u2019`\n]+)['"\u2019`]/g)) found.push(m[1]!)
  for (const m of line.matchAll(/(?:^|[\s:])([^\s:'"]*\/[^\s:'"]*|[^\s:'"]+\.[^\s:'"]+):\s*(?:Read-only|Permission denied|No such file|Operation not permitted|Device or resource busy)/g)) {
    found.push(m[1]!)
  }
  for (const m of line.matchAll(/\b(?:open|opendir|stat|lstat|mkdir|unlink|rename|scandir|access) '([^']+)'/g)) found.push(m[1]!)
  return found.filter((p) => bare || p.includes("/") || p.startsWith("."))
}

const within = (parent: string, child: string) =>
  child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`)

export interface Blocked {
  readonly path: string
  readonly kind: Kind
}

/** The outside paths the output shows the sandbox refused, first ones first. */
export const blockedPaths = Effect.fn("Bash.blockedPaths")(function*(
  output: string,
  options: {
    readonly cwd: string
    readonly policy: Sandbox.Policy
    readonly system: ReadonlyArray<string>
    /**
     * The workspace's control files, read-only inside the sandbox; or how to read them, done only
     * when the output shows a write error (most calls show none).
     */
    readonly protected?: ProtectedPaths.Resolved | Effect.Effect<ProtectedPaths.Resolved> | undefined
  }
) {
  const given = options.protected
  const guarded = given === undefined ? undefined : Effect.isEffect(given) ? yield* Effect.cached(given) : Effect.succeed(given)
  const workspace = yield* Workspace.Workspace
  const fs = yield* FileSystem.FileSystem
  const { policy } = options
  const reachable = (real: string, kind: Kind) =>
    policy.outside === "writable" ||
    within(policy.root, real) ||
    policy.writable.some((p) => within(p, real)) ||
    (kind !== "read-only" && policy.readable.some((p) => within(p, real)))
  const lines = output.split("\n").slice(-MAX_LINES)
  const blocked: Array<Blocked> = []
  const seen = new Set<string>()
  for (const line of lines) {
    const kind = ERRORS.find(([re]) => re.test(line))?.[1]
    if (kind === undefined) continue
    const writeError = kind === "read-only" || kind === "busy"
    for (const shown of pathsIn(line, writeError && options.protected !== undefined)) {
      // Not normalised: `link/../x` goes through the link, as the kernel went.
      const absolute = shown.startsWith("/") ? shown : `${options.cwd}/${shown}`
      if (seen.has(absolute)) continue
      seen.add(absolute)
      // A missing system file is missing outside the sandbox too.
      if (kind === "missing" && options.system.some((s) => within(s, absolute))) continue
      // Missing inside the sandbox but present on the host: the sandbox hid it, whatever a
      // lexical resolve says (`link/../x` follows the link first).
      const hidden = kind === "missing" && policy.outside !== "writable" &&
        (yield* fs.exists(absolute).pipe(Effect.orElseSucceed(() => false)))
      const resolved = yield* workspace.resolve(absolute).pipe(Effect.option)
      const real = resolved._tag === "Some" ? resolved.value.real : absolute
      if (writeError && guarded !== undefined && ProtectedPaths.covers(yield* guarded, real)) {
        blocked.push({ path: shown, kind: "protected" })
        if (blocked.length >= MAX_PATHS) return blocked
        continue
      }
      // A busy path is the sandbox's doing only when it is a protected one; so is a bare name.
      if (kind === "busy" || !(shown.includes("/") || shown.startsWith("."))) continue
      if (!hidden && reachable(real, kind)) continue
      blocked.push({ path: shown, kind })
      if (blocked.length >= MAX_PATHS) return blocked
    }
  }
  return blocked
})

/** The note for the `<bash_metadata>` block, or null. */
export const blockedNote = (blocked: ReadonlyArray<Blocked>): string | null => {
  const notes: Array<string> = []
  const guarded = blocked.filter((b) => b.kind === "protected")
  if (guarded.length > 0) {
    notes.push(
      `The sandbox blocked ${guarded.map((b) => b.path).join(", ")}: protected control file (git config, hooks or agent config): ` +
        "read-only in the sandbox; edit it with the file tools, which ask."
    )
  }
  const outside = blocked.filter((b) => b.kind !== "protected")
  if (outside.length > 0) {
    const list = outside.map((b) => b.path).join(", ")
    const writes = outside.some((b) => b.kind === "read-only")
    notes.push(`The sandbox blocked ${list}: ${
      writes ? "outside the workspace, files cannot be written" : "paths outside the workspace are not visible"
    } unless approved for the call. To use such a path, name it in the command so that access is asked for (external_directory), or ask the user to add it to sandbox.extraReadable / sandbox.extraWritable.`)
  }
  return notes.length === 0 ? null : notes.join("\n")
}
