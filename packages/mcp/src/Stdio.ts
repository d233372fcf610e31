/**
 * stdout belongs to the protocol, and stdin too. `guardStdout` hands the MCP transport a private
 * stream onto the real stdout and sends every other write to `process.stdout` (console.log,
 * Effect's default logger, a chatty custom tool or plugin) to stderr instead, until its scope
 * closes. Child processes started meanwhile (a custom tool's `spawn(cmd, { stdio: "inherit" })`)
 * get stderr where they would have inherited stdout, and no stdin: a child writing to its stdout
 * would corrupt the stream, and one reading stdin would swallow the client's messages.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as ChildProcess from "node:child_process"
import { createRequire, syncBuiltinESMExports } from "node:module"
import { Writable } from "node:stream"

interface Guard {
  readonly protocol: Writable
  readonly restore: () => void
  users: number
}

let current: Guard | undefined

/** The `fd` of a stdio entry (a number, or a stream such as `process.stdout`). */
const fdOf = (entry: unknown): number | undefined =>
  typeof entry === "number"
    ? entry
    : typeof entry === "object" && entry !== null && typeof (entry as { fd?: unknown }).fd === "number"
    ? (entry as { fd: number }).fd
    : undefined

/** A child's `stdio` option with our stdin withheld and our stdout replaced by stderr. */
export const awayFromProtocol = (stdio: unknown): unknown => {
  const entries: Array<unknown> | undefined = stdio === "inherit"
    ? ["inherit", "inherit", "inherit"]
    : Array.isArray(stdio)
    ? [...stdio]
    : undefined
  if (entries === undefined) return stdio // "pipe", "ignore", "overlapped" or the default: nothing of ours
  return entries.map((entry, i) => {
    const fd = entry === "inherit" && i <= 2 ? i : fdOf(entry)
    return fd === 0 ? "ignore" : fd === 1 ? 2 : entry
  })
}

/** Rewrites the `stdio` of the options argument of a child_process call (the last plain object). */
const withOptions = <F extends (...args: Array<any>) => any>(original: F): F =>
  (function(this: unknown, ...args: Array<unknown>) {
    const at = args.findLastIndex((a) => typeof a === "object" && a !== null && !Array.isArray(a))
    if (at >= 0) {
      const options = args[at] as { stdio?: unknown }
      if (options.stdio !== undefined) args[at] = { ...options, stdio: awayFromProtocol(options.stdio) }
    }
    return original.apply(this, args)
  }) as F

/** Routes every child process's inherited stdio away from the protocol; returns the undo. */
const guardChildren = (): () => void => {
  // The CommonJS module object: patching it (and syncing the ESM view) reaches every importer.
  const cp = createRequire(import.meta.url)("node:child_process") as typeof ChildProcess
  const proto = cp.ChildProcess.prototype as unknown as { spawn: (options: { stdio?: unknown }) => unknown }
  const spawn = proto.spawn
  // Every asynchronous child (spawn, exec, execFile, fork) is started by this method.
  proto.spawn = function(this: unknown, options: { stdio?: unknown }) {
    // fork's default and `stdio: "inherit"` share our descriptors; `undefined` means "pipe".
    if (options !== null && typeof options === "object" && options.stdio !== undefined) {
      options.stdio = awayFromProtocol(options.stdio)
    }
    return spawn.call(this, options)
  }
  const sync = { spawnSync: cp.spawnSync, execSync: cp.execSync, execFileSync: cp.execFileSync }
  cp.spawnSync = withOptions(sync.spawnSync)
  cp.execSync = withOptions(sync.execSync)
  cp.execFileSync = withOptions(sync.execFileSync)
  syncBuiltinESMExports()
  return () => {
    proto.spawn = spawn
    Object.assign(cp, sync)
    syncBuiltinESMExports()
  }
}

const install = (): Guard => {
  const stdout = process.stdout
  const write = stdout.write
  const writeRaw = write as (this: NodeJS.WriteStream, chunk: Buffer, callback: (error?: Error | null) => void) => boolean
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeRaw.call(stdout, chunk, callback)
    }
  })
  stdout.write = ((...args: Parameters<typeof process.stderr.write>) =>
    process.stderr.write(...args)) as typeof stdout.write
  const restoreChildren = guardChildren()
  return {
    protocol,
    users: 0,
    restore: () => {
      stdout.write = write
      restoreChildren()
    }
  }
}

/**
 * Installs the guard (shared when already installed) and returns the stream the transport must
 * write to. Install it before building layers that may log.
 */
export const guardStdout: Effect.Effect<Writable, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    const guard = current ?? install()
    current = guard
    guard.users++
    return guard
  }),
  (guard) =>
    Effect.sync(() => {
      guard.users--
      if (guard.users === 0 && current === guard) {
        guard.restore()
        current = undefined
      }
    })
).pipe(Effect.map((guard) => guard.protocol))

/** Completes when the client closes our stdin (the MCP stdio way to end a session). */
export const stdinClosed = (stdin: NodeJS.ReadableStream = process.stdin): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const done = () => resume(Effect.void)
    stdin.once("end", done)
    stdin.once("close", done)
    return Effect.sync(() => {
      stdin.off("end", done)
      stdin.off("close", done)
    })
  })
