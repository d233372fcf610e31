/**
 * Web tool tests: a real HTTP server on 127.0.0.1 started by the test, and the tools built with
 * the real Truncate, Permission (allow all, recording what was asked) and Node's HTTP client.
 */
import { Effect, Layer } from "effect"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Events, Permission, SpillStorage, Tool, ToolRegistry, Truncate } from "@agent-tools/core"
import { Testing } from "@agent-tools/testing"
import { Web } from "@agent-tools/tools"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

/** A server on 127.0.0.1 for the scope; its base URL (`http://127.0.0.1:PORT`). */
export const serve = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<ReturnType<typeof createServer>>((resolve) => {
        const server = createServer((req, res) => {
          let body = ""
          req.setEncoding("utf8").on("data", (d: string) => void (body += d)).on("end", () => handler(req, res, body))
        })
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

const allowAll: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

/** Truncate, Permission and webfetch's client (Node's, without the address policy). */
export const services = Layer.mergeAll(
  Truncate.layer(),
  Permission.layer({ rules: allowAll, unattended: "reject" }),
  Web.fromHttpClient.pipe(Layer.provide(NodeHttpClient.layerNodeHttp))
).pipe(Layer.provideMerge(Layer.mergeAll(SpillStorage.layerMemory(), Events.layerNoop)))

/**
 * Calls `tool` once through a registry's whole pipeline (validation, permission, truncation) and
 * returns the result and what it asked. The web client and Exa config come from the caller.
 */
export const call = (
  tool: Tool.Definition<string, any, any>,
  args: unknown
): Effect.Effect<{ result: Tool.Result; asked: Array<Tool.AskInput> }, { readonly message: string }> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const asked: Array<Tool.AskInput> = []
    const ctx = yield* Tool.makeContext({ sessionID: "s" })
    const result = yield* registry.execute(tool.id, args, {
      ...ctx,
      ask: (i) => Effect.andThen(Effect.sync(() => void asked.push(i)), ctx.ask(i)),
      askAll: (is) => Effect.andThen(Effect.sync(() => void asked.push(...is)), ctx.askAll(is))
    })
    return { result, asked }
  }).pipe(Effect.provide(Testing.layer({ tools: [tool] })))

/** The message of a failed call. */
export const callError = (tool: Tool.Definition<string, any, any>, args: unknown) =>
  Effect.map(Effect.flip(call(tool, args)), (e) => e.message)
