/**
 * One running language server for one project root: started and initialized, kept in step with
 * the files touched (didOpen, then didChange with the whole text), holding the diagnostics it
 * publishes, and shut down politely (shutdown, exit) when its scope closes — the spawner then
 * kills what is left of its process group.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { Lsp } from "@agent-tools/core"
import * as JsonRpc from "./JsonRpc.ts"
import type { Server } from "./Servers.ts"
import * as Uri from "./Uri.ts"

export interface Client {
  readonly server: Server
  readonly root: string
  readonly pid: number
  /** Sends the file's text (didOpen the first time, didChange after); returns the publish count before it. */
  readonly sync: (file: string, text: string) => Effect.Effect<number>
  /** Waits for the server's diagnostics after a sync that returned `since` (see `Wait`). */
  readonly waitForDiagnostics: (file: string, since: number, wait: Wait) => Effect.Effect<void>
  readonly diagnostics: ReadonlyMap<string, ReadonlyArray<Lsp.Diagnostic>>
  readonly isOpen: (file: string) => boolean
  readonly request: (method: string, params: unknown) => Effect.Effect<unknown, Lsp.LspError>
}

const CAPABILITIES = {
  textDocument: {
    synchronization: { didSave: false, dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: true },
    hover: { contentFormat: ["markdown", "plaintext"] },
    definition: { linkSupport: false },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true }
  },
  workspace: { configuration: true, workspaceFolders: true },
  window: { workDoneProgress: false }
}

/**
 * How long to wait for diagnostics after a change. A server publishes in steps (syntax, then
 * types; the changed file, then the files that depend on it) and says nothing about a file whose
 * diagnostics did not change (typescript-language-server skips clean → clean), so: wait for the
 * first publish after the change — for the file itself until `timeout` while the server has never
 * published for it (its project may still be loading), else any publish (the server rechecks its
 * open files together) for at most half the timeout (a server that says nothing had nothing new)
 * — then until the server has been quiet for `quiet` (`firstQuiet` after a file's first publish:
 * the first type check of a project is slow); never longer than `timeout` in all.
 */
export interface Wait {
  readonly quiet: Duration.Duration
  readonly firstQuiet: Duration.Duration
  readonly timeout: Duration.Duration
}

interface Published {
  readonly uri: string
  readonly diagnostics: ReadonlyArray<Lsp.Diagnostic>
}

export const start = Effect.fnUntraced(function*(server: Server, root: string, initTimeout: Duration.Input): Effect.fn.Return<
  Client,
  Lsp.LspError,
  ChildProcessSpawner.ChildProcessSpawner | Scope.Scope
> {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const launch = yield* Effect.try({
    try: () => server.launch(root),
    catch: (e) => new Lsp.LspError({ reason: "Failed", message: `cannot start the ${server.id} language server: ${e instanceof Error ? e.message : String(e)}` })
  })
  const outgoing = yield* Queue.unbounded<Uint8Array>()
  const handle = yield* spawner.spawn(
    ChildProcess.make(launch.command, [...launch.args], {
      cwd: root,
      stdin: Stream.fromQueue(outgoing),
      stderr: "ignore",
      forceKillAfter: "2 seconds"
    })
  ).pipe(Effect.mapError((e) => new Lsp.LspError({ reason: "Failed", message: `cannot start the ${server.id} language server: ${e.message}` })))

  const diagnostics = new Map<string, ReadonlyArray<Lsp.Diagnostic>>()
  // Per file, the publish count at its latest publish; a waiter compares it with its own start.
  const publishedAt = new Map<string, number>()
  let publishes = 0
  let signal = Deferred.makeUnsafe<void>()
  const onNotification = (method: string, params: unknown) =>
    Effect.suspend(() => {
      if (method !== "textDocument/publishDiagnostics") return Effect.void
      const published = params as Published
      const file = Uri.toPath(published.uri)
      if (file === undefined) return Effect.void
      publishes++
      diagnostics.set(file, published.diagnostics)
      publishedAt.set(file, publishes)
      const fired = signal
      signal = Deferred.makeUnsafe<void>()
      return Deferred.succeed(fired, undefined).pipe(Effect.asVoid)
    })

  const name = `the ${server.id} language server`
  const connection = yield* JsonRpc.connect({ stdout: handle.stdout, outgoing, name, onNotification })

  // Runs before the spawner's own finalizer (registered earlier), which kills what is left.
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      yield* connection.request("shutdown", null).pipe(Effect.timeout("1 second"), Effect.ignore)
      yield* connection.notify("exit", null)
      yield* handle.exitCode.pipe(Effect.timeout("1 second"), Effect.ignore)
    })
  )

  yield* connection.request("initialize", {
    processId: process.pid,
    rootUri: Uri.fromPath(root),
    workspaceFolders: [{ uri: Uri.fromPath(root), name: root }],
    capabilities: CAPABILITIES,
    initializationOptions: launch.initializationOptions
  }).pipe(
    Effect.timeoutOrElse({
      duration: initTimeout,
      orElse: () => Effect.fail(new Lsp.LspError({ reason: "Failed", message: `${name} did not initialize in ${Duration.format(Duration.fromInputUnsafe(initTimeout))}` }))
    })
  )
  yield* connection.notify("initialized", {})

  const versions = new Map<string, number>()
  const languageOf = (file: string) => {
    const dot = file.lastIndexOf(".")
    return server.languages[file.slice(dot).toLowerCase()] ?? "plaintext"
  }

  const sync = (file: string, text: string) =>
    Effect.suspend(() => {
      const before = publishes
      const uri = Uri.fromPath(file)
      const version = (versions.get(file) ?? 0) + 1
      versions.set(file, version)
      const sent = version === 1
        ? connection.notify("textDocument/didOpen", { textDocument: { uri, languageId: languageOf(file), version, text } })
        : connection.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] })
      return Effect.as(sent, before)
    })

  /** Resolves with true on the next publish, false after `ms` without one. */
  const nextPublish = (ms: number) =>
    Deferred.await(signal).pipe(Effect.as(true), Effect.timeoutOrElse({ duration: Duration.millis(Math.max(0, ms)), orElse: () => Effect.succeed(false) }))

  const waitForDiagnostics = (file: string, since: number, wait: Wait) =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const deadline = start + Duration.toMillis(wait.timeout)
      const firstPublish = !publishedAt.has(file)
      const settled = firstPublish ? deadline : start + Duration.toMillis(wait.timeout) / 2
      const now = Clock.currentTimeMillis
      const heard = () => firstPublish ? (publishedAt.get(file) ?? 0) > since : publishes > since
      while (!heard()) {
        const ms = settled - (yield* now)
        if (ms <= 0 || !(yield* nextPublish(ms))) return
      }
      for (;;) {
        const ms = deadline - (yield* now)
        const quiet = Duration.toMillis(firstPublish ? wait.firstQuiet : wait.quiet)
        if (ms <= 0 || !(yield* nextPublish(Math.min(quiet, ms)))) return
      }
    })

  return {
    server,
    root,
    pid: handle.pid,
    sync,
    waitForDiagnostics,
    diagnostics,
    isOpen: (file) => versions.has(file),
    request: connection.request
  } satisfies Client
})
