/**
 * Plumbing the file-changing tools share: path display, the permission requests of a file
 * change, and the transaction write, edit and multiedit make their change in (loading the file as
 * editable text with the clear refusals: directory, too large, binary; the stale-read check; the
 * atomic commit and the FileTime record after it).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import type { PlatformError } from "effect/PlatformError"
import { Bytes, type Events, FileTime, type ProtectedPaths, Tool, type Truncate, Workspace } from "@agent-tools/core"
import { locate, withExternal } from "../shared/access.ts"
import { editRequests, protectedNow } from "../shared/protected.ts"
import { type FileDiff, type Span, spanDiff, unifiedDiff } from "../diff.ts"
import { giveBack } from "../buffers.ts"
import { overlapping } from "./rebase.ts"
import { atomicWrite, describeFsError, ensureDirectory, fsErrorReason, type Entry, inspect, readKnownSize } from "./files.ts"
import { MAX_EDIT_BYTES } from "../limits.ts"
import { megabytes } from "../size.ts"
import { decode, type Decoded, encode, encodeChange, encodingLabel, isBinary, isUnencodable, type Unencodable } from "../text.ts"

/** What every file tool may use (the same set for all, so a list of them types as one). */
export type Services =
  | FileSystem.FileSystem
  | Path.Path
  | Workspace.Workspace
  | FileTime.FileTime
  | Events.Events
  | Truncate.Truncate

export const fail = (tool: string, reason: Tool.ToolErrorReason, message: string, cause?: unknown) =>
  Effect.fail(new Tool.ToolError({ tool, reason, message, ...(cause === undefined ? {} : { cause }) }))

/** A file-system failure as a tool error: `what` (`Cannot read x`) and why, the platform error kept as cause. */
export const fsFailure = (tool: string, what: string, e: PlatformError, after = "") =>
  new Tool.ToolError({ tool, reason: fsErrorReason(e), message: `${what}: ${describeFsError(e)}${after}`, cause: e })

/** The path shown to the model and used in `edit` permission patterns: relative inside the workspace. */
export const displayPath = Effect.fnUntraced(function*(resolved: Workspace.Resolved) {
  const path = yield* Path.Path
  const workspace = yield* Workspace.Workspace
  if (!resolved.inside) return resolved.real
  const rel = path.relative(workspace.root, resolved.real)
  return rel.length === 0 ? "." : rel.split(path.sep).join("/")
})

/** A path looked up as something the file tools can change: a file, or nothing yet. */
type Changeable = Extract<Entry, { _tag: "File" | "Missing" }>

/** Fails on a directory or a special file; `Cannot read` on a file-system error. */
const lookUp = Effect.fnUntraced(function*(tool: string, real: string, shown: string) {
  const entry = yield* inspect(real).pipe(
    Effect.mapError((e) => fsFailure(tool, `Cannot read ${shown}`, e))
  )
  if (entry._tag === "Directory") return yield* fail(tool, "is-directory", `Path is a directory, not a file: ${shown}`)
  if (entry._tag === "Other") return yield* fail(tool, "is-directory", `Path is not a regular file: ${shown}`)
  return entry satisfies Changeable
})

/** Reads the file at `real` (stat'ed as `entry`) as editable text, or fails saying what to do instead. */
const readText = Effect.fnUntraced(function*(
  tool: string,
  real: string,
  shown: string,
  entry: Extract<Entry, { _tag: "File" }>,
  anySize: boolean
) {
  if (entry.size > MAX_EDIT_BYTES && !anySize) {
    return yield* fail(
      tool,
      "too-large",
      `File ${shown} is too large to edit (${entry.size} bytes; the limit is ${megabytes(MAX_EDIT_BYTES)}). ` +
        "Use bash (sed, a script) for changes to files this size."
    )
  }
  const bytes = yield* readKnownSize(real, entry.size).pipe(
    Effect.mapError((e) => fsFailure(tool, `Cannot read ${shown}`, e))
  )
  if (isBinary(real, bytes)) {
    return yield* fail(tool, "binary", `${shown} is a binary file; the ${tool} tool only changes text files.`)
  }
  return bytes
})

/**
 * Fails unless this session read the file and `bytes` (just read) are what it read (content hash,
 * not mtime). With `rebase`, a file changed since the read whose read bytes FileTime kept is not
 * an error yet: the bytes read and the refusal are returned, for the change to be re-based.
 */
