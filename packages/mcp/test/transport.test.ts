import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { PassThrough } from "node:stream"
import { DEFAULT_MAX_MESSAGE_BYTES, oversizedMessage, StdioTransport } from "../src/StdioTransport.ts"

const LIMIT = 200

/** A transport on in-memory streams: what it delivered, reported and wrote back. */
const open = (limit = LIMIT) =>
  Effect.promise(async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const transport = new StdioTransport(stdin, stdout, { maxMessageBytes: limit })
    const messages: Array<JSONRPCMessage> = []
    const errors: Array<string> = []
    let written = ""
    stdout.on("data", (chunk: Buffer) => void (written += chunk.toString("utf8")))
    transport.onmessage = (m) => void messages.push(m)
    transport.onerror = (e) => void errors.push(e.message)
    let closed = false
    transport.onclose = () => void (closed = true)
    await transport.start()
    const feed = (...chunks: ReadonlyArray<string>) =>
      Effect.promise(async () => {
        for (const c of chunks) stdin.write(c)
        await new Promise((resolve) => setImmediate(resolve))
      })
    return {
      feed,
      messages,
      errors,
      replies: () => written.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as unknown),
      closed: () => closed,
      transport
    }
  })

const request = (id: number | string, text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text } } })

describe("StdioTransport", () => {
  it("the default limit is the SDK's 10 MiB", () => assert.strictEqual(DEFAULT_MAX_MESSAGE_BYTES, 10 * 1024 * 1024))

  it.effect("delivers lines split across chunks and several lines in one chunk; skips blank lines", () =>
    Effect.gen(function*() {
      const t = yield* open()
      const a = request(1, "a")
      yield* t.feed(a.slice(0, 10), a.slice(10) + "\r\n\n" + request(2, "b") + "\n" + request(3, "c"))
      assert.deepStrictEqual(t.messages.map((m) => "id" in m ? m.id : undefined), [1, 2])
      yield* t.feed("\n")
      assert.deepStrictEqual(t.messages.map((m) => "id" in m ? m.id : undefined), [1, 2, 3])
      assert.deepStrictEqual(t.errors, [])
    }))

  it.effect("an oversized request gets its own error; the messages around it are served; the limit is inclusive", () =>
    Effect.gen(function*() {
      const t = yield* open()
      const fits = request(1, "x".repeat(LIMIT - request(1, "").length))
      assert.strictEqual(fits.length, LIMIT)
      const big = request(2, "y".repeat(LIMIT))
      yield* t.feed(fits + "\n" + big.slice(0, 150), big.slice(150, 300), big.slice(300) + "\n" + request(3, "after") + "\n")
      assert.deepStrictEqual(t.messages.map((m) => "id" in m ? m.id : undefined), [1, 3])
      assert.deepStrictEqual(t.replies(), [{
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32600, message: oversizedMessage(big.length, LIMIT) }
      }])
      assert.strictEqual(
        oversizedMessage(big.length, LIMIT),
        `The message is ${big.length} bytes, over the server's limit of 200 bytes per message; it was not processed. ` +
          "Send large content in smaller parts (e.g. several edits instead of one write)."
      )
      assert.deepStrictEqual(t.errors, [`${oversizedMessage(big.length, LIMIT)} (request id 2, answered with an error)`])
      assert.isFalse(t.closed())
    }))

  it.effect("without a readable id the message is dropped and reported; with a response id the server gets an error response", () =>
    Effect.gen(function*() {
      const t = yield* open()
      const notification = JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { t: "z".repeat(LIMIT) } })
      const response = JSON.stringify({ jsonrpc: "2.0", id: 5, result: { action: "accept", content: { d: "w".repeat(LIMIT) } } })
      yield* t.feed(notification + "\n" + response + "\n" + request("after", "ok") + "\n")
      assert.deepStrictEqual(t.replies(), [])
      assert.deepStrictEqual(t.errors, [
        `${oversizedMessage(notification.length, LIMIT)} It has no readable id, so it was dropped without a reply.`,
        `${oversizedMessage(response.length, LIMIT)} (a response to our request 5, which fails with this error)`
      ])
      assert.deepStrictEqual(t.messages, [
        { jsonrpc: "2.0", id: 5, error: { code: -32600, message: oversizedMessage(response.length, LIMIT) } },
        JSON.parse(request("after", "ok"))
      ])
    }))

  it.effect("a malformed line is reported and the next one served", () =>
    Effect.gen(function*() {
      const t = yield* open()
      yield* t.feed("{not json\n" + request(1, "ok") + "\n")
      assert.strictEqual(t.errors.length, 1)
      assert.match(t.errors[0]!, /^Ignored a line that is not a JSON-RPC message: .*JSON/)
      assert.deepStrictEqual(t.messages.map((m) => "id" in m ? m.id : undefined), [1])
    }))

  it.effect("close stops reading and reports the close", () =>
    Effect.gen(function*() {
      const t = yield* open()
      yield* Effect.promise(() => t.transport.close())
      assert.isTrue(t.closed())
      yield* t.feed(request(1, "late") + "\n")
      assert.deepStrictEqual(t.messages, [])
    }))
})
