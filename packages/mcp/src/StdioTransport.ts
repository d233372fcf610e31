/**
 * The MCP stdio transport of `agent-tools mcp`: newline-delimited JSON-RPC on a readable and a
 * writable stream, like the SDK's `StdioServerTransport`, except for one message too large to
 * accept. The SDK's transport closes the whole connection when its read buffer overflows, failing
 * every call in flight; this one limits each message, not the connection. A message over the limit
 * is skipped to its newline without being held (its top-level id is read on the way, see
 * `MessageEnvelope`) and then:
 *
 * - a request gets its own JSON-RPC error (Invalid Request) naming the size and the limit;
 * - a response (the client's answer to one of our requests, e.g. an elicitation) reaches the
 *   server as an error response for that id, so what waits on it fails instead of hanging;
 * - a message without a readable id is dropped and reported through `onerror` (logged on stderr).
 *
 * Every other message, and every call in flight, carries on.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import type { Readable, Writable } from "node:stream"
import { EnvelopeScanner } from "./MessageEnvelope.ts"

/**
 * The largest JSON-RPC message accepted, in bytes of its line (newline excluded): 10 MiB, the MCP
 * SDK's own stdio buffer. A `write` or `apply_patch` of several megabytes still fits; a message
 * this size held several times over (buffer, string, parsed object) stays well within memory.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024

export interface Options {
  /** The largest message accepted, in bytes (default `DEFAULT_MAX_MESSAGE_BYTES`). */
  readonly maxMessageBytes?: number | undefined
}

const NEWLINE = 0x0a

/** The text of the error for a message of `size` bytes over `limit`. */
export const oversizedMessage = (size: number, limit: number): string =>
  `The message is ${size} bytes, over the server's limit of ${limit} bytes per message; it was not processed. ` +
  `Send large content in smaller parts (e.g. several edits instead of one write).`

export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined

  private readonly limit: number
  private started = false
  /** The current line's bytes so far, while it is within the limit. */
  private pending: Array<Uint8Array> = []
  private pendingBytes = 0
  /** Set once the current line went over the limit: it is scanned, not kept. */
  private oversized: { readonly scanner: EnvelopeScanner; size: number } | undefined

  private readonly stdin: Readable
  private readonly stdout: Writable

  constructor(stdin: Readable, stdout: Writable, options: Options = {}) {
    this.stdin = stdin
    this.stdout = stdout
    this.limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  }

  private readonly onData = (chunk: Buffer) => {
    try {
      this.take(chunk)
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error)
  }

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error("StdioTransport already started"))
    this.started = true
    this.stdin.on("data", this.onData)
    this.stdin.on("error", this.onStreamError)
    return Promise.resolve()
  }

  close(): Promise<void> {
    this.stdin.off("data", this.onData)
    this.stdin.off("error", this.onStreamError)
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause()
    this.pending = []
    this.pendingBytes = 0
    this.oversized = undefined
    this.onclose?.()
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve()
      else this.stdout.once("drain", resolve)
    })
  }

  /** Splits a chunk into lines; each complete line is delivered or rejected as it ends. */
  private take(chunk: Uint8Array): void {
    let start = 0
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start)
      const end = newline === -1 ? chunk.length : newline
      this.append(chunk.subarray(start, end))
      if (newline === -1) return
      this.endLine()
      start = newline + 1
    }
  }

  private append(piece: Uint8Array): void {
    if (piece.length === 0) return
    if (this.oversized !== undefined) {
      this.oversized.scanner.feed(piece)
      this.oversized.size += piece.length
      return
    }
    if (this.pendingBytes + piece.length <= this.limit) {
      this.pending.push(piece)
      this.pendingBytes += piece.length
      return
    }
    // Over the limit: from here on the line is only scanned for its id, never kept.
    const scanner = new EnvelopeScanner()
    for (const part of this.pending) scanner.feed(part)
    scanner.feed(piece)
    this.oversized = { scanner, size: this.pendingBytes + piece.length }
    this.pending = []
    this.pendingBytes = 0
  }

  private endLine(): void {
    const oversized = this.oversized
    if (oversized !== undefined) {
      this.oversized = undefined
      return this.reject(oversized.scanner, oversized.size)
    }
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    const line = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8").replace(/\r$/, "")
    if (line.trim() === "") return
    let message: JSONRPCMessage
    try {
      message = deserializeMessage(line)
    } catch (error) {
      this.onerror?.(new Error(`Ignored a line that is not a JSON-RPC message: ${error instanceof Error ? error.message : String(error)}`))
      return
    }
    this.onmessage?.(message)
  }

  private reject(scanner: EnvelopeScanner, size: number): void {
    const { hasMethod, id } = scanner.envelope
    const text = oversizedMessage(size, this.limit)
    if (id === undefined) {
      this.onerror?.(new Error(`${text} It has no readable id, so it was dropped without a reply.`))
      return
    }
    const error = { jsonrpc: "2.0" as const, id, error: { code: ErrorCode.InvalidRequest, message: text } }
    if (hasMethod) {
      this.send(error).catch((e: unknown) => this.onerror?.(e instanceof Error ? e : new Error(String(e))))
      this.onerror?.(new Error(`${text} (request id ${JSON.stringify(id)}, answered with an error)`))
    } else {
      this.onerror?.(new Error(`${text} (a response to our request ${JSON.stringify(id)}, which fails with this error)`))
      this.onmessage?.(error)
    }
  }
}
