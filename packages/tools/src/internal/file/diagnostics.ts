/**
 * The language servers' errors after a file change, as text to append to a file tool's output:
 * the changed files are touched (each server gets the new text and is waited on for a short,
 * bounded time), then the errors are reported as `LspReport.append` formats them. With the no-op
 * `Lsp` (LSP off) it returns "" at once: no waiting, no file-system call.
 */
import * as Effect from "effect/Effect"
import * as Path from "effect/Path"
import { Lsp, LspReport, Workspace } from "@agent-tools/core"

/** One-file tools name their file "this file"; apply_patch names each by its path. */
export const THIS_FILE = (): string => "this file"
export const BY_PATH = (file: LspReport.Touched): string => file.shown

export const diagnosticsAfterChange = Effect.fnUntraced(function*(
  touched: ReadonlyArray<LspReport.Touched>,
  heading: (file: LspReport.Touched) => string
): Effect.fn.Return<string, never, Workspace.Workspace | Path.Path> {
  const lsp = yield* Lsp.Lsp
  if (!lsp.enabled || touched.length === 0) return ""
  yield* Effect.forEach(touched, (file) => lsp.touchFile(file.real, true), { concurrency: "unbounded", discard: true })
  const diagnostics = yield* lsp.diagnostics
  const root = (yield* Workspace.Workspace).root
  const path = yield* Path.Path
  const show = (file: string) => {
    const rel = path.relative(root, file)
    return rel === "" || rel.startsWith("..") || path.isAbsolute(rel) ? file : rel.split(path.sep).join("/")
  }
  return LspReport.append(touched, diagnostics, heading, show)
})
