/**
 * apply_patch: the codex patch format (parser.ts), all-or-nothing by default (apply.ts).
 *
 * The mode is configuration, not a model parameter: a model must not be able to opt out of
 * atomicity. Provide `ApplyPatchConfig` (e.g. `Layer.succeed(ApplyPatchConfig, { mode:
 * "sequential" })`) where the registry is built to get codex's semantics: hunks before a failing
 * one stay applied, an updated file always ends with a newline, a pure addition goes to the end.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as z from "zod"
import { Bytes, Events, FileTime, Tool } from "@agent-tools/core"
import { externalRequest, locate } from "../internal/shared/access.ts"
import { editRequests } from "../internal/shared/protected.ts"
import { assertFresh, displayPath, fsFailure, type Services } from "../internal/file/common.ts"
import { BY_PATH, diagnosticsAfterChange } from "../internal/file/diagnostics.ts"
import { unifiedDiff } from "../internal/diff.ts"
import { inspect } from "../internal/file/files.ts"
import { decode, isBinary } from "../internal/text.ts"
import { type Change, changedSlots, commitSlots, type HunkTargets, planPatch, type PlanResult, type Slot } from "./apply.ts"
import { APPLY_PATCH } from "./description.ts"
import { type Hunk, parsePatch, PatchParseError } from "./parser.ts"

export interface ApplyPatchConfig {
  /** `atomic` (default): nothing is written unless every hunk applies. `sequential`: codex semantics. */
  readonly mode: "atomic" | "sequential"
}

export const ApplyPatchConfig = Context.Reference<ApplyPatchConfig>("@agent-tools/tools/ApplyPatchConfig", {
  defaultValue: () => ({ mode: "atomic" })
})

const parameters = z.lazy(() =>
  z.object({
    patchText: z.string().describe("The full patch text that describes all changes to be made")
  })
)

const fail = (reason: Tool.ToolErrorReason, message: string) => Effect.fail(new Tool.ToolError({ tool: "apply_patch", reason, message }))

const letter = { add: "A", update: "M", move: "M", delete: "D" } as const

/** codex's summary order: added, then modified, then deleted. */
const summary = (changes: ReadonlyArray<Change>): string =>
  (["add", "update", "delete"] as const)
    .flatMap((kind) => changes.filter((c) => c.type === kind || (kind === "update" && c.type === "move")))
    .map((c) => `${letter[c.type]} ${c.shown}`)
    .join("\n")

/**
 * The moves that only rename: the file arrives with the bytes it had (no chunk, or chunks that
 * change nothing). Shown as a rename, not as the whole file deleted and added again; keyed by the
 * source's shown path.
 */
const pureRenames = (changes: ReadonlyArray<Change>, slots: ReadonlyArray<Slot>): Map<string, Slot> => {
  const out = new Map<string, Slot>()
  for (const c of changes) {
    if (c.type !== "move" || c.from === undefined) continue
    const from = slots.find((s) => s.shown === c.from)
    const to = slots.find((s) => s.shown === c.shown)
    if (from === undefined || to === undefined || from.current !== null || from.original.kind !== "file" || to.current === null) continue
    if (to.original.kind === "file" || !Bytes.equal(from.original.bytes, to.current)) continue
    out.set(from.shown, to)
  }
  return out
}


const textOf = (s: Slot, bytes: Uint8Array | null): string =>
  bytes === null ? "" : isBinary(s.real, bytes) ? "(binary content)\n" : decode(bytes).text

/** What the result lists per changed file: its diff (or the rename), from a worked-out patch. */
const filesOf = (planned: PlanResult) => {
  const changed = changedSlots(planned.slots)
  const renamed = pureRenames(planned.changes, planned.slots)
  return changed.flatMap((s) => {
    const to = renamed.get(s.shown)
    if (to !== undefined) {
      const patch = `renamed ${s.shown} → ${to.shown}`
      return [{ filePath: s.real, relativePath: s.shown, type: "move" as const, patch, additions: 0, deletions: 0, movePath: to.shown }]
    }
    if ([...renamed.values()].some((t) => t.shown === s.shown)) return []
    const diff = unifiedDiff(s.shown, textOf(s, s.original.kind === "file" ? s.original.bytes : null), textOf(s, s.current))
    const change = planned.changes.findLast((c) => c.shown === s.shown || c.from === s.shown)
    return [{
      filePath: s.real,
      relativePath: s.shown,
      type: change?.type ?? "update",
      patch: diff.patch,
      additions: diff.additions,
      deletions: diff.deletions,
      ...(change?.type === "move" ? { movePath: change.shown } : {})
    }]
  })
}

