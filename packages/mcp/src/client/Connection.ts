/**
 * One MCP server's connection, started lazily: the first listing or call spawns (or connects to)
 * the server within the start-up timeout; a server that fails to start or exits is down until a
 * back-off delay has passed, then the next use starts it again, until too many failures fall
 * within the policy's window; each call is bounded by the request timeout and cancelled on the
 * server (the SDK sends `notifications/cancelled`) when it times out or the caller aborts. The
 * server's progress notifications for a call go to the call's `onProgress`; its
 * `notifications/tools/list_changed` re-lists its tools and emits on `changes`. The scope closing
 * closes the client, which ends the server process.
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult, Progress, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import * as ServerConfig from "./ServerConfig.ts"
import * as Transport from "./Transport.ts"

export class McpClientError extends Schema.TaggedError<McpClientError>()("McpClientError", {
  server: Schema.String,
  message: Schema.String
}) {}

export interface Connection {
  readonly server: string
  /**
   * The server's tools, starting it when needed. While it is down after having run, the tools it
   * had are kept (their calls fail with the reason); a server that never started fails.
   */
  readonly tools: Effect.Effect<ReadonlyArray<McpTool>, McpClientError>
  /** Calls a tool, starting the server when needed; the server's progress reports go to `onProgress`. */
  readonly call: (
    tool: string,
    args: Record<string, unknown>,
    abort: AbortSignal,
    onProgress?: ((progress: Progress) => void) | undefined
  ) => Effect.Effect<CallToolResult, McpClientError>
  /** Emits after the server said its tools changed and they were listed again. */
  readonly changes: Stream.Stream<void>
}

export interface Options {
  /** The working directory of a local server without `cwd`. */
  readonly cwd?: string | undefined
  readonly restart?: ServerConfig.RestartPolicy | undefined
}

type State =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Up"; readonly client: Client }
  | { readonly _tag: "Down"; readonly reason: string; readonly failures: number; readonly retryAt: number }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "Closed" }

const messageOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/** The SDK's error code for a request that got no answer in time. */
const REQUEST_TIMEOUT = -32001

const isTimeout = (cause: unknown): boolean => (cause as { code?: unknown } | undefined)?.code === REQUEST_TIMEOUT

const withStderr = (reason: string, opened: Transport.Opened): string => {
  const tail = opened.stderrTail()
  return tail === "" ? reason : `${reason}; its stderr ended with:\n${tail}`
}

/** The tools/list pages, all of them. */
const listAll = async (client: Client, options: { signal: AbortSignal; timeout: number }) => {
  const tools: Array<McpTool> = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, options)
    tools.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return tools
}

