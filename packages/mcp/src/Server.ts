/**
 * The MCP server: every tool of the registry in context, over any MCP transport (stdio for
 * `agent-tools mcp`).
 *
 * Built on `@modelcontextprotocol/sdk`'s low-level `Server`, not effect/ai's `McpServer`: in 4.1
 * the latter is marked unstable, derives `structuredContent` from a tool's success schema (the
 * whole result, where the contract wants `{ title, metadata }` beside the text) and elicits only
 * from inside the request's own fiber, while our asks surface in a separate fiber through
 * `Permission.asks`. The SDK is the reference implementation clients are tested against;
 * elicitation at any time, progress tied to a request, cancellation signals and capability checks
 * are first-class there. Everything around it stays Effect: handlers run as fibers of the
 * server's scope and are interrupted when the client goes away.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { MetadataBound, Permission, Tool, ToolRegistry, type Truncate } from "@agent-tools/core"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import type * as ClientServices from "./ClientServices.ts"
import * as Elicitation from "./Elicitation.ts"
import * as Mapping from "./Mapping.ts"
import * as Responder from "./Responder.ts"
import * as Stdio from "./Stdio.ts"
import { StdioTransport } from "./StdioTransport.ts"
import { ToolNames } from "@agent-tools/core"

export interface Options {
  /** Server name sent to the client (default `agent-tools`). */
  readonly name?: string | undefined
  readonly version?: string | undefined
  /** The permission session of this server; `always` approvals last as long as it (default: random). */
  readonly sessionID?: string | undefined
  /** The agent whose tools and rules apply (default `build`). */
  readonly agent?: string | undefined
  /** Model id, for the registry's model-specific tool set. */
  readonly model?: string | undefined
  /** When the client cannot elicit: allow asks once (`--yes`) instead of rejecting them. */
  readonly yes?: boolean | undefined
  /**
   * How long `tools/list` waits for upstream MCP servers still starting (default 10 s): those not up
   * by then are left out of that listing and announced with `notifications/tools/list_changed` once
   * their tools are there, so one server that never answers holds up no listing for its whole
   * start-up timeout.
   */
  readonly listWait?: Duration.Input | undefined
  /** Heartbeat progress for long calls when the client sent a progress token (default 10 s). */
  readonly progressInterval?: Duration.Input | undefined
  /** How long a permission prompt may stay open before it counts as rejected (default 1 h). */
  readonly elicitationTimeout?: Duration.Input | undefined
  /**
   * stdio only: the largest JSON-RPC message accepted, in bytes (default 10 MiB). A larger one gets
   * its own error and the server keeps serving the others.
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * The client services in the registry's layer (`ClientServices.make()`): the server attaches
   * itself so that question asks the client's user and task runs on the client's model.
   */
  readonly client?: ClientServices.Client | undefined
}

