/**
 * Applying a parsed patch in two phases (codex and opencode write file by file
 * and leave a half-applied patch behind):
 * 1. plan: every hunk is checked and computed in memory, in order, on a virtual view of the files
 *    (an Update after an Add of the same path sees the added text). Nothing is written.
 * 2. commit: new contents go to temp files beside their targets, then every temp is renamed into
 *    place and every deletion done; if any step fails, what was done is undone from the originals
 *    kept in memory, and created directories are removed again.
 * In `sequential` mode (codex) the hunks before a failing one are committed and the failure is
 * reported after them; in `atomic` mode (default) a failure commits nothing.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import type { PlatformError } from "effect/PlatformError"
import { Bytes, Tool } from "@agent-tools/core"
import { atomicWrite, describeFsError, ensureDirectory, fsErrorReason, inspect, writeTemp } from "../internal/file/files.ts"
import { MAX_EDIT_BYTES } from "../internal/limits.ts"
import { megabytes } from "../internal/size.ts"
import { decode, encode, encodingLabel, isBinary, isUnencodable } from "../internal/text.ts"
import type { Hunk } from "./parser.ts"
import { deriveUpdate, type Semantics, UpdateError } from "./update.ts"

export interface Target {
  readonly real: string
  /** Relative to the workspace root (with `/`), or absolute outside it. */
  readonly shown: string
}

export interface HunkTargets {
  readonly path: Target
  readonly move?: Target | undefined
}

type Original =
  | { readonly kind: "missing" | "directory" | "other" }
  | { readonly kind: "file"; readonly bytes: Uint8Array; readonly mode: number; readonly links: number }

/** One path's state during planning: what it was on disk and what it should become. */
export interface Slot {
  readonly real: string
  readonly shown: string
  readonly original: Original
  /** null: the path should not exist. */
  current: Uint8Array | null
}

export interface Change {
  readonly type: "add" | "update" | "move" | "delete"
  readonly shown: string
  readonly from?: string | undefined
}

export interface PlanResult {
  readonly slots: ReadonlyArray<Slot>
  /** The changes of the hunks planned successfully, in hunk order. */
  readonly changes: ReadonlyArray<Change>
  readonly failure: { readonly hunk: number; readonly line: number; readonly reason: Tool.ToolErrorReason; readonly message: string } | undefined
}

class HunkFailure extends Error {
  readonly reason: Tool.ToolErrorReason
  constructor(message: string, reason: Tool.ToolErrorReason) {
    super(message)
    this.reason = reason
  }
}

/** Plans the hunks in order; stops at the first failing one (reported, not thrown). */
export const planPatch = Effect.fnUntraced(function*(
  hunks: ReadonlyArray<Hunk>,
  targets: ReadonlyArray<HunkTargets>,
  semantics: Semantics
): Effect.fn.Return<PlanResult, PlatformError, FileSystem.FileSystem> {
  const fs = yield* FileSystem.FileSystem
  const slots = new Map<string, Slot>()
  const slot = Effect.fnUntraced(function*(t: Target) {
    const known = slots.get(t.real)
    if (known !== undefined) return known
    const entry = yield* inspect(t.real)
    let original: Original
    if (entry._tag === "File") {
      original = entry.size > MAX_EDIT_BYTES
        ? { kind: "other" }
        : { kind: "file", bytes: yield* fs.readFile(t.real), mode: entry.mode, links: entry.links }
    } else original = { kind: entry._tag === "Missing" ? "missing" : entry._tag === "Directory" ? "directory" : "other" }
    const created: Slot = { real: t.real, shown: t.shown, original, current: original.kind === "file" ? original.bytes : null }
    slots.set(t.real, created)
    return created
  })
  /** Why nothing can be written at `s` (a directory, a special file, a file too big), if so. */
  const blocked = (s: Slot): string | undefined =>
    s.current !== null || s.original.kind === "missing" || s.original.kind === "file"
      ? undefined
      : s.original.kind === "directory"
      ? "it is a directory"
      : `not a regular file, or larger than ${megabytes(MAX_EDIT_BYTES)}`
  const blockedReason = (s: Slot): Tool.ToolErrorReason | undefined =>
    blocked(s) === undefined ? undefined : s.original.kind === "directory" ? "is-directory" : "too-large"
  const existing = (s: Slot, verb: string): Uint8Array => {
    if (s.current !== null) return s.current
    throw new HunkFailure(`Failed to ${verb} ${s.shown}: ${blocked(s) ?? "No such file or directory"}`, blockedReason(s) ?? "not-found")
  }
  const changes: Array<Change> = []
  for (let i = 0; i < hunks.length; i++) {
    const hunk = hunks[i]!
    const t = targets[i]!
    const s = yield* slot(t.path)
    const dest = t.move === undefined ? undefined : yield* slot(t.move)
    try {
      if (hunk.type === "add") {
        const why = blocked(s)
        if (why !== undefined) throw new HunkFailure(`Failed to write file ${s.shown}: ${why}`, blockedReason(s)!)
        s.current = new TextEncoder().encode(hunk.contents)
        changes.push({ type: "add", shown: s.shown })
      } else if (hunk.type === "delete") {
        existing(s, "delete file")
        s.current = null
        changes.push({ type: "delete", shown: s.shown })
      } else {
        const bytes = existing(s, "read file to update")
        if (isBinary(s.real, bytes)) throw new HunkFailure(`Cannot update ${s.shown}: it is a binary file`, "binary")
        const decoded = decode(bytes)
        const text = deriveUpdate(decoded.text, hunk.chunks, s.shown, semantics)
        const next = encode(text, decoded.encoding, decoded.bom)
        if (isUnencodable(next)) {
          throw new HunkFailure(
            `${s.shown} is encoded as ${encodingLabel(decoded)}, which cannot hold ${JSON.stringify(next.char)} (line ${next.line})`,
            "encoding"
          )
        }
        if (dest !== undefined && dest !== s) {
          const why = blocked(dest)
          if (why !== undefined) throw new HunkFailure(`Failed to move to ${dest.shown}: ${why}`, blockedReason(dest)!)
          dest.current = next
          s.current = null
          changes.push({ type: "move", shown: dest.shown, from: s.shown })
        } else {
          s.current = next
          changes.push({ type: "update", shown: s.shown })
        }
      }
    } catch (e) {
      if (!(e instanceof HunkFailure || e instanceof UpdateError)) throw e
      return { slots: [...slots.values()], changes, failure: { hunk: i, line: hunk.line, reason: e.reason, message: e.message } }
    }
  }
  return { slots: [...slots.values()], changes, failure: undefined }
})