const freshOrBase = (tool: string, sessionID: string, real: string, bytes: Uint8Array, rebase: boolean) =>
  FileTime.FileTime.use((ft) =>
    ft.assert(sessionID, real, bytes).pipe(
      Effect.as(undefined),
      Effect.catchTag("FileModifiedError", (e) =>
        rebase
          ? Effect.flatMap(ft.base(sessionID, real), (base) => base === undefined ? Effect.fail(e) : Effect.succeed({ base, refusal: e }))
          : Effect.fail(e))
    )
  ).pipe(
    Effect.mapError((e) =>
      e._tag === "PlatformError"
        ? fsFailure(tool, `Cannot check ${real}`, e)
        : new Tool.ToolError({ tool, reason: e._tag === "FileNotReadError" ? "not-read" : "stale", message: e.message, cause: e })
    )
  )

/** A change refused because the file changed since the session read it. */
const staleError = (tool: string, refusal: FileTime.FileModifiedError) =>
  new Tool.ToolError({ tool, reason: "stale", message: refusal.message, cause: refusal })

/**
 * Fails unless this session read the file and `bytes` (just read, under the path's lock) are what
 * it read: the refusal of a stale change, the same for every tool that writes files.
 */
export const assertFresh = (tool: string, sessionID: string, real: string, bytes: Uint8Array) =>
  Effect.asVoid(freshOrBase(tool, sessionID, real, bytes, false))

/** What a re-based change says in its result. */
export const REBASED_NOTE = "The file had been changed since you read it, in other lines than this edit touches: " +
  "the edit was re-based over that change. Read the file again to see it."

/** The file as a transaction found it. */
export interface Current {
  readonly shown: string
  readonly real: string
  /** Missing, or a file (size, mode, links from the one stat). */
  readonly entry: Changeable
  /**
   * The bytes of an existing file, as read; undefined when it is missing. Read only: they are
   * compared with the file again after the change is made.
   */
  readonly bytes: Uint8Array | undefined
  /** The decoded text of an existing file (decoded on first use); undefined when it is missing. */
  readonly decoded: Decoded | undefined
}

/** What a change makes of the file: its new text, in which encoding, and what the tool reports. */
export interface Changed<A> {
  readonly text: string
  /** Where `text` differs from the file's text, when the change knows it (saves comparing whole texts). */
  readonly span?: Span | undefined
  readonly encoding: Pick<Decoded, "encoding" | "bom">
  readonly result: A
}

/** A change made on the file's bytes: the new bytes and their diff, already computed. */
export interface ChangedBytes<A> {
  readonly bytes: Uint8Array
  readonly diff: FileDiff
  readonly encoding: Pick<Decoded, "encoding" | "bom">
  readonly result: A
}

export interface Committed<A> {
  readonly shown: string
  readonly real: string
  readonly created: boolean
  readonly diff: FileDiff
  readonly encoding: Pick<Decoded, "encoding" | "bom">
  readonly result: A
  /** The file had changed since the session read it, elsewhere: the change was made on its current content. */
  readonly rebased: boolean
}

/**
 * One change of one file, the way write, edit and multiedit all make it: the call's permission
 * requests asked as one prompt (`editTarget`, resolved once per call by its plan, `planChange`); then,
 * holding the path's lock (not for a refusal the plan reached, if a read confirms it), one stat and
 * one read; the freshness check on the bytes just read (this session read the file and it has not
 * changed since); `change` on the bytes, or on the decoded
 * text (decoded only when it asks), its new text then encoded like the file; one diff of the
 * changed region (for the result); one atomic write (temp file + rename); and FileTime's record
 * of the write. `anySize`: the change replaces the whole file, so a file over the edit limit is
 * read too (for the freshness check and its encoding) and its diff summarised. `rebase`: a file
 * changed since the session read it is changed anyway when the change touches none of the lines
 * changed since (an edit of its current content; see rebase.ts), else refused as stale.
 */
