import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Web } from "@agent-tools/tools"
import { call, callError, type Handler, serve, services } from "../web/harness.ts"

const { CodeSearchTool, WebSearchTool } = Web

interface Seen {
  readonly method: string | undefined
  readonly path: string | undefined
  readonly apiKey: string | undefined
  readonly accept: string | undefined
  readonly body: unknown
}

const sse = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`
const textResult = (text: string) => ({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }] } })

/** An Exa-like MCP endpoint answering with `reply(body)` and recording every request. */
const exa = (reply: (body: any) => { status?: number; type?: string; body: string } | undefined) => {
  const seen: Array<Seen> = []
  const handler: Handler = (req, res, body) => {
    const parsed = JSON.parse(body)
    seen.push({ method: req.method, path: req.url, apiKey: req.headers["x-api-key"] as string, accept: req.headers.accept, body: parsed })
    const answer = reply(parsed)
    if (answer === undefined) return // never answers
    res.writeHead(answer.status ?? 200, { "content-type": answer.type ?? "text/event-stream" }).end(answer.body)
  }
  return Effect.map(serve(handler), (base) => ({ endpoint: `${base}/mcp`, seen }))
}

const withExa = (endpoint: string) =>
  Effect.provide(
    Layer.mergeAll(services, Layer.succeed(Web.ExaConfig, { endpoint, apiKey: Redacted.make("test-key") }), NodeHttpClient.layerNodeHttp)
  )

describe("websearch", () => {
  it.live("one JSON-RPC tools/call with the key; the SSE answer's text is the output", () =>
    Effect.gen(function*() {
      const server = yield* exa(() => ({ body: sse(textResult("Result 1: Effect docs")) }))
      const { result, asked } = yield* call(WebSearchTool, { query: "effect 4 http client" }).pipe(withExa(server.endpoint))
      assert.strictEqual(result.output, "Result 1: Effect docs")
      assert.strictEqual(result.title, "Web search: effect 4 http client")
      assert.deepStrictEqual(result.metadata, { query: "effect 4 http client", numResults: 8, truncated: false })
      assert.deepStrictEqual(server.seen, [{
        method: "POST",
        path: "/mcp",
        apiKey: "test-key",
        accept: "application/json, text/event-stream",
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "web_search_exa", arguments: { query: "effect 4 http client", type: "auto", numResults: 8, livecrawl: "fallback" } }
        }
      }])
      assert.deepStrictEqual(asked, [{
        permission: "websearch",
        patterns: ["effect 4 http client"],
        always: ["*"],
        metadata: { query: "effect 4 http client", numResults: undefined, livecrawl: undefined, type: undefined }
      }])
    }).pipe(Effect.scoped))

  it.live("passes the model's options; a plain JSON answer works too; no text is 'no results'", () =>
    Effect.gen(function*() {
      const server = yield* exa((body) =>
        body.params.arguments.query === "empty"
          ? { body: sse({ jsonrpc: "2.0", id: 1, result: { content: [] } }) }
          : { type: "application/json", body: JSON.stringify(textResult("json answer")) }
      )
      const args = { query: "q", numResults: 3, type: "deep", livecrawl: "preferred", contextMaxCharacters: 2000 }
      const { result } = yield* call(WebSearchTool, args).pipe(withExa(server.endpoint))
      assert.strictEqual(result.output, "json answer")
      assert.deepStrictEqual((server.seen[0]!.body as any).params.arguments, {
        query: "q",
        type: "deep",
        numResults: 3,
        livecrawl: "preferred",
        contextMaxCharacters: 2000
      })
      const none = yield* call(WebSearchTool, { query: "empty" }).pipe(withExa(server.endpoint))
      assert.strictEqual(none.result.output, "No search results found. Please try a different query.")
    }).pipe(Effect.scoped))

  it.live("errors: HTTP status, JSON-RPC error, tool error, refused connection", () =>
    Effect.gen(function*() {
      const server = yield* exa((body) => {
        switch (body.params.arguments.query) {
          case "status":
            return { status: 401, type: "text/plain", body: "invalid api key\n" }
          case "rpc":
            return { body: sse({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params" } }) }
          case "tool":
            return { body: sse({ jsonrpc: "2.0", id: 1, result: { isError: true, content: [{ type: "text", text: "quota exceeded" }] } }) }
          default:
            return { body: "data: not json\n\n" }
        }
      })
      const error = (query: string) => callError(WebSearchTool, { query }).pipe(withExa(server.endpoint))
      assert.strictEqual(yield* error("status"), "websearch request failed with status code: 401: invalid api key")
      assert.strictEqual(yield* error("rpc"), "websearch failed: Invalid params")
      assert.strictEqual(yield* error("tool"), "websearch failed: quota exceeded")
      assert.strictEqual(yield* error("garbage"), "websearch: the search service answered with invalid JSON")
      assert.strictEqual(
        yield* callError(WebSearchTool, { query: "x" }).pipe(withExa("http://127.0.0.1:1/mcp")),
        "websearch request failed: connect ECONNREFUSED 127.0.0.1:1"
      )
    }).pipe(Effect.scoped))

  it.effect("a search that takes longer than 30 seconds fails", () =>
    Effect.gen(function*() {
      const arrived = yield* Deferred.make<void>()
      const server = yield* exa(() => {
        Deferred.doneUnsafe(arrived, Effect.void)
        return undefined
      })
      const fiber = yield* Effect.forkChild(callError(CodeSearchTool, { query: "slow" }).pipe(withExa(server.endpoint)))
      yield* Deferred.await(arrived)
      yield* TestClock.adjust("31 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), "codesearch request timed out after 30 seconds")
    }).pipe(Effect.scoped))

  it.live("bad arguments name the field", () =>
    Effect.gen(function*() {
      const invalid = (lines: string) =>
        `The websearch tool was called with invalid arguments:\n${lines}\nPlease rewrite the input so it satisfies the expected schema.`
      const error = (args: unknown) => callError(WebSearchTool, args).pipe(withExa("http://127.0.0.1:1/mcp"))
      assert.strictEqual(yield* error({ query: "" }), invalid("- query: Too small: expected string to have >=1 characters"))
      assert.strictEqual(yield* error({ query: "q", numResults: 0 }), invalid("- numResults: Too small: expected number to be >=1"))
      assert.strictEqual(
        yield* error({ query: "q", type: "slow" }),
        invalid(`- type: Invalid option: expected one of "auto"|"fast"|"deep"`)
      )
    }))
})

describe("codesearch", () => {
  it.live("get_code_context_exa with tokensNum (default 5000); 'no results' text when empty", () =>
    Effect.gen(function*() {
      const server = yield* exa((body) =>
        body.params.arguments.query === "none" ? { body: sse({ jsonrpc: "2.0", id: 1, result: { content: [] } }) } : {
          body: sse(textResult("## useState\nconst [a, setA] = useState(0)"))
        }
      )
      const { result, asked } = yield* call(CodeSearchTool, { query: "React useState" }).pipe(withExa(server.endpoint))
      assert.strictEqual(result.output, "## useState\nconst [a, setA] = useState(0)")
      assert.strictEqual(result.title, "Code search: React useState")
      assert.deepStrictEqual((server.seen[0]!.body as any).params, {
        name: "get_code_context_exa",
        arguments: { query: "React useState", tokensNum: 5000 }
      })
      assert.deepStrictEqual(asked.map((a) => [a.permission, a.patterns]), [["codesearch", ["React useState"]]])
      yield* call(CodeSearchTool, { query: "x", tokensNum: 50000 }).pipe(withExa(server.endpoint))
      assert.strictEqual((server.seen[1]!.body as any).params.arguments.tokensNum, 50000)
      const none = yield* call(CodeSearchTool, { query: "none" }).pipe(withExa(server.endpoint))
      assert.strictEqual(none.result.output, NO_CODE)
    }).pipe(Effect.scoped))

  it.live("tokensNum must be 1000-50000", () =>
    Effect.gen(function*() {
      const invalid = (line: string) =>
        `The codesearch tool was called with invalid arguments:\n${line}\nPlease rewrite the input so it satisfies the expected schema.`
      const error = (tokensNum: number) => callError(CodeSearchTool, { query: "q", tokensNum }).pipe(withExa("http://127.0.0.1:1/mcp"))
      assert.strictEqual(yield* error(999), invalid("- tokensNum: Too small: expected number to be >=1000"))
      assert.strictEqual(yield* error(50001), invalid("- tokensNum: Too big: expected number to be <=50000"))
    }))

  it("the descriptions state the limits the code enforces", () => {
    assert.include(Web.CODESEARCH, "1000-50000 tokens (default 5000)")
    assert.include(Web.WEBSEARCH, "default 8, at most 100")
    assert.include(Web.WEBSEARCH, "longer than 30 seconds fails")
  })
})

const NO_CODE =
  "No code snippets or documentation found. Please try a different query, be more specific about the library or programming concept, or check the spelling of framework names."