export const make = Effect.fn("McpConnection.make")(function*(
  server: string,
  config: ServerConfig.ServerConfig,
  options: Options = {}
): Effect.fn.Return<Connection, never, Scope.Scope> {
  const policy = options.restart ?? ServerConfig.DEFAULT_RESTART
  const startup = ServerConfig.startupMs(config)
  const request = ServerConfig.requestMs(config)
  const clock = yield* Effect.clockWith(Effect.succeed)
  const lock = yield* Semaphore.make(1)
  const changed = yield* PubSub.unbounded<void>()
  const closing = new AbortController()
  let starting: Client | undefined
  let state: State = { _tag: "Idle" }
  let remoteTools: ReadonlyArray<McpTool> | undefined
  // When each failed start or exit happened, within the policy's window.
  let failures: Array<number> = []

  const error = (message: string) => new McpClientError({ server, message })
  const named = `MCP server "${server}"`

  const failed = (reason: string): State => {
    const now = clock.currentTimeMillisUnsafe()
    failures = [...failures.filter((t) => now - t < policy.windowMs), now]
    state = failures.length >= policy.maxAttempts
      ? { _tag: "Failed", reason }
      : { _tag: "Down", reason, failures: failures.length, retryAt: now + ServerConfig.restartDelay(policy, failures.length) }
    return state
  }

  const describe = (s: State): string => {
    switch (s._tag) {
      case "Down":
        return `${named} is down (${s.reason}); it is started again on the next use after ${
          ServerConfig.restartDelay(policy, s.failures)
        } ms (failure ${s.failures} of ${policy.maxAttempts} allowed within ${policy.windowMs / 1000} s)`
      case "Failed":
        return `${named} failed ${policy.maxAttempts} times within ${policy.windowMs / 1000} s and is not started again (${s.reason})`
      case "Closed":
        return `${named} was shut down`
      default:
        return `${named} is not running`
    }
  }

  const closeClient = (client: Client) => Effect.promise(() => client.close().catch(() => undefined))

  const noAnswer = `no answer within the start-up timeout of ${startup} ms`
  const start = Effect.gen(function*() {
    const opened = yield* Effect.tryPromise({
      try: () => Transport.open(config, options.cwd),
      catch: (cause) => error(describe(failed(`it could not be started: ${messageOf(cause)}`)))
    })
    const { Client } = yield* Effect.promise(() => import("@modelcontextprotocol/sdk/client/index.js"))
    const { ToolListChangedNotificationSchema } = yield* Effect.promise(() => import("@modelcontextprotocol/sdk/types.js"))
    const client = new Client({ name: "agent-tools", version: "0.1.0" })
    starting = client
    // The server's tools changed: list them again, then tell whoever serves them on.
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (state._tag !== "Up" || state.client !== client) return
      const signal = AbortSignal.timeout(request)
      remoteTools = await listAll(client, { signal, timeout: request }).catch(() => remoteTools)
      PubSub.publishUnsafe(changed, undefined)
    })
    // An exit while it runs marks it down; exits before (a failed start) are reported by the start.
    client.onclose = () => {
      if (state._tag === "Up" && state.client === client) failed(withStderr("it exited", opened))
    }
    const tools = yield* Effect.tryPromise({
      try: async (interrupted) => {
        // A start may outlive the caller that began it (a listing that stopped waiting): the
        // connection's scope closing ends it too, and with it the server process.
        const signal = AbortSignal.any([interrupted, closing.signal])
        await client.connect(opened.transport, { signal, timeout: startup })
        return await listAll(client, { signal, timeout: startup })
      },
      catch: (cause) => isTimeout(cause) ? noAnswer : messageOf(cause)
    }).pipe(
      // The SDK bounds each request; this bounds them together.
      Effect.timeoutOrElse({ duration: startup, orElse: () => Effect.fail(noAnswer) }),
      Effect.onExit((exit) => exit._tag === "Success" ? Effect.void : Effect.andThen(Effect.sync(() => void (starting = undefined)), closeClient(client))),
      Effect.mapError((reason) => error(describe(failed(withStderr(`it failed to start: ${reason}`, opened)))))
    )
    starting = undefined
    if (state._tag === "Closed") {
      yield* closeClient(client)
      return yield* error(describe(state))
    }
    state = { _tag: "Up", client }
    remoteTools = tools
    return client
  })

  const ensure: Effect.Effect<Client, McpClientError> = lock.withPermits(1)(Effect.suspend(() => {
    const s = state
    switch (s._tag) {
      case "Up":
        return Effect.succeed(s.client)
      case "Idle":
        return start
      case "Down":
        return clock.currentTimeMillisUnsafe() < s.retryAt ? Effect.fail(error(describe(s))) : start
      default:
        return Effect.fail(error(describe(s)))
    }
  }))

  const callFailure = (tool: string, cause: unknown): McpClientError => {
    if (isTimeout(cause)) return error(`${named} did not answer ${tool} within ${request} ms; the call was cancelled`)
    if (state._tag === "Down" || state._tag === "Failed") return error(`${named} exited during the call to ${tool}: ${describe(state)}`)
    return error(`${named} failed on ${tool}: ${messageOf(cause)}`)
  }

  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      const s = state
      state = { _tag: "Closed" }
      closing.abort()
      // A start still in flight (for a listing that stopped waiting) is ended here, its process with it.
      const pending = starting
      starting = undefined
      return Effect.andThen(
        s._tag === "Up" ? closeClient(s.client) : Effect.void,
        pending === undefined ? Effect.void : closeClient(pending)
      )
    })
  )

  return {
    server,
    tools: ensure.pipe(
      Effect.map(() => remoteTools ?? []),
      // Down after having run: keep its tools listed, their calls say why they fail.
      Effect.catch((e) => state._tag === "Down" && remoteTools !== undefined ? Effect.succeed(remoteTools) : Effect.fail(e))
    ),
    call: (tool, args, abort, onProgress) =>
      Effect.flatMap(ensure, (client) =>
        Effect.tryPromise({
          try: (signal) =>
            client.callTool({ name: tool, arguments: args }, undefined, {
              signal: AbortSignal.any([signal, abort]),
              timeout: request,
              // Progress notifications restart the timeout: a long call that reports progress lives on.
              onprogress: (progress) => onProgress?.(progress),
              resetTimeoutOnProgress: true
            }) as Promise<CallToolResult>,
          catch: (cause) => callFailure(tool, cause)
        })),
    changes: Stream.fromPubSub(changed)
  } satisfies Connection
})
