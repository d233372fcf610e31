/**
 * What the MCP client lends the tools: its user (the question tool asks through a form
 * elicitation) and its model (the task tool's sub-agent runs on `sampling/createMessage`, calling
 * this server's tools when the client supports tools in sampling). Each service says it is
 * unavailable until a client that offers it is connected, so `question` and `task` are listed
 * only to such clients.
 *
 * The services are built before the server (they go into the registry's layer), so they reach it
 * through a `Connection` the server attaches itself to:
 *
 * @example
 * ```ts
 * const client = ClientServices.make()
 * McpServer.serveStdioWith(NodeAgentTools.layer({ cwd, services: client.layer }), { client })
 * ```
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { QuestionResponder, SubagentRunner, type Tool, type ToolRegistry } from "@agent-tools/core"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestId } from "@modelcontextprotocol/sdk/types.js"
import * as QuestionForm from "./QuestionForm.ts"
import * as Sampling from "./Sampling.ts"

/** What the server gives the services once it exists. */
export interface Attachment {
  readonly server: Server
  readonly registry: ToolRegistry.ToolRegistry["Service"]
  readonly agent: string
  readonly model: string | undefined
  /**
   * A call context for a tool the sub-agent calls (permission asks go to the server's session),
   * at the sub-agent's depth and limited to the tools it was given.
   */
  readonly context: (options: {
    readonly callID: string
    readonly tool: string
    readonly abort: AbortSignal
    readonly depth: number
    readonly tools: ReadonlyArray<string>
  }) => Effect.Effect<Tool.Context>
  /** The MCP request a call serves, so requests made for it are sent as part of it. */
  readonly requestOf: (callID: string) => RequestId | undefined
  readonly elicitationTimeout: number
}

export class Connection {
  current: Attachment | undefined = undefined
  attach(attachment: Attachment): void {
    this.current = attachment
  }
}

export interface Client {
  readonly connection: Connection
  /** QuestionResponder and SubagentRunner on this connection's client. */
  readonly layer: Layer.Layer<QuestionResponder.QuestionResponder | SubagentRunner.SubagentRunner>
}

const NOT_CONNECTED = "no MCP client is connected"

const questionResponder = (connection: Connection) =>
  QuestionResponder.QuestionResponder.of({
    unavailable: Effect.sync(() => {
      const current = connection.current
      if (current === undefined) return NOT_CONNECTED
      return current.server.getClientCapabilities()?.elicitation?.form === undefined
        ? "the MCP client cannot show forms (no elicitation support)"
        : undefined
    }),
    ask: (request) =>
      Effect.gen(function*() {
        const current = connection.current
        if (current === undefined) return yield* new QuestionResponder.QuestionDismissedError({ reason: NOT_CONNECTED })
        const related = current.requestOf(request.callID)
        const result = yield* Effect.tryPromise({
          try: (signal) =>
            current.server.elicitInput(QuestionForm.params(request.questions), {
              signal: AbortSignal.any([signal, request.abort]),
              timeout: current.elicitationTimeout,
              ...(related === undefined ? {} : { relatedRequestId: related })
            }),
          catch: (cause) =>
            new QuestionResponder.QuestionDismissedError({
              reason: `The question could not be shown: ${cause instanceof Error ? cause.message : String(cause)}`
            })
        })
        const answers = QuestionForm.answersOf(request.questions, result)
        if (answers === undefined) return yield* new QuestionResponder.QuestionDismissedError({ reason: "The user dismissed this question" })
        return answers
      })
  })

/** A connection and the services on it. */
export const make = (): Client => {
  const connection = new Connection()
  return {
    connection,
    layer: Layer.mergeAll(
      Layer.succeed(QuestionResponder.QuestionResponder, questionResponder(connection)),
      Layer.succeed(SubagentRunner.SubagentRunner, Sampling.runner(connection))
    )
  }
}
