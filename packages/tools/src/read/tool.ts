/**
 * read: a page of a text file with line numbers, a directory listing, or an image/PDF attachment.
 * Truncates itself (`metadata.truncated`), records text reads in FileTime (write/edit need them),
 * hands a file read to the language servers (in the background) when they run,
 * and pages spills without an outside-directory prompt: a file store's spills are files that
 * Workspace marks as spills (its `spillDirectories`), and a non-file store's (`memory://`, S3 …)
 * are read through `SpillStorage.read`.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import * as z from "zod"
import { FileTime, Lsp, SpillStorage, Tool, Truncate } from "@agent-tools/core"
import { locate, withExternal } from "../internal/shared/access.ts"
import { spillFailure } from "../internal/shared/failures.ts"
import { displayPath, fail, fsFailure, type Services } from "../internal/file/common.ts"
import { notFoundMessage, similarNames } from "../internal/file/notFound.ts"
import { MAX_EDIT_BYTES, MAX_READ_BYTES, READ_LIMIT } from "../internal/limits.ts"
import { READ } from "./description.ts"
import { inspect } from "../internal/file/files.ts"
import { Pager, StreamLines, textLines } from "./pager.ts"
import { decode, encodingLabel, isBinary, SNIFF_BYTES, sniffMedia, toBase64 } from "../internal/text.ts"

const parameters = z.lazy(() =>
  z.object({
    filePath: z.string().min(1, "must not be empty: give the path of a file or directory").describe(
      "The path of the file or directory to read (absolute, or relative to the workspace root)"
    ),
    offset: z.number().int().min(0).optional().describe("The line number to start reading from (1-indexed)"),
    limit: z.number().int().min(1).optional().describe(`The maximum number of lines to read (defaults to ${READ_LIMIT})`)
  })
)

const PREVIEW_LINES = 20

/**
 * What a page adds around its lines, at most: the <path>/<type>/<content> wrapper, the blank line,
 * the footer and an encoding note (lines), and their text besides the path (bytes).
 */
const FRAME_LINES = 7
const FRAME_BYTES = 320

/** read's own truncation preference: a full page of READ_LIMIT lines fits with its frame. */
const TRUNCATION: Truncate.Settings = { maxLines: READ_LIMIT + FRAME_LINES }

const text = (shown: string, type: "file" | "directory", body: string) =>
  `<path>${shown}</path>\n<type>${type}</type>\n<${type === "file" ? "content" : "entries"}>\n${body}\n</${
    type === "file" ? "content" : "entries"
  }>`

const fsError = (shown: string) => (e: PlatformError) => fsFailure("read", `Cannot read ${shown}`, e)

