/**
 * Exa's MCP endpoint, as websearch and codesearch call it: one JSON-RPC `tools/call` POSTed with
 * the API key in `x-api-key`, answered as server-sent events (or plain JSON) whose `data:` lines
 * carry the JSON-RPC response; the first text content is the result.
 *
 * The search tools exist only where a runtime provides `ExaConfig` (`@agent-tools/node` does when
 * the config enables websearch); the endpoint is the user's choice, so its address is not
 * policed like webfetch's.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as z from "zod"
import { Tool } from "@agent-tools/core"
import { readCapped } from "./body.ts"
import { MAX_RESPONSE_BYTES, SEARCH_TIMEOUT_SECONDS } from "../limits.ts"
import { megabytes } from "../size.ts"

export const DEFAULT_ENDPOINT = "https://mcp.exa.ai/mcp"

export interface ExaSettings {
  /** The MCP endpoint URL. */
  readonly endpoint: string
  readonly apiKey: Redacted.Redacted<string>
}

export class ExaConfig extends Context.Service<ExaConfig, ExaSettings>()("@agent-tools/tools/ExaConfig") {}

/** What the search tools need: the endpoint and key, and an HTTP client to reach it. */
export type Services = ExaConfig | HttpClient.HttpClient

interface RpcResponse {
  readonly result?: { readonly content?: ReadonlyArray<{ readonly type?: string; readonly text?: string }>; readonly isError?: boolean }
  readonly error?: { readonly code?: number; readonly message?: string }
}

/** The JSON-RPC messages of a body: each SSE event's data, or the body itself when it is plain JSON. */
export const messagesOf = (body: string): ReadonlyArray<string> => {
  if (/^\s*[{[]/.test(body)) return [body]
  const messages: Array<string> = []
  let data: Array<string> = []
  for (const line of body.split(/\r?\n/)) {
    if (line === "") {
      if (data.length > 0) messages.push(data.join("\n"))
      data = []
    } else if (line.startsWith("data:")) {
      data.push(line.slice(line.startsWith("data: ") ? 6 : 5))
    }
  }
  if (data.length > 0) messages.push(data.join("\n"))
  return messages
}

/**
 * The first text content of the answer, undefined when there is none, or the error the model
 * reads (naming the tool) for a JSON-RPC error, a tool error or an answer that is not JSON-RPC.
 */
export const resultOf = (tool: string, body: string): Effect.Effect<string | undefined, Tool.ToolError> =>
  Effect.gen(function*() {
    for (const message of messagesOf(body)) {
      const parsed = yield* Effect.try({
        try: () => JSON.parse(message) as RpcResponse,
        catch: (cause) => new Tool.ToolError({ tool, reason: "io", message: `${tool}: the search service answered with invalid JSON`, cause })
      })
      if (parsed.error !== undefined) {
        return yield* new Tool.ToolError({ tool, reason: "io", message: `${tool} failed: ${parsed.error.message ?? "unknown error"}` })
      }
      const text = parsed.result?.content?.find((c) => typeof c.text === "string" && c.text !== "")?.text
      if (parsed.result?.isError === true) {
        return yield* new Tool.ToolError({ tool, reason: "io", message: `${tool} failed: ${text ?? "the search service reported an error"}` })
      }
      if (text !== undefined) return text
    }
    return undefined
  })

/** Calls one of Exa's MCP tools (`web_search_exa`, `get_code_context_exa`) for `tool`. */
export const call = Effect.fn("Exa.call")(function*(tool: string, name: string, args: Record<string, unknown>) {
  const config = yield* ExaConfig
  const client = HttpClient.withScope(yield* HttpClient.HttpClient)
  const fail = (reason: Tool.ToolErrorReason, message: string) => new Tool.ToolError({ tool, reason, message })
  const request = HttpClientRequest.post(config.endpoint).pipe(
    HttpClientRequest.setHeaders({
      accept: "application/json, text/event-stream",
      "x-api-key": Redacted.value(config.apiKey)
    }),
    HttpClientRequest.bodyJsonUnsafe({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
  )
  const body = yield* Effect.scoped(Effect.gen(function*() {
    const response = yield* client.execute(request)
    const bytes = yield* readCapped(response, MAX_RESPONSE_BYTES)
    const text = bytes === undefined ? "" : new TextDecoder().decode(bytes)
    if (response.status < 200 || response.status > 299) {
      const detail = text.trim().slice(0, 300)
      return yield* fail("io", `${tool} request failed with status code: ${response.status}${detail === "" ? "" : `: ${detail}`}`)
    }
    if (bytes === undefined) return yield* fail("too-large", `${tool}: the answer is larger than ${megabytes(MAX_RESPONSE_BYTES)}`)
    return text
  })).pipe(
    Effect.catchTag("HttpClientError", (error) => {
      const cause = "cause" in error.reason ? error.reason.cause : undefined
      return Effect.fail(fail("io", `${tool} request failed: ${cause instanceof Error ? cause.message : error.reason.message}`))
    }),
    Effect.timeoutOrElse({
      duration: Duration.seconds(SEARCH_TIMEOUT_SECONDS),
      orElse: () => Effect.fail(fail("timeout", `${tool} request timed out after ${SEARCH_TIMEOUT_SECONDS} seconds`))
    })
  )
  return yield* resultOf(tool, body)
})

/** What tells websearch and codesearch apart; the rest (permission, call, result) they share. */
export interface SearchSpec<P extends z.ZodType<{ readonly query: string }>> {
  readonly description: string
  readonly parameters: P
  /** The span of the tool's execute. */
  readonly span: string
  /** The Exa MCP tool called. */
  readonly exaTool: string
  /** Before the query in the result's title (`Web search: …`). */
  readonly title: string
  /** The output when Exa has no answer. */
  readonly noResults: string
  /** The permission ask's metadata. */
  readonly askMetadata: (args: z.output<P>) => Tool.Metadata
  /** The arguments sent to Exa. */
  readonly arguments: (args: z.output<P>) => Record<string, unknown>
  /** The result's metadata. */
  readonly metadata: (args: z.output<P>) => Tool.Metadata
}

/**
 * An Exa search tool: it asks permission `id` for the query (always-allow `*`), calls `exaTool`
 * and returns its answer, read-only and open-world.
 */
export const searchTool = <const Id extends string, P extends z.ZodType<{ readonly query: string }>>(
  id: Id,
  spec: SearchSpec<P>
): Tool.Definition<Id, P, Services> =>
  Tool.define(
    id,
    Effect.gen(function*() {
      const services = yield* Effect.context<Services>()

      const requestsOf = (args: z.output<P>): ReadonlyArray<Tool.AskInput> => [{
        permission: id,
        patterns: [args.query],
        always: ["*"],
        metadata: spec.askMetadata(args)
      }]

      const execute = Effect.fn(spec.span)(function*(args: z.output<P>, ctx: Tool.Context) {
        yield* ctx.askAll(requestsOf(args))
        const result = yield* call(id, spec.exaTool, spec.arguments(args))
        return {
          title: `${spec.title}: ${args.query}`,
          output: result ?? spec.noResults,
          metadata: spec.metadata(args)
        }
      }, Effect.provide(services))

      return {
        description: spec.description,
        parameters: spec.parameters,
        execute,
        requests: (args: z.output<P>) => Effect.succeed(requestsOf(args)),
        annotations: { readOnly: true, openWorld: true }
      } satisfies Tool.Def<P>
    })
  )
