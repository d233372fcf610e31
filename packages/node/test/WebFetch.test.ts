/**
 * webfetch and the search tools through the Node layer: the address policy of webfetch's client
 * (on real sockets to a server on 127.0.0.1) and the config that enables search.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem } from "effect"
import { NodeServices } from "@effect/platform-node"
import { Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools, WebFetchClient } from "@agent-tools/node"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** How webfetch marks what a server sent: data for the model, not instructions. */
const untrusted = (url: string, content: string) => `<untrusted-web-content source="${url}">\n${content}\n</untrusted-web-content>`

const POLICY = "Private, link-local and loopback addresses are refused unless webfetch.allowPrivateNetwork is set in agent-tools.json."

/** A server on 127.0.0.1 for the scope, answering every request with `answer(body)`; its port. */
const serve = (answer: (body: string) => { type: string; body: string }) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<ReturnType<typeof createServer>>((resolve) => {
        const server = createServer((req, res) => {
          let body = ""
          req.setEncoding("utf8").on("data", (d: string) => void (body += d)).on("end", () => {
            const reply = answer(body)
            res.writeHead(200, { "content-type": reply.type }).end(reply.body)
          })
        })
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  ).pipe(Effect.map((server) => (server.address() as AddressInfo).port))

const page = serve(() => ({ type: "text/plain", body: "served locally\n" }))

/** Runs `f` with the Node layer on a temp workspace (every permission allowed). */
const withLayer = <A, E>(
  config: Record<string, unknown>,
  f: Effect.Effect<A, E, NodeAgentTools.Services>,
  options: Partial<NodeAgentTools.Options> = {},
  env: Record<string, string> = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-web-" }))
    const layer = NodeAgentTools.layerWithoutPlatform({
      cwd: dir,
      config: { permission: { "*": "allow" }, spill: { dir: `${dir}/.spill` }, ...config },
      platform: "linux",
      unattended: "reject",
      analysisWorker: false,
      ...options
    })
    return yield* f.pipe(Effect.provide(layer))
  }).pipe(
    Effect.scoped,
    Effect.provide(NodeServices.layer),
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/test", ...env } })))
  )

const call = (id: string, args: unknown) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    return yield* registry.execute(id, args, yield* Tool.makeContext({ sessionID: "test", tool: id }))
  })

const message = (id: string, args: unknown) => Effect.map(Effect.flip(call(id, args)), (e) => e.message)