export const transaction = <A, R>(
  tool: string,
  ctx: Tool.Context,
  call: Call,
  change: Change<A, R>,
  options: ChangeOptions = {},
  planned?: Planned<A> | undefined
): Effect.Effect<Committed<A>, Tool.ExecuteError, R | Services> =>
  Effect.gen(function*() {
    const { real, shown, requests } = planned?.target ?? (yield* editTarget(tool, call.filePath))
    // A plan's work is taken once: its buffers go back for reuse after the run.
    const worked = planned?.worked !== undefined && !spentPlans.has(planned.worked) ? planned.worked : undefined
    if (worked !== undefined) spentPlans.add(worked)
    yield* ctx.askAll(requests)
    // The buffers in hand, which go back for the next call however this one ends, but the one
    // written (FileTime holds it from then on): the reads' and a new file the plan made.
    const held: Array<Uint8Array> = []
    if (worked?.bytes !== undefined) held.push(worked.bytes)
    if (worked?.changed !== undefined) held.push(worked.changed.bytes)
    let written: Uint8Array | undefined
    const release = Effect.sync(() => {
      for (const b of held) if (b.buffer !== written?.buffer) giveBack(b)
    })
    // A refusal the plan reached, which the file read again confirms, needs no lock.
    if (worked?.failure !== undefined && (yield* Effect.onError(refusalStands(tool, ctx.sessionID, real, shown, worked, options), () => release))) {
      yield* release
      return yield* worked.failure
    }
    const fileTime = yield* FileTime.FileTime
    const path = yield* Path.Path
    // The file read stays open until the rename has replaced it, where the platform allows that
    // (not Windows): the kernel then frees the old file's blocks at that last close, not in the
    // rename, and the close is not waited for. For an 800 KB file the rename took 0.7 ms, 0.15 ms so.
    const closeAfterRename = path.sep === "/"
    const reading = yield* Scope.make()
    return yield* fileTime.withLock(
      real,
      Effect.gen(function*() {
        const entry = yield* lookUp(tool, real, shown)
        let read: { readonly bytes: Uint8Array; readonly decoded: Decoded } | undefined
        let stale: { readonly base: Uint8Array; readonly refusal: FileTime.FileModifiedError } | undefined
        if (entry._tag === "File") {
          const bytes = yield* readText(tool, real, shown, entry, options.anySize === true).pipe(Scope.provide(reading))
          held.push(bytes)
          if (!closeAfterRename) yield* Scope.close(reading, Exit.void)
          stale = yield* freshOrBase(tool, ctx.sessionID, real, bytes, options.rebase === true)
          let decoded: Decoded | undefined
          // Decoded only when the change asks: a change made on the bytes never makes the string.
          read = {
            bytes,
            get decoded() {
              return (decoded ??= decode(bytes))
            }
          }
        }
        const current: Current = {
          shown,
          real,
          entry,
          bytes: read?.bytes,
          get decoded() {
            return read?.decoded
          }
        }
        // The plan's change, when the file is still what the plan read (then nothing is worked out
        // twice): its result, or the refusal it ended in (a change depends on the file alone).
        const same = worked !== undefined && stale === undefined && sameFile(worked, entry, read?.bytes)
        if (same && worked.failure !== undefined && entry._tag === "File") return yield* worked.failure
        const reuse = same && worked.changed !== undefined ? worked.changed : undefined
        const changed = reuse !== undefined ? reuse : yield* (stale === undefined
          ? change(current)
          // On the current content the edit may no longer apply: the file changed where it edits.
          : Effect.mapError(change(current), () => staleError(tool, stale.refusal)))
        const { bytes, diff } = reuse !== undefined ? reuse : yield* resolve(tool, shown, read, changed)
        // UTF-16 is not compared by lines of bytes: refused as before.
        const utf16 = read !== undefined && ((read.bytes[0] === 0xff && read.bytes[1] === 0xfe) || (read.bytes[0] === 0xfe && read.bytes[1] === 0xff))
        if (stale !== undefined && read !== undefined && (utf16 || overlapping(stale.base, read.bytes, bytes))) {
          return yield* staleError(tool, stale.refusal)
        }
        written = bytes
        yield* commit(tool, ctx.sessionID, real, bytes, entry)
        return {
          shown,
          real,
          created: entry._tag === "Missing",
          diff,
          encoding: changed.encoding,
          result: changed.result,
          rebased: stale !== undefined
        } satisfies Committed<A>
      }).pipe(
        Effect.onExit((exit) =>
          Effect.andThen(
            release,
            exit._tag === "Success" ? Effect.asVoid(Effect.forkDetach(Scope.close(reading, exit))) : Scope.close(reading, exit)
          )
        )
      )
    )
  })

/** A change of the file a transaction found (see `transaction`). */
export type Change<A, R> = (current: Current) => Effect.Effect<Changed<A> | ChangedBytes<A>, Tool.ToolError, R>

export interface ChangeOptions {
  readonly anySize?: boolean | undefined
  readonly rebase?: boolean | undefined
}