/** Slots whose final state differs from the disk. */
export const changedSlots = (slots: ReadonlyArray<Slot>): Array<Slot> =>
  slots.filter((s) =>
    s.current === null ? s.original.kind === "file" : s.original.kind !== "file" || !Bytes.equal(s.original.bytes, s.current)
  )

/**
 * Writes every changed slot, all or nothing. Fails with a ToolError that says whether the rollback
 * restored everything.
 */
export const commitSlots = Effect.fnUntraced(function*(
  slots: ReadonlyArray<Slot>
): Effect.fn.Return<void, Tool.ToolError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const createdDirs: Array<string> = []
  const temps = new Map<string, string>()
  const done: Array<Slot> = []
  const cleanup = Effect.gen(function*() {
    for (const temp of temps.values()) yield* fs.remove(temp).pipe(Effect.ignore)
    // Only if still empty: a directory someone else filled meanwhile stays.
    for (const dir of [...createdDirs].reverse()) {
      const entries = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => ["?"]))
      if (entries.length === 0) yield* fs.remove(dir, { recursive: true }).pipe(Effect.ignore)
    }
  })
  const rollback = Effect.gen(function*() {
    const failed: Array<string> = []
    for (const s of [...done].reverse()) {
      const undo = s.original.kind === "file"
        ? atomicWrite(s.real, s.original.bytes, { mode: s.original.mode, links: s.original.links })
        : fs.remove(s.real)
      yield* undo.pipe(Effect.catch(() => Effect.sync(() => failed.push(s.shown))))
    }
    return failed
  })
  const failure = (s: Slot, e: PlatformError, undone: ReadonlyArray<string> | undefined) =>
    new Tool.ToolError({
      tool: "apply_patch",
      reason: fsErrorReason(e),
      cause: e,
      message: `Failed to write ${s.shown}: ${describeFsError(e)}. ` +
        (undone === undefined || undone.length === 0
          ? "No files were changed (everything written so far was restored)."
          : `The rollback could not restore: ${undone.join(", ")}.`)
    })

  // Phase 1: temps beside their targets (a failure here has touched no target).
  for (const s of slots) {
    if (s.current === null || (s.original.kind === "file" && s.original.links > 1)) continue
    const write = Effect.gen(function*() {
      createdDirs.push(...(yield* ensureDirectory(path.dirname(s.real))))
      temps.set(s.real, yield* writeTemp(s.real, s.current!, s.original.kind === "file" ? s.original.mode : undefined))
    })
    yield* write.pipe(Effect.catch((e) => Effect.andThen(cleanup, Effect.fail(failure(s, e, undefined)))))
  }
  // Phase 2: renames and deletions, journaled for the rollback.
  for (const s of slots) {
    const temp = temps.get(s.real)
    const step = s.current === null ? fs.remove(s.real) : temp !== undefined ? fs.rename(temp, s.real) : fs.writeFile(s.real, s.current)
    yield* step.pipe(
      Effect.catch((e) =>
        Effect.gen(function*() {
          const undone = yield* rollback
          yield* cleanup
          return yield* Effect.fail(failure(s, e, undone))
        })
      )
    )
    temps.delete(s.real)
    done.push(s)
  }
})