export const ReadTool = Tool.define(
  "read",
  Effect.gen(function*() {
    const services = yield* Effect.context<Services>()
    const spill = yield* SpillStorage.SpillStorage
    const truncate = yield* Truncate.Truncate

    /** A page that fits the call's output limits with its frame, so the registry never cuts it again. */
    const pagerFor = (args: z.output<typeof parameters>, ctx: Tool.Context, shown: string) => {
      const lim = truncate.limits({ ...ctx.truncation, tool: "read", toolDefaults: TRUNCATION })
      const cap = Math.min(MAX_READ_BYTES, lim.maxBytes)
      return new Pager(
        Math.max(1, args.offset ?? 1),
        Math.max(1, Math.min(args.limit ?? READ_LIMIT, lim.maxLines - FRAME_LINES)),
        Math.max(1, cap - FRAME_BYTES - new TextEncoder().encode(shown).length),
        cap % 1024 === 0 ? `${cap / 1024} KB` : `${cap} bytes`
      )
    }

    /** Pages a byte stream without reading past the page (big files, non-file spills). */
    const pageStream = Effect.fnUntraced(function*(
      shown: string,
      stream: Stream.Stream<Uint8Array, Tool.ToolError>,
      pager: Pager
    ): Effect.fn.Return<Tool.Result, Tool.ToolError> {
      const lines = new StreamLines(pager)
      yield* Stream.runForEachWhile(stream, (chunk) => Effect.sync(() => lines.feed(chunk)))
      const eof = !lines.done
      lines.end()
      if (eof) {
        const range = pager.outOfRange(pager.count)
        if (range !== undefined) return yield* fail("read", "invalid", range)
      }
      const output = `${pager.render()}\n\n${pager.footer(eof ? pager.count : undefined)}`
      return {
        title: shown,
        output: text(shown, "file", output),
        metadata: { truncated: pager.more, preview: pager.kept.slice(0, PREVIEW_LINES).join("\n") }
      }
    })

    const listDirectory = Effect.fnUntraced(function*(
      real: string,
      shown: string,
      pager: Pager
    ): Effect.fn.Return<Tool.Result, Tool.ToolError, FileSystem.FileSystem | Path.Path> {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const names = yield* fs.readDirectory(real).pipe(Effect.mapError(fsError(shown)))
      const entries = yield* Effect.forEach(names, (name) =>
        fs.stat(path.join(real, name)).pipe(
          Effect.map((info) => (info.type === "Directory" ? `${name}/` : name)),
          Effect.orElseSucceed(() => name) // a dangling symlink is listed as a plain entry
        ))
      entries.sort((a, b) => a.localeCompare(b))
      const page = entries.slice(pager.offset - 1, pager.offset - 1 + pager.limit)
      const more = pager.offset - 1 + page.length < entries.length
      const footer = more
        ? `(Showing ${page.length} of ${entries.length} entries. Use 'offset' parameter to read beyond entry ${pager.offset - 1 + page.length})`
        : `(${entries.length} entries)`
      return {
        title: shown,
        output: text(shown, "directory", `${page.join("\n")}\n${footer}`),
        metadata: { truncated: more, preview: entries.slice(0, PREVIEW_LINES).join("\n"), entries: entries.length }
      }
    })

    const readFile = Effect.fnUntraced(function*(
      ctx: Tool.Context,
      real: string,
      shown: string,
      size: number,
      pager: Pager
    ): Effect.fn.Return<Tool.Result, Tool.ToolError, FileSystem.FileSystem | FileTime.FileTime> {
      const fs = yield* FileSystem.FileSystem
      if (size > MAX_EDIT_BYTES) {
        const head = yield* fs.stream(real, { bytesToRead: SNIFF_BYTES }).pipe(Stream.runCollect, Effect.mapError(fsError(shown)))
        const first = head[0] ?? new Uint8Array()
        const media = sniffMedia(first)
        if (media !== undefined) {
          return yield* fail("read", "too-large", `${shown} (${media}, ${size} bytes) is too large to attach; the limit is ${MAX_EDIT_BYTES} bytes.`)
        }
        if (isBinary(real, first)) return yield* fail("read", "binary", `Cannot read binary file: ${shown} (${size} bytes)`)
        const paged = yield* pageStream(shown, fs.stream(real).pipe(Stream.mapError(fsError(shown))), pager)
        // Recorded (hashed from a read of its own) so that write may replace the file.
        yield* FileTime.FileTime.use((ft) => ft.read(ctx.sessionID, real)).pipe(Effect.ignore)
        return paged
      }
      const bytes = yield* fs.readFile(real).pipe(Effect.mapError(fsError(shown)))
      const mime = sniffMedia(bytes)
      if (mime !== undefined) {
        const kind = mime === "application/pdf" ? "PDF" : "Image"
        return {
          title: shown,
          output: `${kind} read successfully`,
          metadata: { truncated: false, mime, size: bytes.length },
          attachments: [{ type: "file" as const, mime, url: `data:${mime};base64,${toBase64(bytes)}`, filename: shown }]
        }
      }
      if (isBinary(real, bytes)) return yield* fail("read", "binary", `Cannot read binary file: ${shown} (${bytes.length} bytes)`)
      const decoded = decode(bytes)
      const lines = textLines(decoded.text)
      const range = pager.outOfRange(lines.length)
      if (range !== undefined) return yield* fail("read", "invalid", range)
      for (let i = 0; i < lines.length && pager.push(lines[i]!); i++);
      yield* FileTime.FileTime.use((ft) => ft.read(ctx.sessionID, real, bytes)).pipe(Effect.ignore)
      const notes = decoded.encoding === "latin1"
        ? "\n(This file is not valid UTF-8: its bytes are shown as ISO-8859-1. Edits keep the encoding.)"
        : decoded.encoding === "utf-8"
        ? ""
        : `\n(Encoding: ${encodingLabel(decoded)}. Edits keep the encoding.)`
      const body = lines.length === 0 ? `(Empty file)` : `${pager.render()}\n\n${pager.footer(lines.length)}${notes}`
      return {
        title: shown,
        output: text(shown, "file", body),
        metadata: {
          truncated: pager.more,
          preview: pager.kept.slice(0, PREVIEW_LINES).join("\n"),
          lines: lines.length,
          encoding: encodingLabel(decoded)
        }
      }
    })

    /** The path, what is there, and the call's permission requests (asked before anything is read). */
    const prepare = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      const resolved = yield* locate("read", args.filePath)
      const entry = yield* inspect(resolved.real).pipe(Effect.mapError(fsError(resolved.absolute)))
      const kind = entry._tag === "Directory" ? "directory" as const : "file" as const
      const requests = withExternal(resolved, { access: "read", kind }, {
        permission: "read",
        patterns: [yield* displayPath(resolved)],
        always: ["*"],
        metadata: { filepath: resolved.real }
      })
      return { resolved, entry, requests }
    }, Effect.provideContext(services))

    /** A spill of a store that is not a directory (S3 …) is only reachable through the store. */
    const storeSpill = (filePath: string) => spill.directory === undefined && spill.owns(filePath)

    return {
      description: READ,
      parameters,
      truncation: TRUNCATION,
      annotations: { readOnly: true },
      requests: (args: z.output<typeof parameters>) =>
        storeSpill(args.filePath) ? Effect.succeed([]) : Effect.map(prepare(args), (p) => p.requests),
      execute: Effect.fn("ReadTool.execute")(function*(
        args: z.output<typeof parameters>,
        ctx: Tool.Context
      ): Effect.fn.Return<Tool.Result, Tool.ExecuteError, Services> {
        if (storeSpill(args.filePath)) {
          const stream = spill.read(args.filePath).pipe(Stream.mapError((e) => spillFailure("read", e)))
          return yield* pageStream(args.filePath, stream, pagerFor(args, ctx, args.filePath))
        }
        const { resolved, entry, requests } = yield* prepare(args)
        yield* ctx.askAll(requests)
        const shown = resolved.absolute
        const pager = pagerFor(args, ctx, shown)
        switch (entry._tag) {
          case "Missing":
            return yield* fail("read", "not-found", notFoundMessage(shown, yield* similarNames(resolved.real)))
          case "Directory":
            return yield* listDirectory(resolved.real, shown, pager)
          case "Other":
            return yield* fail("read", "is-directory", `Cannot read ${shown}: not a regular file or directory`)
          case "File": {
            // The language server gets the file in the background (it warms up for later edits,
            // and the file's errors count among "other files" after them).
            const lsp = yield* Lsp.Lsp
            if (lsp.enabled) yield* lsp.touchFile(resolved.real, false)
            return yield* readFile(ctx, resolved.real, shown, entry.size, pager)
          }
        }
      }, Effect.provideContext(services))
    }
  })
)