/** A change as bytes to write and its diff. */
const resolve = <A>(
  tool: string,
  shown: string,
  read: { readonly bytes: Uint8Array; readonly decoded: Decoded } | undefined,
  changed: Changed<A> | ChangedBytes<A>
): Effect.Effect<ChangedBytes<A>, Tool.ToolError> => {
  if ("bytes" in changed) return Effect.succeed(changed)
  return Effect.map(
    encodeFor(tool, shown, changed.encoding, () =>
      read === undefined
        ? encode(changed.text, changed.encoding.encoding, changed.encoding.bom)
        : encodeChange(read, changed.text, changed.encoding, changed.span)),
    (bytes) => {
      const before = read?.decoded.text ?? ""
      const diff = changed.span === undefined ? unifiedDiff(shown, before, changed.text) : spanDiff(shown, before, changed.span)
      return { bytes, diff, encoding: changed.encoding, result: changed.result }
    }
  )
}

/** The file under the lock is the one the plan worked on: missing both times, or the same bytes, mode and links. */
const sameFile = (worked: Worked<unknown>, entry: Changeable, bytes: Uint8Array | undefined): boolean =>
  entry._tag === "Missing"
    ? worked.entry._tag === "Missing"
    : worked.entry._tag === "File" && worked.bytes !== undefined && bytes !== undefined &&
      entry.mode === worked.entry.mode && entry.links === worked.entry.links && Bytes.equal(bytes, worked.bytes)

/**
 * Whether the refusal a plan reached stands, seen without the lock (it writes nothing, and writers
 * replace a file by rename, so a read sees it whole): the file read again is the one the plan read,
 * and fresh for the session. Fails as the run under the lock would (not read, or stale).
 */
const refusalStands = Effect.fnUntraced(function*(
  tool: string,
  sessionID: string,
  real: string,
  shown: string,
  worked: Worked<unknown>,
  options: ChangeOptions
) {
  if (worked.entry._tag !== "File") return false
  const entry = yield* lookUp(tool, real, shown)
  if (entry._tag !== "File") return false
  const bytes = yield* Effect.scoped(readText(tool, real, shown, entry, options.anySize === true))
  return yield* freshOrBase(tool, sessionID, real, bytes, options.rebase === true).pipe(
    Effect.map((stale) => stale === undefined && sameFile(worked, entry, bytes)),
    Effect.ensuring(Effect.sync(() => giveBack(bytes)))
  )
})

interface Worked<A> {
  readonly entry: Changeable
  /** The bytes the plan read. */
  readonly bytes: Uint8Array | undefined
  /** The change made on them, or the refusal it ended in. */
  readonly changed: ChangedBytes<A> | undefined
  readonly failure: Tool.ToolError | undefined
}

// The plans whose work a transaction has taken over.
const spentPlans = new WeakSet<Worked<unknown>>()

/**
 * A file change worked out before it is asked: the file it writes with the call's requests, the
 * `edit` one carrying the diff for the prompt, and the change made on the file as the plan read it.
 * The transaction takes that change over when the file is unchanged under its lock, and works it
 * out again otherwise (so the freshness check and a re-base still decide on the bytes it writes
 * over).
 */
export interface Planned<A> {
  readonly target: Target
  /** Undefined when the plan could not work the change out: the run says why. */
  readonly worked: Worked<A> | undefined
}

/**
 * Runs `effect` in a scope of its own; where the platform allows renaming over an open file (not
 * Windows), a success does not wait for the scope to close (the plan's read is closed in the
 * background: a round trip fewer before the prompt).
 */
const closedAfter = <A, E, R>(effect: Effect.Effect<A, E, R | Scope.Scope>): Effect.Effect<A, E, Exclude<R, Scope.Scope> | Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    if (path.sep !== "/") return yield* Effect.scoped(effect)
    const scope = yield* Scope.make()
    return yield* effect.pipe(
      Scope.provide(scope),
      Effect.onExit((exit) => exit._tag === "Success" ? Effect.asVoid(Effect.forkDetach(Scope.close(scope, exit))) : Scope.close(scope, exit))
    )
  })

/**
 * The plan of a file change: `editTarget`, then (without a lock, and without the freshness check,
 * which the transaction makes) the file read and `change` made on it, for the diff the prompt
 * shows. A change that fails here is left to the run, which reports it after the prompt as before.
 */