type FileEntry = ReturnType<typeof filesOf>[number]

/**
 * The `edit` requests with the diff of their files for the prompt (a file's diff goes with the
 * request that names it: a protected file is asked apart).
 */
const withDiffs = (requests: ReadonlyArray<Tool.AskInput>, files: ReadonlyArray<FileEntry>): ReadonlyArray<Tool.AskInput> =>
  requests.map((request) => {
    if (request.permission !== "edit") return request
    const own = files.filter((f) => request.patterns.includes(f.relativePath) || (f.movePath !== undefined && request.patterns.includes(f.movePath)))
    return own.length === 0
      ? request
      : { ...request, display: { kind: "diff", path: request.patterns.join(", "), diff: own.map((f) => f.patch).join("\n") } }
  })

/** The disk still holds what `slots` were worked out on (same kind; a file: same bytes, mode and links). */
const unchanged = Effect.fnUntraced(function*(slots: ReadonlyArray<Slot>) {
  for (const s of slots) {
    const entry = yield* inspect(s.real)
    const o = s.original
    if (o.kind === "file") {
      if (entry._tag !== "File" || entry.size !== o.bytes.length || entry.mode !== o.mode || entry.links !== o.links) return false
      const fs = yield* FileSystem.FileSystem
      if (!Bytes.equal(yield* fs.readFile(s.real), o.bytes)) return false
    } else if (o.kind === "other" || entry._tag !== (o.kind === "missing" ? "Missing" : "Directory")) return false
  }
  return true
})

/** A call worked out before it is asked: the run takes it over when the files are as they were. */
interface Planned {
  readonly hunks: ReadonlyArray<Hunk>
  readonly targets: ReadonlyArray<HunkTargets>
  readonly requests: ReadonlyArray<Tool.AskInput>
  /** The patch on the files as the plan read them (undefined: they could not be read then). */
  readonly worked: { readonly result: PlanResult; readonly files: ReadonlyArray<FileEntry> } | undefined
}

