/**
 * JSON-RPC 2.0 with LSP's framing (`Content-Length: N\r\n\r\n` + N bytes of JSON) over a child
 * process's stdio: requests matched to their responses by id, notifications from the server
 * handed to `onNotification`, and the few requests a server makes of its client answered with
 * what a client that offers no workspace features says.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import { Lsp } from "@agent-tools/core"

export interface Connection {
  readonly request: (method: string, params: unknown) => Effect.Effect<unknown, Lsp.LspError>
  readonly notify: (method: string, params: unknown) => Effect.Effect<void>
}

export interface Message {
  readonly jsonrpc: "2.0"
  readonly id?: number | string | null
  readonly method?: string
  readonly params?: unknown
  readonly result?: unknown
  readonly error?: { readonly code: number; readonly message: string }
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** One framed message. */
export const frame = (message: Message): Uint8Array => {
  const body = encoder.encode(JSON.stringify(message))
  const header = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`)
  const out = new Uint8Array(header.length + body.length)
  out.set(header)
  out.set(body, header.length)
  return out
}

const HEADER_END = encoder.encode("\r\n\r\n")

const indexOfHeaderEnd = (buffer: Uint8Array): number => {
  outer: for (let i = 0; i + HEADER_END.length <= buffer.length; i++) {
    for (let j = 0; j < HEADER_END.length; j++) if (buffer[i + j] !== HEADER_END[j]) continue outer
    return i
  }
  return -1
}

/** Splits a byte stream into messages; a frame may arrive in pieces or several in one chunk. */
export class Deframer {
  private buffer = new Uint8Array(0)

  push(chunk: Uint8Array): ReadonlyArray<Message> {
    const joined = new Uint8Array(this.buffer.length + chunk.length)
    joined.set(this.buffer)
    joined.set(chunk, this.buffer.length)
    this.buffer = joined
    const messages: Array<Message> = []
    for (;;) {
      const end = indexOfHeaderEnd(this.buffer)
      if (end === -1) break
      const header = decoder.decode(this.buffer.subarray(0, end))
      const length = Number(/content-length:\s*(\d+)/i.exec(header)?.[1] ?? Number.NaN)
      const start = end + HEADER_END.length
      if (Number.isNaN(length)) {
        // Not a frame we can read: skip the header and carry on with what follows.
        this.buffer = this.buffer.subarray(start)
        continue
      }
      if (this.buffer.length < start + length) break
      const body = decoder.decode(this.buffer.subarray(start, start + length))
      this.buffer = this.buffer.subarray(start + length)
      try {
        messages.push(JSON.parse(body) as Message)
      } catch {
        // A body that is not JSON is dropped; the stream stays in step thanks to the length.
      }
    }
    return messages
  }
}

/** What this client answers to a server's request (it offers no workspace features). */
const answer = (method: string, params: unknown): unknown => {
  if (method === "workspace/configuration") {
    const items = (params as { items?: ReadonlyArray<unknown> } | undefined)?.items ?? []
    return items.map(() => null)
  }
  return null
}

const failed = (message: string) => new Lsp.LspError({ reason: "Failed", message })

/**
 * A connection on a process's output (`stdout`) whose input reads `outgoing`. Reading runs until
 * the output ends (the process exited), then every request still waiting fails.
 */
export const connect = Effect.fnUntraced(function*(options: {
  readonly stdout: Stream.Stream<Uint8Array, unknown>
  readonly outgoing: Queue.Queue<Uint8Array>
  readonly name: string
  readonly onNotification: (method: string, params: unknown) => Effect.Effect<void>
}): Effect.fn.Return<Connection, never, Scope.Scope> {
  const pending = new Map<number, Deferred.Deferred<unknown, Lsp.LspError>>()
  let nextId = 1
  let closed = false
  const send = (message: Message) => Queue.offer(options.outgoing, frame(message)).pipe(Effect.asVoid)
  const deframer = new Deframer()

  const handle = (message: Message): Effect.Effect<void> => {
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      return send({ jsonrpc: "2.0", id: message.id, result: answer(message.method, message.params) })
    }
    if (message.method !== undefined) return options.onNotification(message.method, message.params)
    if (typeof message.id !== "number") return Effect.void
    const waiting = pending.get(message.id)
    if (waiting === undefined) return Effect.void
    pending.delete(message.id)
    return message.error === undefined
      ? Deferred.succeed(waiting, message.result ?? null).pipe(Effect.asVoid)
      : Deferred.fail(waiting, failed(`${options.name}: ${message.error.message}`)).pipe(Effect.asVoid)
  }

  yield* options.stdout.pipe(
    Stream.runForEach((chunk) => Effect.forEach(deframer.push(chunk), handle, { discard: true })),
    Effect.ignore,
    Effect.ensuring(Effect.suspend(() => {
      closed = true
      const waiting = [...pending.values()]
      pending.clear()
      return Effect.forEach(waiting, (d) => Deferred.fail(d, failed(`${options.name} exited`)), { discard: true })
    })),
    Effect.forkScoped
  )

  return {
    request: (method, params) =>
      Effect.gen(function*() {
        if (closed) return yield* failed(`${options.name} exited`)
        const id = nextId++
        const deferred = yield* Deferred.make<unknown, Lsp.LspError>()
        pending.set(id, deferred)
        yield* send({ jsonrpc: "2.0", id, method, params })
        return yield* Deferred.await(deferred).pipe(Effect.onInterrupt(() => Effect.sync(() => pending.delete(id))))
      }),
    notify: (method, params) => closed ? Effect.void : send({ jsonrpc: "2.0", method, params })
  } satisfies Connection
})