describe("webfetch on Node: the address policy", () => {
  it.live("loopback is refused by default, by address and by a name resolving to it", () =>
    Effect.gen(function*() {
      const port = yield* page
      yield* withLayer(
        {},
        Effect.gen(function*() {
          assert.strictEqual(
            yield* message("webfetch", { url: `http://127.0.0.1:${port}/` }),
            `Refused to connect: 127.0.0.1 is a loopback address. ${POLICY}`
          )
          assert.strictEqual(
            yield* message("webfetch", { url: `http://[::1]:${port}/` }),
            `Refused to connect: ::1 is a loopback address. ${POLICY}`
          )
          // The URL parser writes an IPv4-mapped address in hex; it is judged by the IPv4 address.
          assert.strictEqual(
            yield* message("webfetch", { url: `http://[::ffff:127.0.0.1]:${port}/` }),
            `Refused to connect: ::ffff:7f00:1 is a loopback address. ${POLICY}`
          )
          assert.strictEqual(
            yield* message("webfetch", { url: "http://169.254.169.254/latest/meta-data/" }),
            `Refused to connect: 169.254.169.254 is a link-local address. ${POLICY}`
          )
          // Real DNS: localhost resolves to a loopback address, so the name is refused too.
          assert.match(
            yield* message("webfetch", { url: `http://localhost:${port}/` }),
            /^Refused to connect: localhost resolves to (127\.0\.0\.1|::1), a loopback address\. Private/
          )
        })
      )
    }).pipe(Effect.scoped))

  it.live("webfetch.allowPrivateNetwork lets it through", () =>
    Effect.gen(function*() {
      const port = yield* page
      const result = yield* withLayer({ webfetch: { allowPrivateNetwork: true } }, call("webfetch", { url: `http://127.0.0.1:${port}/` }))
      assert.strictEqual(result.output, untrusted(result.metadata.url as string, "served locally\n"))
    }).pipe(Effect.scoped))

  it.live("the socket connects to the address that was checked: one resolution, refused or used", () =>
    Effect.gen(function*() {
      const port = yield* page
      const lookups: Array<string> = []
      const resolve: WebFetchClient.Resolve = (host) => {
        lookups.push(host)
        // Names no DNS server knows: the connection can only use this resolver's answer.
        if (host === "pinned.test") return Promise.resolve([{ address: "127.0.0.1", family: 4 }])
        return Promise.resolve([{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.7", family: 4 }])
      }
      const guarded = { services: WebFetchClient.layer({ resolve }) }
      yield* withLayer(
        {},
        Effect.gen(function*() {
          assert.strictEqual(
            yield* message("webfetch", { url: `http://pinned.test:${port}/` }),
            `Refused to connect: pinned.test resolves to 127.0.0.1, a loopback address. ${POLICY}`
          )
          // One private address among public ones refuses the name.
          assert.strictEqual(
            yield* message("webfetch", { url: `http://mixed.test:${port}/` }),
            `Refused to connect: mixed.test resolves to 10.0.0.7, a private address. ${POLICY}`
          )
        }),
        guarded
      )
      assert.deepStrictEqual(lookups, ["pinned.test", "mixed.test"])
      const allowed = { services: WebFetchClient.layer({ resolve, allowPrivateNetwork: true }) }
      const result = yield* withLayer({}, call("webfetch", { url: `http://pinned.test:${port}/` }), allowed)
      assert.strictEqual(result.output, untrusted(result.metadata.url as string, "served locally\n"))
      assert.deepStrictEqual(lookups, ["pinned.test", "mixed.test", "pinned.test"])
    }).pipe(Effect.scoped))
})

describe("websearch and codesearch on Node", () => {
  const ids = Effect.flatMap(ToolRegistry.ToolRegistry, (r) => r.ids)

  it.live("off unless enabled; listed after webfetch when enabled", () =>
    Effect.gen(function*() {
      const off = yield* withLayer({}, ids)
      assert.include(off, "webfetch")
      assert.notInclude(off, "websearch")
      assert.notInclude(off, "codesearch")
      const disabled = yield* withLayer({ websearch: { enabled: false, apiKey: "k" } }, ids)
      assert.notInclude(disabled, "websearch")
      const on = yield* withLayer({ websearch: { enabled: true, apiKey: "k" } }, ids)
      assert.deepStrictEqual(on.slice(on.indexOf("webfetch"), on.indexOf("webfetch") + 4), ["webfetch", "websearch", "codesearch", "todowrite"])
    }))

  it.live("apiKeyEnv: read from the environment; unset is a config error naming the key", () =>
    Effect.gen(function*() {
      const port = yield* serve((body) => ({
        type: "text/event-stream",
        body: `data: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: `got ${body.length} bytes` }] } })}\n\n`
      }))
      const config = { websearch: { enabled: true, apiKeyEnv: "EXA_TEST_KEY", endpoint: `http://127.0.0.1:${port}/mcp` } }
      const result = yield* withLayer(config, call("codesearch", { query: "q" }), {}, { EXA_TEST_KEY: "secret" })
      assert.match(result.output, /^got \d+ bytes$/)
      const error = yield* Effect.flip(withLayer(config, ids))
      assert.strictEqual(error.message, "websearch.apiKeyEnv: the environment variable EXA_TEST_KEY is not set")
    }).pipe(Effect.scoped))
})