export class McpServerError extends Schema.TaggedError<McpServerError>()("McpServerError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export type Requirements = ToolRegistry.ToolRegistry | Permission.Permission | Truncate.Truncate

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

let sessionCounter = 0
const newSessionID = () =>
  `mcp_${Date.now().toString(36)}${(sessionCounter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`

/** Builds the SDK server with its handlers and permission responder; connect it to a transport. */
export const make = (options: Options = {}): Effect.Effect<Server, never, Requirements | Scope.Scope> =>
  Effect.flatMap(Effect.context<Requirements>(), (services) => makeWith(Effect.succeed(services), options))

/**
 * `make` on services that may still be coming: requests wait for `services`, the `initialize`
 * handshake does not. A failure of `services` fails the requests waiting for it.
 */
export const makeWith = Effect.fn("McpServer.make")(function*<E>(
  services: Effect.Effect<Context.Context<Requirements>, E>,
  options: Options = {}
): Effect.fn.Return<Server, never, Scope.Scope> {
  // The client services are attached to the server once, before any request uses the tools, so a
  // question or task in the first call already reaches this client.
  const attached = (context: Context.Context<Requirements>) =>
    Effect.sync(() => {
      const permission = Context.get(context, Permission.Permission)
      options.client?.connection.attach({
        server,
        registry: Context.get(context, ToolRegistry.ToolRegistry),
        agent,
        model: options.model,
        context: (o) =>
          Tool.makeContext({ sessionID, callID: o.callID, agent, tool: o.tool, abort: o.abort, depth: o.depth, tools: o.tools }).pipe(
            Effect.provideService(Permission.Permission, permission)
          ),
        requestOf,
        elicitationTimeout
      })
      return context
    })
  const ready = yield* Effect.cached(
    services.pipe(
      Effect.mapError((cause) =>
        new McpServerError({ message: `The tools are unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, cause })),
      Effect.flatMap(attached)
    )
  )
  const withServices = <A, E2, R>(effect: Effect.Effect<A, E2, R>): Effect.Effect<A, E2 | McpServerError, Exclude<R, Requirements>> =>
    Effect.flatMap(ready, (context) => Effect.provideContext(effect, context))
  const sessionID = options.sessionID ?? newSessionID()
  const agent = options.agent ?? "build"
  const query: ToolRegistry.ToolsQuery = { agent, model: options.model, wait: options.listWait ?? "10 seconds" }
  const heartbeat = Duration.fromInputUnsafe(options.progressInterval ?? "10 seconds")
  const elicitationTimeout = Duration.toMillis(Duration.fromInputUnsafe(options.elicitationTimeout ?? "1 hour"))
  const runPromise = yield* FiberSet.makeRuntimePromise<never>()

  const server = new Server(
    { name: options.name ?? "agent-tools", version: options.version ?? "0.1.0" },
    { capabilities: { tools: { listChanged: true } } }
  )

  // callID → the MCP request it serves, so an elicitation is sent as part of that request.
  const calls = new Map<string, RequestId>()
  // Calls made inside a call (a batch's, a sub-agent's) have ids `<callID>/…`.
  const requestOf = (callID: string) => calls.get(callID) ?? calls.get(callID.split("/")[0]!)
  let callCounter = 0
  const warned = new Set<string>()
  // The names of the last listing: a call maps its name back to an id with them instead of listing
  // again, which would wait for every upstream MCP server still starting (up to its start-up
  // timeout) before calling a tool that is already there.
  let listedNames: ToolNames.Names | undefined

  const listed = Effect.fn("McpServer.listed")(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const tools = yield* registry.tools(query)
    const names = ToolNames.assign(tools.map((t) => t.id))
    const entries: Array<McpTool> = []
    for (const tool of tools) {
      const entry = Mapping.toMcpTool(tool, names.toName.get(tool.id) ?? tool.id)
      if (typeof entry !== "string") entries.push(entry)
      else if (!warned.has(tool.id)) {
        // One unusable schema must not break the whole list: skip it and say why, once.
        warned.add(tool.id)
        yield* Effect.logWarning(entry)
      }
    }
    listedNames = names
    return { entries, names }
  })

  // Progress for a call whose client sent a token: one notification per `ctx.metadata` update,
  // plus a heartbeat so clients that reset their timeout on progress do not give up.
  const progressOf = (extra: Extra, tool: string) => {
    const token = extra._meta?.progressToken
    if (token === undefined) return { update: (_: string) => Effect.void, beat: Effect.never }
    let progress = 0
    const send = (message: string) =>
      Effect.tryPromise(() =>
        extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: ++progress, message }
        })
      ).pipe(Effect.ignore)
    const beat = Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      while (true) {
        yield* Effect.sleep(heartbeat)
        const now = yield* Clock.currentTimeMillis
        yield* send(`${tool}: running for ${Math.round((now - started) / 1000)}s`)
      }
    })
    return { update: send, beat }
  }

  const callTool = Effect.fn("McpServer.callTool")(function*(params: CallToolRequest["params"], extra: Extra) {
    // A name the client did not get from a listing is taken as an id (the registry resolves it,
    // starting only the MCP server that claims it).
    const id = listedNames?.toId.get(params.name) ?? params.name
    const callID = `mcp_${callCounter++}`
    yield* Effect.annotateCurrentSpan({ "tool.name": id, "tool.call_id": callID, "mcp.request_id": String(extra.requestId) })
    calls.set(callID, extra.requestId)
    const progress = progressOf(extra, id)
    const ctx = yield* Tool.makeContext({
      sessionID,
      callID,
      agent,
      tool: id,
      abort: extra.signal,
      extra: { mcp: { requestId: extra.requestId } },
      metadata: (update) => progress.update(update.title ?? id)
    })
    const registry = yield* ToolRegistry.ToolRegistry
    const outcome = yield* registry.execute(id, params.arguments ?? {}, ctx).pipe(
      Effect.raceFirst(progress.beat),
      Effect.result,
      Effect.ensuring(Effect.sync(() => calls.delete(callID)))
    )
    if (Result.isSuccess(outcome)) return Mapping.toCallToolResult(outcome.success, yield* MetadataBound.maxBytesOf(id, ctx))
    // An unknown tool is a protocol error (the MCP spec); every other failure goes to the model.
    if (outcome.failure._tag === "UnknownToolError") return yield* outcome.failure
    return Mapping.errorResult(outcome.failure)
  })

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { entries } = await runPromise(withServices(listed()))
    return { tools: entries }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const outcome = await runPromise(Effect.result(withServices(callTool(request.params, extra))), { signal: extra.signal })
    if (Result.isFailure(outcome)) throw new McpError(ErrorCode.InvalidParams, outcome.failure.message)
    return outcome.success
  })

  server.onerror = (error) => void runPromise(Effect.logWarning("MCP protocol error", error.message))

  const elicitor: Responder.Elicitor = {
    supported: Effect.sync(() => server.getClientCapabilities()?.elicitation?.form !== undefined),
    elicit: (request) =>
      Effect.tryPromise({
        try: (signal) => {
          const related = request.tool === undefined ? undefined : requestOf(request.tool.callID)
          return server.elicitInput(
            Elicitation.params(request),
            related === undefined
              ? { signal, timeout: elicitationTimeout }
              : { signal, timeout: elicitationTimeout, relatedRequestId: related }
          )
        },
        catch: (cause) =>
          new Responder.ElicitationError({ message: cause instanceof Error ? cause.message : String(cause), cause })
      })
  }
  // An upstream MCP server's tools changed: our list changed too.
  yield* Effect.forkScoped(withServices(Effect.flatMap(ToolRegistry.ToolRegistry, (registry) =>
    Stream.runForEach(registry.changes, () =>
      Effect.tryPromise(() => server.sendToolListChanged()).pipe(Effect.ignore)))))
  // Answers permission asks once the services are there (none can be asked before).
  yield* Effect.forkScoped(withServices(Responder.run({ sessionID, elicitor, yes: options.yes ?? false })))
  return server
})

/** Serves the registry on `transport` until the transport closes (or `until` completes). */
export const serve = Effect.fn("McpServer.serve")(
  function*(transport: Transport, options: Options = {}, until: Effect.Effect<void> = Effect.never) {
    yield* connect(yield* make(options), transport, until)
  },
  Effect.scoped
)

/** Runs `server` on `transport` until the transport closes or `until` completes (or fails). */
const connect = Effect.fnUntraced(
  function*<E>(server: Server, transport: Transport, until: Effect.Effect<void, E>) {
    const closed = yield* Deferred.make<void>()
    server.onclose = () => Deferred.doneUnsafe(closed, Exit.void)
    yield* Effect.tryPromise({
      try: () => server.connect(transport),
      catch: (cause) => new McpServerError({ message: "The MCP server could not start its transport", cause })
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => server.close()).pipe(Effect.ignore))
    yield* Effect.raceFirst(Deferred.await(closed), until)
  }
)

/**
 * `agent-tools mcp`: serves the registry in context on stdin/stdout until the client closes
 * stdin. stdout carries only protocol messages; logs go to stderr. A message over
 * `maxMessageBytes` is refused on its own (see `StdioTransport`).
 */
export const serveStdio = (options: Options = {}): Effect.Effect<void, McpServerError, Requirements> =>
  Effect.gen(function*() {
    const protocol = yield* Stdio.guardStdout
    const transport = new StdioTransport(process.stdin, protocol, { maxMessageBytes: options.maxMessageBytes })
    yield* serve(transport, options, Stdio.stdinClosed(process.stdin))
  }).pipe(Effect.scoped, Effect.provideService(Logger.LogToStderr, true))

/**
 * `serveStdio` with the runtime layer built inside the stdout guard, so that nothing logged while
 * building it (tool load diagnostics, config warnings) reaches stdout. What the CLI should call.
 * The layer builds while the server already answers the `initialize` handshake (loading the config,
 * probing the sandbox and building the tools take longer than a client waits for it); requests
 * wait for it, and a layer that fails to build ends the server with its error.
 */
export const serveStdioWith = <E, R>(
  layer: Layer.Layer<Requirements, E, R>,
  options: Options = {}
): Effect.Effect<void, McpServerError | E, Exclude<R, Scope.Scope>> =>
  Effect.gen(function*() {
    const protocol = yield* Stdio.guardStdout
    const building = yield* Effect.forkScoped(Layer.build(layer))
    const services = Fiber.join(building)
    const server = yield* makeWith(services, options)
    const transport = new StdioTransport(process.stdin, protocol, { maxMessageBytes: options.maxMessageBytes })
    const failed = Effect.andThen(services, Effect.never)
    yield* connect(server, transport, Effect.raceFirst(Stdio.stdinClosed(process.stdin), failed))
  }).pipe(Effect.scoped, Effect.provideService(Logger.LogToStderr, true))
