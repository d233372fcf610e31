/**
 * Language servers, as the tools see them: a file is touched after a tool changed it (the server
 * gets its new text), the diagnostics the servers published are read back, and a few code
 * navigation queries are answered for the `lsp` tool. Positions are LSP's (0-based line and
 * character); paths are absolute.
 *
 * The default (`layerNoop`, also the reference's default value) runs no server: nothing is
 * touched, no diagnostics exist, and `enabled` is false so callers skip the work entirely. The
 * language-server client (`@agent-tools/lsp`) starts real servers.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

export interface Position {
  /** 0-based line. */
  readonly line: number
  /** 0-based character (UTF-16 code units, as LSP counts). */
  readonly character: number
}

export interface Range {
  readonly start: Position
  readonly end: Position
}

/** LSP's severities: 1 error, 2 warning, 3 information, 4 hint. */
export type Severity = 1 | 2 | 3 | 4

export interface Diagnostic {
  readonly range: Range
  readonly severity?: Severity | undefined
  readonly message: string
  readonly source?: string | undefined
  readonly code?: string | number | undefined
}

export interface Location {
  /** Absolute path. */
  readonly path: string
  readonly range: Range
}

export interface DocumentSymbol {
  readonly name: string
  /** LSP's SymbolKind number. */
  readonly kind: number
  readonly detail?: string | undefined
  readonly range: Range
  readonly children: ReadonlyArray<DocumentSymbol>
}

export class LspError extends Schema.TaggedError<LspError>()("LspError", {
  /** NoServer: no server handles this file; Failed: the server failed or answered with an error. */
  reason: Schema.Literals(["NoServer", "Failed"]),
  message: Schema.String
}) {}

export interface Service {
  /** False for the no-op layer: callers skip touching and waiting altogether. */
  readonly enabled: boolean
  /**
   * Sends the file's current text to its server (starting the server on first use). With
   * `waitForDiagnostics`, returns once the server published diagnostics for it and went quiet,
   * or the configured wait ran out; without, returns at once and sends in the background (a read
   * warms the server up). Never fails: a file no server handles is left alone.
   */
  readonly touchFile: (path: string, waitForDiagnostics: boolean) => Effect.Effect<void>
  /** The latest diagnostics of every file a server published for, by absolute path. */
  readonly diagnostics: Effect.Effect<ReadonlyMap<string, ReadonlyArray<Diagnostic>>>
  readonly definition: (path: string, position: Position) => Effect.Effect<ReadonlyArray<Location>, LspError>
  readonly references: (path: string, position: Position) => Effect.Effect<ReadonlyArray<Location>, LspError>
  /** The hover text (markdown or plain), or undefined when the server has none there. */
  readonly hover: (path: string, position: Position) => Effect.Effect<string | undefined, LspError>
  readonly documentSymbols: (path: string) => Effect.Effect<ReadonlyArray<DocumentSymbol>, LspError>
}

const NO_SERVER = "no language server is running (LSP is off: set lsp to true in agent-tools.json)"

/** No server: nothing is touched, there are no diagnostics, queries fail with NoServer. */
export const noop: Service = {
  enabled: false,
  touchFile: () => Effect.void,
  diagnostics: Effect.succeed(new Map()),
  definition: () => Effect.fail(new LspError({ reason: "NoServer", message: NO_SERVER })),
  references: () => Effect.fail(new LspError({ reason: "NoServer", message: NO_SERVER })),
  hover: () => Effect.fail(new LspError({ reason: "NoServer", message: NO_SERVER })),
  documentSymbols: () => Effect.fail(new LspError({ reason: "NoServer", message: NO_SERVER }))
}

/** The language servers of a runtime; the no-op one unless a layer provides real servers. */
export const Lsp = Context.Reference<Service>("@agent-tools/core/Lsp", { defaultValue: () => noop })

export const layerNoop: Layer.Layer<never> = Layer.succeed(Lsp, noop)