export const planChange = <A, R>(
  tool: string,
  call: Call,
  change: Change<A, R>,
  options: ChangeOptions = {}
): Effect.Effect<Tool.Plan<Planned<A>>, Tool.ExecuteError, R | Services> =>
  Effect.gen(function*() {
    // The workspace's protected entries are looked up while the path is resolved, and the requests
    // and the change are worked out side by side: each waits on the file system most of its time.
    const [resolved, guarded] = yield* Effect.all([locate(tool, call.filePath), protectedNow], { concurrency: 2 })
    const shown = yield* displayPath(resolved)
    const target = { real: resolved.real, shown }
    const [requested, worked] = yield* Effect.all([requestsFor(resolved, shown, guarded), Effect.gen(function*() {
      const entry = yield* lookUp(tool, target.real, target.shown)
      // A file over the edit limit (write replaces any size) would be read whole a second time for
      // a diff the result only summarises: the prompt goes without it.
      if (entry._tag === "File" && entry.size > MAX_EDIT_BYTES) return undefined
      let read: { readonly bytes: Uint8Array; readonly decoded: Decoded } | undefined
      if (entry._tag === "File") {
        const bytes = yield* readText(tool, target.real, target.shown, entry, options.anySize === true)
        let decoded: Decoded | undefined
        read = {
          bytes,
          get decoded() {
            return (decoded ??= decode(bytes))
          }
        }
      }
      const current: Current = {
        shown: target.shown,
        real: target.real,
        entry,
        bytes: read?.bytes,
        get decoded() {
          return read?.decoded
        }
      }
      const outcome = yield* Effect.result(Effect.flatMap(change(current), (changed) => resolve(tool, target.shown, read, changed)))
      return Result.isSuccess(outcome)
        ? { entry, bytes: read?.bytes, changed: outcome.success, failure: undefined } satisfies Worked<A>
        : { entry, bytes: read?.bytes, changed: undefined, failure: outcome.failure } satisfies Worked<A>
    }).pipe(closedAfter, Effect.orElseSucceed(() => undefined))], { concurrency: 2 })
    const diff = worked?.changed?.diff
    const requests = diff === undefined ? requested : requested.map((request) =>
      request.permission === "edit"
        ? { ...request, display: { kind: "diff" as const, path: target.shown, diff: diff.patch } }
        : request
    )
    return { requests, state: { target: { ...target, requests }, worked } }
  })

/** Text → the file's encoding; a character it cannot hold is an error naming it and its line. */
const encodeFor = (tool: string, shown: string, decoded: Pick<Decoded, "encoding" | "bom">, encoded: () => Uint8Array | Unencodable) => {
  const bytes = encoded()
  if (!isUnencodable(bytes)) return Effect.succeed(bytes)
  return fail(
    tool,
    "encoding",
    `${shown} is encoded as ${encodingLabel(decoded)}, which cannot hold ${JSON.stringify(bytes.char)} ` +
      `(U+${bytes.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}, line ${bytes.line} of the new content). ` +
      "Nothing was written. Use characters the file's encoding has, or convert the file to UTF-8 first."
  )
}

/** The arguments of a call of a file-changing tool. */
export interface Call {
  readonly filePath: string
}

type Target = Effect.Success<ReturnType<typeof editTarget>>

/**
 * The file a file-changing tool writes and the call's permission requests for it:
 * `external_directory` when it lies outside the workspace, then `edit` with the shown path
 * (always asked for a protected control file: `editRequests`).
 */
export const editTarget = Effect.fnUntraced(function*(tool: string, filePath: string) {
  const resolved = yield* locate(tool, filePath)
  const shown = yield* displayPath(resolved)
  return { real: resolved.real, shown, requests: yield* requestsFor(resolved, shown) }
})

/** The requests of `editTarget` for a resolved path shown as `shown`. */
const requestsFor = Effect.fnUntraced(function*(resolved: Workspace.Resolved, shown: string, guarded?: ProtectedPaths.Resolved) {
  const [edit] = yield* editRequests([{ shown, real: resolved.real }], () => ({ filepath: resolved.real }), guarded)
  return withExternal(resolved, { access: "write", kind: "file" }, edit!)
})

/**
 * Writes `bytes` to `real` atomically (parents created, mode and hard links kept) and records the
 * write in FileTime, so the session's next edit needs no fresh read.
 */
const commit = Effect.fnUntraced(function*(
  tool: string,
  sessionID: string,
  real: string,
  bytes: Uint8Array,
  entry: Entry
) {
  const path = yield* Path.Path
  const fileTime = yield* FileTime.FileTime
  const wrap = <A, R>(effect: Effect.Effect<A, PlatformError, R>) =>
    effect.pipe(
      Effect.mapError((e) => fsFailure(tool, `Cannot write ${real}`, e, ". Nothing was changed."))
    )
  if (entry._tag === "Missing") yield* wrap(ensureDirectory(path.dirname(real)))
  yield* wrap(atomicWrite(real, bytes, entry._tag === "File" ? { mode: entry.mode, links: entry.links } : {}))
  // The buffer is read into again once FileTime no longer holds these bytes.
  yield* fileTime.recordWrite(sessionID, real, bytes, giveBack).pipe(Effect.ignore)
})

export { unifiedDiff }
