/**
 * stdout belongs to the protocol. `guardStdout` hands the MCP transport a private stream onto the
 * real stdout and sends every other write to `process.stdout` (console.log, Effect's default
 * logger, a chatty custom tool or plugin) to stderr instead, until its scope closes.
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import { Writable } from "node:stream"

interface Guard {
  readonly protocol: Writable
  readonly restore: () => void
  users: number
}

let current: Guard | undefined

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
  return {
    protocol,
    users: 0,
    restore: () => {
      stdout.write = write
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
