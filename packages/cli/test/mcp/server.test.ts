/**
 * The MCP server in a real child process, driven by the official SDK client over stdio.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Layer } from "effect"
import { realTools } from "./fixtures/tools.ts"
import { ErrorCode, McpError, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { LONG_ID } from "./fixtures/fakes.ts"
import { connect, type Connection as Conn, makeWorkspace, NodePlatform, text } from "./harness.ts"
import { samples, WORKSPACE_FILES } from "./samples.ts"
import { Mapping } from "@agent-tools/mcp"
import { ToolNames } from "@agent-tools/core"
import { Processes } from "@agent-tools/testing"

const { assign } = ToolNames

class Connection extends Context.Service<Connection, Conn & { readonly webfetchUrl: string }>()("test/Connection") {}

// A local page for webfetch, so the sample call needs no network.
const LocalPage = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<ReturnType<typeof createServer>>((resolve) => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        res.end("served to webfetch\n")
      })
      server.listen(0, "127.0.0.1", () => resolve(server))
    })
  ),
  (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`))

const permission = { "*": "allow", guarded: "ask" } as const

const Live = Layer.effect(
  Connection,
  Effect.gen(function*() {
    const webfetchUrl = yield* LocalPage
    const root = yield* makeWorkspace(WORKSPACE_FILES)
    // A heartbeat far beyond any test: progress notifications come only from the tool.
    const conn = yield* connect({ root, server: { permission, progressInterval: "1 hour" } })
    return { ...conn, webfetchUrl }
  })
).pipe(Layer.provide(NodePlatform))

// Listed to this client (forms, no sampling): not task (needs sampling), batch or lsp (off) or invalid (hidden).
const builtinIds = realTools.map((d) => d.id).filter((id) => !["task", "batch", "lsp", "invalid"].includes(id))

layer(Live, { timeout: "60 seconds" })("MCP server over stdio", (it) => {
  it.effect("lists every tool with its JSON Schema and annotations; renames and skips what providers reject", () =>
    Effect.gen(function*() {
      const { client, stderrIncludes } = yield* Connection
      const { tools } = yield* Effect.promise(() => client.listTools())
      const byName = new Map(tools.map((t) => [t.name, t]))
      const longName = assign([LONG_ID]).toName.get(LONG_ID)!
      assert.deepStrictEqual(
        [...byName.keys()].sort(),
        [...builtinIds, "echo", "fail", "guarded", "noisy", "steps", longName].sort()
      )
      for (const name of byName.keys()) assert.match(name, /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/)
      assert.deepStrictEqual(byName.get("echo"), {
        name: "echo",
        title: "Echo",
        description: "Echo the text back",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        annotations: { title: "Echo", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
      })
      assert.deepStrictEqual(byName.get("guarded")?.annotations, {
        title: "Guarded",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false
      })
      assert.deepStrictEqual(byName.get("fail")?.annotations, {
        title: "Fail",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false
      })
      // The contract's hints for every built-in present.
      for (const id of builtinIds) {
        const tool = byName.get(id)!
        assert.strictEqual(tool.inputSchema.type, "object", id)
        const expected = Mapping.CONTRACT_ANNOTATIONS[id]
        if (expected?.readOnly === true) assert.strictEqual(tool.annotations?.readOnlyHint, true, id)
        if (expected?.destructive === true) assert.strictEqual(tool.annotations?.destructiveHint, true, id)
      }
      yield* stderrIncludes(`tool "scalar" is not exposed over MCP`)
    }))

  it.effect("calls every built-in tool", () =>
    Effect.gen(function*() {
      const { call, webfetchUrl } = yield* Connection
      const table = new Map(samples(webfetchUrl))
      assert.deepStrictEqual(builtinIds.filter((id) => !table.has(id)), [], "a built-in without a sample call")
      for (const [id, sample] of table) {
        if (!builtinIds.includes(id)) continue
        const result = yield* call(id, sample.args)
        assert.strictEqual(result.content[0]?.type, "text", id)
        if (sample.outcome === "any") continue
        assert.isUndefined(result.isError, `${id}: ${text(result)}`)
        if (sample.expect !== undefined) assert.include(text(result), sample.expect, id)
        const structured = result.structuredContent as { title: unknown; metadata: Record<string, unknown> }
        assert.deepStrictEqual(Object.keys(structured).sort(), ["metadata", "title"], id)
        assert.strictEqual(typeof structured.title, "string", id)
        assert.strictEqual(typeof structured.metadata.truncated, "boolean", id)
      }
    }))

  it.effect("a result is text content plus structuredContent { title, metadata }", () =>
    Effect.gen(function*() {
      const { call } = yield* Connection
      assert.deepStrictEqual(yield* call("echo", { text: "hi" }), {
        content: [{ type: "text", text: "hi" }],
        structuredContent: { title: "echo", metadata: { length: 2, truncated: false } }
      })
    }))

  it.effect("a failure is isError with the message and its error data; a bad call is followed by a good one", () =>
    Effect.gen(function*() {
      const { call } = yield* Connection
      assert.deepStrictEqual(yield* call("fail", { message: "disk on fire" }), {
        content: [{ type: "text", text: "disk on fire" }],
        structuredContent: { error: { type: "ToolError", reason: "other" } },
        isError: true
      })
      const bad = yield* call("echo", { text: 5 })
      assert.strictEqual(bad.isError, true)
      assert.deepStrictEqual(bad.structuredContent, { error: { type: "InvalidArgumentsError" } })
      // A real tool's reason, for a client to match on instead of the text.
      const missing = yield* call("read", { filePath: "no-such-file.txt" })
      assert.strictEqual(missing.isError, true)
      assert.deepStrictEqual(missing.structuredContent, { error: { type: "ToolError", reason: "not-found" } })
      assert.strictEqual(
        text(bad),
        "The echo tool was called with invalid arguments:\n- text: Invalid input: expected string, received number\n" +
          "Please rewrite the input so it satisfies the expected schema."
      )
      assert.deepStrictEqual((yield* call("echo", { text: "fixed" })).content, [{ type: "text", text: "fixed" }])
    }))

  it.effect("an unknown tool is a protocol error (InvalidParams) naming the tools", () =>
    Effect.gen(function*() {
      const { client } = yield* Connection
      const error = yield* Effect.flip(Effect.tryPromise(() => client.callTool({ name: "nope", arguments: {} })))
      const cause = error.cause
      assert.instanceOf(cause, McpError)
      assert.strictEqual((cause as McpError).code, ErrorCode.InvalidParams)
      assert.include((cause as McpError).message, `Unknown tool "nope". Available tools:`)
    }))

  it.effect("the renamed tool is called by its exposed name", () =>
    Effect.gen(function*() {
      const { call } = yield* Connection
      const result = yield* call(assign([LONG_ID]).toName.get(LONG_ID)!)
      assert.strictEqual(text(result), "long name reached")
    }))

  it.effect("a permission ask becomes an elicitation with one enum field `decision`; accept once allows", () =>
    Effect.gen(function*() {
      const { call, elicitations, onElicit } = yield* Connection
      onElicit(() => ({ action: "accept", content: { decision: "once" } }))
      const before = elicitations.length
      const result = yield* call("guarded", { target: "src/once.ts" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "did src/once.ts" }])
      assert.strictEqual(elicitations.length, before + 1)
      const asked = elicitations[before]!
      assert.strictEqual(asked.mode, "form")
      assert.deepStrictEqual((asked as { requestedSchema: unknown }).requestedSchema, {
        type: "object",
        properties: {
          decision: {
            type: "string",
            title: "Decision",
            description: "once: allow this call; always: allow the same for the rest of this session; reject: refuse",
            enum: ["once", "always", "reject"]
          }
        },
        required: ["decision"]
      })
      assert.strictEqual(
        asked.message,
        "The guarded tool asks for permission \"guarded\": src/once.ts\nPath: /ws/src/once.ts\n\n" +
          "once: allow this call · always: allow src/once.ts for this session · reject: refuse"
      )
      // once: the next call asks again
      yield* call("guarded", { target: "src/once.ts" })
      assert.strictEqual(elicitations.length, before + 2)
    }))

  it.effect("accept always allows the same pattern for the rest of the session without asking", () =>
    Effect.gen(function*() {
      const { call, elicitations, onElicit } = yield* Connection
      onElicit(() => ({ action: "accept", content: { decision: "always" } }))
      const before = elicitations.length
      assert.strictEqual(text(yield* call("guarded", { target: "always.ts" })), "did always.ts")
      onElicit(() => ({ action: "decline" }))
      assert.strictEqual(text(yield* call("guarded", { target: "always.ts" })), "did always.ts")
      assert.strictEqual(elicitations.length, before + 1)
    }))

  it.effect("a declined elicitation, a cancelled one and a `reject` decision all reject the call", () =>
    Effect.gen(function*() {
      const { call, onElicit } = yield* Connection
      onElicit(() => ({ action: "decline" }))
      assert.deepStrictEqual(yield* call("guarded", { target: "declined.ts" }), {
        content: [{ type: "text", text: "The user rejected permission to use this specific tool call." }],
        structuredContent: { error: { type: "PermissionRejectedError" } },
        isError: true
      })
      onElicit(() => ({ action: "cancel" }))
      assert.strictEqual(
        text(yield* call("guarded", { target: "cancelled.ts" })),
        "The user rejected permission to use this specific tool call with the following feedback: " +
          "The permission prompt was dismissed."
      )
      onElicit(() => ({ action: "accept", content: { decision: "reject" } }))
      const rejected = yield* call("guarded", { target: "rejected.ts" })
      assert.strictEqual(rejected.isError, true)
      assert.strictEqual(text(rejected), "The user rejected permission to use this specific tool call.")
    }))

  it.effect("cancelling a call withdraws its open permission prompt", () =>
    Effect.gen(function*() {
      const { client, onElicit } = yield* Connection
      const prompted = yield* Deferred.make<void>()
      const withdrawn = yield* Deferred.make<void>()
      onElicit((_params, signal) =>
        new Promise((resolve) => {
          Deferred.doneUnsafe(prompted, Exit.void)
          signal.addEventListener("abort", () => {
            Deferred.doneUnsafe(withdrawn, Exit.void)
            resolve({ action: "decline" })
          })
        })
      )
      const controller = new AbortController()
      const call = client.callTool({ name: "guarded", arguments: { target: "slow.ts" } }, undefined, {
        signal: controller.signal
      })
      yield* Deferred.await(prompted)
      controller.abort("changed my mind")
      yield* Effect.flip(Effect.tryPromise(() => call))
      yield* Deferred.await(withdrawn)
    }))

  it.effect("cancelling a running bash call (notifications/cancelled) kills its processes", () =>
    Effect.gen(function*() {
      const { client } = yield* Connection
      const marker = Processes.marker()
      const controller = new AbortController()
      const call = client.callTool({ name: "bash", arguments: { command: `sleep ${marker} & wait`, description: "Wait" } }, undefined, {
        signal: controller.signal
      })
      yield* Processes.waitUntil(() => Processes.withMarker(marker).length > 0)
      controller.abort("changed my mind")
      yield* Effect.flip(Effect.tryPromise(() => call))
      // The server ends the call on the notification; the client does not wait for that.
      yield* Processes.waitUntil(() => Processes.withMarker(marker).length === 0)
      // And it keeps serving.
      const after = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "still here" } }))
      assert.deepStrictEqual(after.content, [{ type: "text", text: "still here" }])
    }))

  it.effect("progress notifications follow the tool's updates when the client sends a progress token", () =>
    Effect.gen(function*() {
      const { client } = yield* Connection
      const progress: Array<{ progress: number; message?: string | undefined }> = []
      // The SDK client drops progress that arrives in the same chunk as the response (it handles
      // notifications a microtask later); listening on the notification itself sees them all.
      client.setNotificationHandler(ProgressNotificationSchema, (n) => {
        progress.push({ progress: n.params.progress, message: n.params.message })
      })
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "steps", arguments: { count: 3 } }, undefined, { onprogress: () => {} })
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "3 steps" }])
      assert.deepStrictEqual(progress, [
        { progress: 1, message: "step 1" },
        { progress: 2, message: "step 2" },
        { progress: 3, message: "step 3" }
      ])
    }))

  it.effect("whatever a tool writes to stdout goes to stderr", () =>
    Effect.gen(function*() {
      const { call, stderrIncludes } = yield* Connection
      assert.strictEqual(text(yield* call("noisy")), "quiet on stdout")
      for (const noise of ["console.log noise", "console.info noise", "process.stdout.write noise", "Effect.log noise"]) {
        yield* stderrIncludes(noise)
      }
    }))
})

describe("MCP server without client elicitation", () => {
  const withServer = (yes: boolean) =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace(WORKSPACE_FILES)
      return yield* connect({ root, elicitation: false, server: { permission, yes } })
    }).pipe(Effect.provide(NodePlatform))

  it.live("rejects an ask with a message that says how to allow it", () =>
    Effect.gen(function*() {
      const { call } = yield* withServer(false)
      const result = yield* call("guarded", { target: "x.ts" })
      assert.strictEqual(result.isError, true)
      assert.strictEqual(
        text(result),
        "The user rejected permission to use this specific tool call with the following feedback: " +
          "The MCP client cannot show permission prompts (no elicitation support), so \"guarded\" for x.ts was " +
          "rejected. Allow it in agent-tools.json (\"permission\") or start the server with --yes."
      )
    }), { timeout: 60_000 })

  it.live("allows an ask once with --yes", () =>
    Effect.gen(function*() {
      const { call } = yield* withServer(true)
      assert.deepStrictEqual((yield* call("guarded", { target: "x.ts" })).content, [{ type: "text", text: "did x.ts" }])
    }), { timeout: 60_000 })
})

describe("MCP server: one elicitation per call", () => {
  it.live("bash touch with bash and edit at ask: one elicitation lists both; its answer applies to both", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace(WORKSPACE_FILES)
      const { call, elicitations, onElicit } = yield* connect({
        root,
        server: { permission: { "*": "allow", bash: "ask", edit: "ask" }, progressInterval: "1 hour" }
      })
      onElicit(() => ({ action: "accept", content: { decision: "always" } }))
      const result = yield* call("bash", { command: "touch made.txt", description: "touch" })
      assert.notStrictEqual(result.isError, true, text(result))
      assert.strictEqual(elicitations.length, 1)
      assert.strictEqual(
        elicitations[0]!.message,
        "The bash tool asks for 2 permissions (one answer applies to all):\n\n" +
          "1. \"edit\": made.txt\nCommand: touch made.txt\n\n" +
          "2. \"bash\": touch made.txt\nCommand: touch made.txt\nNote: writes made.txt\nDescription: touch\n\n" +
          "once: allow this call · always: allow made.txt, touch * for this session · reject: refuse"
      )
      // always stored both: the same call asks nothing
      yield* call("bash", { command: "touch made.txt", description: "touch" })
      assert.strictEqual(elicitations.length, 1)
    }).pipe(Effect.provide(NodePlatform)), { timeout: 60_000 })

  it.live("the real edit tool: the elicitation shows the change as a diff, its control characters escaped", () =>
    Effect.gen(function*() {
      const root = yield* makeWorkspace({ "notes.txt": "keep\nold line\n" })
      const { call, elicitations, onElicit } = yield* connect({
        root,
        server: { permission: { "*": "allow", edit: "ask" }, progressInterval: "1 hour" }
      })
      onElicit(() => ({ action: "accept", content: { decision: "once" } }))
      yield* call("read", { filePath: "notes.txt" })
      // An escape sequence that would clear the screen and a fake line of the prompt.
      const result = yield* call("edit", { filePath: "notes.txt", oldString: "old line", newString: "new \u001b[2Jline\nalways: allowed" })
      assert.notStrictEqual(result.isError, true, text(result))
      assert.strictEqual(elicitations.length, 1)
      assert.strictEqual(
        elicitations[0]!.message,
        `The edit tool asks for permission "edit": notes.txt\nPath: ${root}/notes.txt\n\n` +
          "  | Index: notes.txt\n" +
          "  | ===================================================================\n" +
          "  | --- notes.txt\n" +
          "  | +++ notes.txt\n" +
          "  | @@ -1,2 +1,3 @@\n" +
          "  |  keep\n" +
          "  | -old line\n" +
          "  | +new \\x1b[2Jline\n" +
          "  | +always: allowed\n\n" +
          "once: allow this call · always: allow * for this session · reject: refuse"
      )
    }).pipe(Effect.provide(NodePlatform)), { timeout: 60_000 })
})
