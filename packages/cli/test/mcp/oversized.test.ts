/**
 * One message over the stdio limit, sent to the MCP server in a real child process while another
 * call is in flight: the big one gets its own error, the other call finishes, the server serves on.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit } from "effect"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { StdioTransport } from "@agent-tools/mcp"
import { connect, makeWorkspace, NodePlatform, text } from "./harness.ts"

const { DEFAULT_MAX_MESSAGE_BYTES, oversizedMessage } = StdioTransport

const permission = { "*": "allow", guarded: "ask" } as const
/** Just over the limit once serialised with the rest of the request. */
const BIG = "x".repeat(DEFAULT_MAX_MESSAGE_BYTES)

describe("MCP server: a message over the size limit", () => {
  it.live("gets its own error while a call in flight completes; the server answers afterwards", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({ "a.txt": "alpha\n" })
      const { client, onElicit, call, stderrIncludes } = yield* connect({ root, server: { permission } })

      // A call held in flight: its permission prompt stays open until we answer.
      const prompted = yield* Deferred.make<void>()
      const answer = yield* Deferred.make<"once" | "reject">()
      onElicit(() =>
        new Promise((resolve) => {
          Deferred.doneUnsafe(prompted, Exit.void)
          Effect.runFork(Effect.map(Deferred.await(answer), (decision) => resolve({ action: "accept", content: { decision } })))
        })
      )
      const inFlight = client.callTool({ name: "guarded", arguments: { target: "held.ts" } })
      yield* Deferred.await(prompted)

      const refused = yield* Effect.flip(Effect.tryPromise({
        try: () => client.callTool({ name: "echo", arguments: { text: BIG } }),
        catch: (e) => e
      }))
      assert.instanceOf(refused, McpError)
      assert.strictEqual((refused as McpError).code, ErrorCode.InvalidRequest)
      assert.include((refused as McpError).message, "over the server's limit of 10485760 bytes per message; it was not processed.")

      // The held call was not touched: answering its prompt lets it finish.
      Deferred.doneUnsafe(answer, Exit.succeed("once" as const))
      const result = yield* Effect.promise(() => inFlight)
      assert.strictEqual(text(result as never), "did held.ts")
      assert.isTrue((yield* Effect.promise(() => client.listTools())).tools.some((t) => t.name === "echo"))
      assert.strictEqual(text(yield* call("echo", { text: "still here" })), "still here")

      // A notification this big has no id to answer: it is dropped and logged on stderr.
      yield* Effect.promise(() => client.notification({ method: "notifications/message", params: { level: "info", data: BIG } }))
      yield* stderrIncludes("It has no readable id, so it was dropped without a reply.")
      assert.strictEqual(text(yield* call("echo", { text: "and after that" })), "and after that")
    }).pipe(Effect.scoped, Effect.provide(NodePlatform)), { timeout: 60_000 })

  it("the error names the size and the limit", () => {
    assert.strictEqual(
      oversizedMessage(10_485_900, DEFAULT_MAX_MESSAGE_BYTES),
      "The message is 10485900 bytes, over the server's limit of 10485760 bytes per message; it was not processed. " +
        "Send large content in smaller parts (e.g. several edits instead of one write)."
    )
  })
})
