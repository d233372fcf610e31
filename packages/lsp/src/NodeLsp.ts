/**
 * `Lsp` on Node: real language servers (Servers.ts), one per project root and server, started on
 * the first file of theirs that is touched or asked about, and shut down when the layer's scope
 * closes. A server that fails to start is not retried: its files get no diagnostics, and the
 * failure is the answer to queries about them.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Scope from "effect/Scope"
import type { ChildProcessSpawner } from "effect/process"
import { Lsp } from "@agent-tools/core"
import * as LspClient from "./LspClient.ts"
import * as Results from "./Results.ts"
import * as Servers from "./Servers.ts"
import * as Uri from "./Uri.ts"

/** How long a touch waits for diagnostics by default. */
export const DEFAULT_DIAGNOSTICS_TIMEOUT = Duration.seconds(3)
/** How long a server must stay silent after publishing for its diagnostics to count as complete (see `LspClient.Wait`). */
export const QUIET = Duration.millis(300)
/** The same after a file's first publish, when the project's first type check may still be running. */
export const FIRST_QUIET = Duration.seconds(1)
/** How long a server may take to start and answer `initialize`. */
export const START_TIMEOUT = Duration.seconds(60)

export interface Options {
  /** The workspace root: files outside it are not given to a server. */
  readonly root: string
  /** The longest a touch waits for diagnostics (default 3 s). */
  readonly diagnosticsTimeout?: Duration.Input | undefined
  /** The servers to run (default: `Servers.servers`, with `workspaceTypeScript`). */
  readonly servers?: ReadonlyArray<Servers.Server> | undefined
  /** Run the workspace's own TypeScript instead of ours (see `Servers.TypeScriptOptions`). */
  readonly workspaceTypeScript?: boolean | undefined
}

type Requirements = FileSystem.FileSystem | Path.Path | ChildProcessSpawner.ChildProcessSpawner

export const make = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<Lsp.Service, never, Requirements | Scope.Scope> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const context = yield* Effect.context<Requirements>()
  const scope = yield* Effect.scope
  const servers = options.servers ?? Servers.servers({ workspaceTypeScript: options.workspaceTypeScript })
  const timeout = Duration.fromInputUnsafe(options.diagnosticsTimeout ?? DEFAULT_DIAGNOSTICS_TIMEOUT)
  const root = path.resolve(options.root)
  const clients = new Map<string, Deferred.Deferred<LspClient.Client, Lsp.LspError>>()

  const inside = (file: string) => file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep)

  /** The running client for a file's server and project (started once, on first use). */
  const clientFor = Effect.fnUntraced(function*(file: string) {
    const server = Servers.forFile(servers, file, path)
    if (server === undefined || !inside(file)) {
      const known = servers.map((s) => `${s.id} (${Object.keys(s.languages).join(" ")})`).join(", ")
      return yield* new Lsp.LspError({
        reason: "NoServer",
        message: inside(file)
          ? `no language server handles ${path.extname(file) || path.basename(file)} files (servers: ${known})`
          : `${file} is outside the workspace; language servers run on its files only`
      })
    }
    const projectRoot = yield* Servers.rootOf(server, file, root).pipe(Effect.provideContext(context))
    const key = `${server.id}\u0000${projectRoot}`
    const existing = clients.get(key)
    if (existing !== undefined) return yield* Deferred.await(existing)
    const deferred = Deferred.makeUnsafe<LspClient.Client, Lsp.LspError>()
    clients.set(key, deferred)
    // Started in the layer's scope, not the caller's: the server outlives this call.
    const started = yield* LspClient.start(server, projectRoot, START_TIMEOUT).pipe(
      Scope.provide(scope),
      Effect.provideContext(context),
      Effect.exit
    )
    yield* Deferred.done(deferred, started)
    return yield* started
  })

  /** Sends the file's current text; the client and the publish count before it, or undefined. */
  const sync = Effect.fnUntraced(function*(file: string) {
    const client = yield* clientFor(file)
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((e) => new Lsp.LspError({ reason: "Failed", message: `cannot read ${file}: ${e.message}` }))
    )
    const since = yield* client.sync(file, text)
    return { client, since }
  })

  const touchFile = Effect.fn("Lsp.touchFile")(function*(file: string, waitForDiagnostics: boolean) {
    const absolute = path.resolve(file)
    if (!waitForDiagnostics) {
      // In the background, in the layer's scope: the caller (a read) does not wait for a server to start.
      yield* sync(absolute).pipe(Effect.ignore, Effect.forkIn(scope))
      return
    }
    const synced = yield* sync(absolute).pipe(Effect.option)
    if (synced._tag === "None") return
    const { client, since } = synced.value
    yield* client.waitForDiagnostics(absolute, since, { quiet: QUIET, firstQuiet: FIRST_QUIET, timeout })
  })

  const diagnostics = Effect.suspend(() => {
    const all = new Map<string, ReadonlyArray<Lsp.Diagnostic>>()
    return Effect.forEach(clients.values(), (d) => Effect.option(Deferred.await(d)), { discard: false }).pipe(
      Effect.map((found) => {
        for (const client of found) {
          if (client._tag === "None") continue
          for (const [file, list] of client.value.diagnostics) all.set(file, list)
        }
        return all as ReadonlyMap<string, ReadonlyArray<Lsp.Diagnostic>>
      })
    )
  })

  /** A query on a file: opened in its server first when the server has not seen it. */
  const query = Effect.fnUntraced(function*(file: string, method: string, params: (uri: string) => unknown) {
    const absolute = path.resolve(file)
    const client = yield* clientFor(absolute)
    if (!client.isOpen(absolute)) yield* sync(absolute)
    return yield* client.request(method, params(Uri.fromPath(absolute)))
  })

  const at = (position: Lsp.Position) => (uri: string) => ({ textDocument: { uri }, position })

  return {
    enabled: true,
    touchFile,
    diagnostics: Effect.withSpan(diagnostics, "Lsp.diagnostics"),
    definition: Effect.fn("Lsp.definition")(function*(file: string, position: Lsp.Position) {
      return Results.locations(yield* query(file, "textDocument/definition", at(position)))
    }),
    references: Effect.fn("Lsp.references")(function*(file: string, position: Lsp.Position) {
      return Results.locations(
        yield* query(file, "textDocument/references", (uri) => ({ ...at(position)(uri), context: { includeDeclaration: true } }))
      )
    }),
    hover: Effect.fn("Lsp.hover")(function*(file: string, position: Lsp.Position) {
      return Results.hoverText(yield* query(file, "textDocument/hover", at(position)))
    }),
    documentSymbols: Effect.fn("Lsp.documentSymbols")(function*(file: string) {
      return Results.documentSymbols(yield* query(file, "textDocument/documentSymbol", (uri) => ({ textDocument: { uri } })))
    })
  } satisfies Lsp.Service
})

/** Real language servers for the workspace at `options.root`; they stop when the layer's scope closes. */
export const layer = (options: Options): Layer.Layer<never, never, Requirements> => Layer.effect(Lsp.Lsp, make(options))