export const ApplyPatchTool = Tool.define(
  "apply_patch",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const config = yield* ApplyPatchConfig
    const events = yield* Events.Events
    const semantics = config.mode

    /**
     * The parsed hunks, their files, and the call's permission requests: `external_directory` for
     * each file outside the workspace, then one `edit` for every file the patch names.
     */
    const prepare = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      if (args.patchText.trim().length === 0) return yield* fail("invalid", "patchText is required")
      const hunks = yield* Effect.try({
        try: () => parsePatch(args.patchText, "lenient"),
        catch: (e) =>
          new Tool.ToolError({
            tool: "apply_patch",
            reason: "invalid",
            cause: e,
            message: `${e instanceof PatchParseError ? e.message : `Cannot parse the patch: ${String(e)}`}\nNo files were changed.`
          })
      })
      if (hunks.length === 0) return yield* fail("invalid", "No files were modified. The patch is empty: it has no Add, Delete or Update File section.")
      const external = new Map<string, Tool.AskInput>()
      const shownPaths = new Map<string, string>()
      const target = Effect.fnUntraced(function*(hunk: Hunk, file: string) {
        if (file.trim().length === 0) return yield* fail("invalid", `Invalid patch hunk on line ${hunk.line}: the file path is empty`)
        const resolved = yield* locate("apply_patch", file)
        const request = externalRequest(resolved, { access: "write", kind: "file" })
        if (request !== undefined && !external.has(request.patterns[0]!)) external.set(request.patterns[0]!, request)
        const shown = yield* displayPath(resolved)
        shownPaths.set(shown, resolved.real)
        return { real: resolved.real, shown }
      })
      const targets = yield* Effect.forEach(hunks, (hunk) =>
        Effect.gen(function*() {
          const path = yield* target(hunk, hunk.path)
          const move = hunk.type === "update" && hunk.movePath !== undefined ? yield* target(hunk, hunk.movePath) : undefined
          return { path, move } satisfies HunkTargets
        }))
      const edits = yield* editRequests(
        [...shownPaths].map(([shown, real]) => ({ shown, real })),
        (shown) => ({ filepath: shown.join(", ") })
      )
      const requests: ReadonlyArray<Tool.AskInput> = [...external.values(), ...edits]
      return { hunks, targets, requests }
    }, Effect.provideContext(services))

    // The patch is worked out once, before the prompt, so the prompt shows its diff; the run takes
    // it over while the files are unchanged (checked under the locks), else works it out again.
    const plan = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      const prepared = yield* prepare(args)
      const result = yield* planPatch(prepared.hunks, prepared.targets, semantics).pipe(Effect.option, Effect.map((o) => o._tag === "Some" ? o.value : undefined))
      // A patch that would fail as a whole writes nothing: there is no change to show.
      const worked = result === undefined || (result.failure !== undefined && (semantics === "atomic" || result.changes.length === 0))
        ? undefined
        : { result, files: filesOf(result) }
      const requests = worked === undefined ? prepared.requests : withDiffs(prepared.requests, worked.files)
      return { requests, state: { ...prepared, requests, worked } satisfies Planned }
    }, Effect.provideContext(services))

    const execute = Effect.fn("ApplyPatchTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context, given?: Planned | undefined) {
      const { hunks, targets, requests, worked } = given ?? { ...(yield* prepare(args)), worked: undefined }
      yield* ctx.askAll(requests)
      const locked = [...new Set(targets.flatMap((t) => [t.path.real, ...(t.move ? [t.move.real] : [])]))].sort()
      const fileTime = yield* FileTime.FileTime

      const run = Effect.gen(function*() {
        const reused = worked !== undefined && (yield* unchanged(worked.result.slots).pipe(Effect.orElseSucceed(() => false)))
        const planned = reused ? worked.result : yield* planPatch(hunks, targets, semantics).pipe(
          Effect.mapError((e) => fsFailure("apply_patch", "Cannot read a file of the patch", e))
        )
        // The same freshness check as write and edit, on the bytes read under the locks: every file
        // the patch changes was read in this session and has not changed since.
        for (const s of planned.slots) {
          if (s.original.kind === "file") yield* assertFresh("apply_patch", ctx.sessionID, s.real, s.original.bytes)
        }
        const failure = planned.failure
        const where = failure === undefined ? "" : `apply_patch failed at hunk ${failure.hunk + 1} (patch line ${failure.line}): ${failure.message}`
        if (failure !== undefined && (semantics === "atomic" || planned.changes.length === 0)) {
          return yield* fail(failure.reason, `${where}\nNo files were changed.`)
        }
        const changed = changedSlots(planned.slots)
        const files = reused ? worked.files : filesOf(planned)
        const diff = files.map((f) => f.patch).join("\n")
        if (changed.length > 0) {
          yield* commitSlots(changed)
          for (const s of changed) {
            if (s.current === null) continue
            yield* fileTime.recordWrite(ctx.sessionID, s.real, s.current).pipe(Effect.ignore)
            yield* events.publish({ _tag: "FileEdited", path: s.real, tool: "apply_patch", sessionID: ctx.sessionID })
          }
        }
        const list = summary(planned.changes)
        if (failure !== undefined) {
          return yield* fail(failure.reason, `${where}\nThe hunks before it were applied (sequential mode):\n${list}`)
        }
        const result: Tool.Result = {
          title: list.split("\n").join(", "),
          output: `Success. Updated the following files:\n${list}`,
          metadata: { diff, files, mode: semantics }
        }
        return { result, written: changed.filter((s) => s.current !== null) }
      })
      const { result, written } = yield* locked.reduce<typeof run>((inner, real) => fileTime.withLock(real, inner), run)
      // Waited on after the locks are released: other calls need not wait for the language server.
      const errors = yield* diagnosticsAfterChange(written, BY_PATH)
      return errors === "" ? result : { ...result, output: result.output + errors }
    }, Effect.provideContext(services))

    return {
      description: APPLY_PATCH,
      parameters,
      annotations: { destructive: true },
      plan,
      execute
    }
  })
)
