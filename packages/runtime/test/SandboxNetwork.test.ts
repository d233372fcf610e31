/**
 * The sandbox's network with real bwrap, real servers on the host and Node as the client inside:
 * by default a call has its own network namespace (the host's loopback, abstract unix sockets and
 * the cloud metadata address are out of reach) and HTTP(S) goes through the proxy, which lets a
 * host through only when the call's `authorize` (the bash tool: the `network` permission) allows
 * it, and a loopback or private address only when that was allowed explicitly.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, Scope } from "effect"
import { Events, Permission, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate } from "@agent-tools/core"
import { Explain, NodeAgentTools } from "@agent-tools/runtime"
import { Bubblewrap } from "@agent-tools/node"
import type { AgentConfig } from "@agent-tools/runtime"
import { Programs, ScriptedPermission } from "@agent-tools/testing"
import { Bash } from "@agent-tools/tools"

const platform = Layer.mergeAll(
  NodeServices.layer,
  Truncate.layer().pipe(Layer.provide(SpillStorage.layerMemory()), Layer.provide(Events.layerNoop))
)

/**
 * The client the tests run inside the sandbox (Node: always there, unlike curl):
 * - `tcp HOST PORT`: a plain TCP connection; prints what the server says, or `error CODE`;
 * - `abstract NAME`: the same to the abstract unix socket `\0NAME`;
 * - `get URL`: an HTTP GET through `http_proxy` when set (absolute URI), else direct; prints
 *   `STATUS BODY`;
 * - `connect HOST:PORT`: a CONNECT tunnel through `https_proxy`; sends `ping` and prints the
 *   proxy's status line, then what came back through the tunnel.
 */
const CLIENT = `
import { connect } from "node:net"
import { request } from "node:http"
const [mode, a, b] = process.argv.slice(2)
const fail = (e) => { console.log("error " + (e.code ?? e.message)); process.exit(0) }
const read = (socket) => { let text = ""; socket.on("data", (d) => text += d); socket.on("end", () => console.log(text.trim())); socket.on("error", fail) }
if (mode === "tcp") read(connect({ host: a, port: Number(b) }))
if (mode === "abstract") read(connect({ path: "\\0" + a }))
if (mode === "get") {
  const proxy = process.env.http_proxy ? new URL(process.env.http_proxy) : undefined
  const url = new URL(a)
  const options = proxy === undefined
    ? { host: url.hostname, port: url.port, path: url.pathname }
    : { host: proxy.hostname, port: proxy.port, path: url.href, headers: { host: url.host } }
  request(options, (res) => { let body = ""; res.on("data", (d) => body += d); res.on("end", () => console.log(res.statusCode + " " + body.trim())) })
    .on("error", fail).end()
}
if (mode === "connect") {
  const proxy = new URL(process.env.https_proxy)
  const socket = connect({ host: proxy.hostname, port: Number(proxy.port) })
  let text = ""
  socket.on("error", fail)
  socket.on("connect", () => socket.write("CONNECT " + a + " HTTP/1.1\\r\\nHost: " + a + "\\r\\n\\r\\n"))
  socket.on("data", (d) => {
    text += d
    if (text.startsWith("HTTP/1.1 200") && text.endsWith("\\r\\n\\r\\n")) socket.write("ping\\n")
    if (text.endsWith("pong\\n") || !text.startsWith("HTTP/1.1 200") && text.includes("\\r\\n\\r\\n")) socket.end()
  })
  socket.on("end", () => console.log(text.split("\\r\\n")[0] + " | " + text.slice(text.indexOf("\\r\\n\\r\\n") + 4).trim()))
}
`

/** A workspace holding the client, removed with the scope. */
const workspace = Effect.acquireRelease(
  Effect.sync(() => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-net-")))
    writeFileSync(join(ws, "client.mjs"), CLIENT)
    return ws
  }),
  (ws) => Effect.sync(() => rmSync(ws, { recursive: true, force: true }))
)

const listening = (server: Server, at: number | string, host?: string) =>
  Effect.acquireRelease(
    Effect.callback<Server>((resume) => {
      server.once("error", (e) => resume(Effect.die(e)))
      if (typeof at === "string") server.listen(at, () => resume(Effect.succeed(server)))
      else server.listen(at, host, () => resume(Effect.succeed(server)))
    }),
    (s) => Effect.sync(() => s.close())
  )

const portOf = (server: Server) => (server.address() as { port: number }).port

/** A TCP server on the host's 127.0.0.1 that greets and closes. */
const tcpServer = Effect.map(listening(createServer((s) => s.end("hello from the host\n")), 0, "127.0.0.1"), portOf)

/** An HTTP server on the host's 127.0.0.1 answering `hello over http`. */
const httpServer = Effect.map(
  listening(createHttpServer((_, res) => res.end("hello over http\n")) as unknown as Server, 0, "127.0.0.1"),
  portOf
)

/** A TCP server on the host's 127.0.0.1 that answers each line with `pong`. */
const pongServer = Effect.map(
  listening(createServer((s) => s.on("data", () => s.end("pong\n"))), 0, "127.0.0.1"),
  portOf
)

interface RunIn {
  readonly ws: string
  readonly layer?: Bubblewrap.Options
  readonly authorize?: Sandbox.Authorize
  readonly env?: Record<string, string>
  readonly outside?: Sandbox.Outside
}

/** Runs `command` in the sandbox of a fresh Bubblewrap layer; returns its output. */
const sandboxed = (command: string, options: RunIn) =>
  Effect.gen(function*() {
    const service = yield* Sandbox.Sandbox
    const status = yield* service.status
    assert.isTrue(status.sandboxed, JSON.stringify(status))
    const result = yield* Bash.run({
      command,
      cwd: options.ws,
      shell: { path: "/bin/bash", name: "bash", kind: "posix" },
      platform: "linux",
      env: { ...Bash.NON_INTERACTIVE_ENV, ...options.env },
      timeout: 20_000,
      grace: 500,
      drain: 250,
      truncation: { tool: "bash", direction: "head+tail" },
      sandbox: {
        service,
        policy: { root: options.ws, cwd: options.ws, writable: [], readable: [], outside: options.outside ?? "hidden", authorize: options.authorize }
      }
    })
    return result.output.content
  }).pipe(
    Effect.provide(Bubblewrap.layer(options.layer)),
    Effect.provide(platform),
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: process.env as Record<string, string> })))
  )

const hasBwrap = Programs.hasProgram("bwrap")

const live = (name: string, body: () => Effect.Effect<void, unknown, Scope.Scope>) =>
  it.live.skipIf(!hasBwrap)(hasBwrap ? name : `${name} (skipped: bwrap is not installed)`, body, 30_000)

/** Allows every host (public addresses only, unless `privateAddresses`), recording each. */
const allowing = (privateAddresses: boolean, asked: Array<string> = []): Sandbox.Authorize => (host, port) =>
  Effect.sync(() => {
    asked.push(`${host}:${port}`)
    return { _tag: "allow", privateAddresses }
  })

const denying: Sandbox.Authorize = () => Effect.succeed({ _tag: "deny", reason: "not in the test's list" })

describe("the default network: a namespace of its own", () => {
  live("the host's loopback services are unreachable", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* tcpServer
      const out = yield* sandboxed(`node client.mjs tcp 127.0.0.1 ${port}`, { ws, authorize: allowing(true) })
      assert.strictEqual(out, "error ECONNREFUSED\n")
    }))

  live("an abstract unix socket of the host is unreachable", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const name = `agent-tools-test-${process.pid}-${Date.now()}`
      yield* listening(createServer((s) => s.end("hello from the abstract socket\n")), `\0${name}`)
      // The client is this Node (its directory is visible inside): the `node` on PATH may be another
      // one, and Node 20's client does not reach an abstract socket this Node listens on (ECONNREFUSED
      // even outside any sandbox), which made the check below fail wherever Node 20 came first.
      const client = `'${process.execPath}' client.mjs abstract ${name}`
      // The host itself reaches it (the test would prove nothing otherwise).
      const direct = yield* sandboxed(client, { ws, layer: { network: "allow" } })
      assert.strictEqual(direct, "hello from the abstract socket\n")
      const out = yield* sandboxed(client, { ws, authorize: allowing(true) })
      assert.strictEqual(out, "error ECONNREFUSED\n")
    }))

  live("the cloud metadata address is unreachable, directly and through the proxy", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const out = yield* sandboxed(
        `node client.mjs tcp 169.254.169.254 80; node client.mjs get http://169.254.169.254/latest/meta-data/`,
        { ws, authorize: allowing(false) }
      )
      const [direct, proxied] = out.trim().split("\n")
      assert.strictEqual(direct, "error ENETUNREACH")
      assert.match(proxied!, /^403 agent-tools sandbox proxy: 169\.254\.169\.254 is a link-local address\./)
    }))

  live("the bridge does not take the command's Node settings", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* httpServer
      const out = yield* sandboxed(`env -u NODE_OPTIONS node client.mjs get http://localhost:${port}/x`, {
        ws,
        authorize: allowing(true),
        env: { NODE_OPTIONS: "--require /nonexistent/hook.js" }
      })
      assert.strictEqual(out, "200 hello over http\n")
    }))

  live("the proxy variables are set, and the sandbox's own loopback stays direct", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const out = yield* sandboxed(
        `echo "$HTTP_PROXY $HTTPS_PROXY $http_proxy $https_proxy $NO_PROXY"; ` +
          `node -e 'require("net").createServer((s) => s.end("inside\\n")).listen(4321, "127.0.0.1", () => require("fs").writeFileSync("up", ""))' & ` +
          `until [ -e up ]; do sleep 0.05; done; echo up; node client.mjs tcp 127.0.0.1 4321; kill %1`,
        { ws }
      )
      assert.match(
        out,
        /^http:\/\/127\.0\.0\.1:(\d+) http:\/\/127\.0\.0\.1:\1 http:\/\/127\.0\.0\.1:\1 http:\/\/127\.0\.0\.1:\1 localhost,127\.0\.0\.1,::1\nup\ninside\n$/
      )
    }))
})

describe("HTTP(S) through the proxy, per host", () => {
  live("a host allowed with private addresses is fetched; its port is passed to authorize", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* httpServer
      const asked: Array<string> = []
      const out = yield* sandboxed(`node client.mjs get http://localhost:${port}/x`, { ws, authorize: allowing(true, asked) })
      assert.strictEqual(out, "200 hello over http\n")
      assert.deepStrictEqual(asked, [`localhost:${port}`])
    }))

  live("with nothing outside hidden (external_directory allows all), the proxy works the same", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* httpServer
      const out = yield* sandboxed(`node client.mjs get http://localhost:${port}/x; node client.mjs tcp 127.0.0.1 ${port}`, {
        ws,
        outside: "writable",
        authorize: allowing(true)
      })
      assert.strictEqual(out, "200 hello over http\nerror ECONNREFUSED\n")
    }))

  live("an allowed host that resolves to loopback is refused after DNS without private addresses", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* httpServer
      const out = yield* sandboxed(`node client.mjs get http://localhost:${port}/x`, { ws, authorize: allowing(false) })
      assert.match(out, /^403 agent-tools sandbox proxy: localhost resolves to (127\.0\.0\.1|::1), a loopback address\./)
    }))

  live("a denied host gets 403 with the reason, and nothing is connected", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* httpServer
      const out = yield* sandboxed(`node client.mjs get http://localhost:${port}/x`, { ws, authorize: denying })
      assert.strictEqual(out, `403 agent-tools sandbox proxy: localhost:${port} is not allowed: not in the test's list\n`)
    }))

  live("without an authorize every host is refused", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* httpServer
      const out = yield* sandboxed(`node client.mjs get http://localhost:${port}/x`, { ws })
      assert.match(out, /^403 agent-tools sandbox proxy: localhost:\d+ is not allowed: no one decides network access/)
    }))

  live("CONNECT opens a tunnel to an allowed host (HTTPS goes this way)", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* pongServer
      const allowed = yield* sandboxed(`node client.mjs connect 127.0.0.1:${port}`, { ws, authorize: allowing(true) })
      assert.strictEqual(allowed, "HTTP/1.1 200 Connection Established | pong\n")
      const denied = yield* sandboxed(`node client.mjs connect 127.0.0.1:${port}`, { ws, authorize: denying })
      assert.match(denied, /^HTTP\/1\.1 403 Forbidden \| agent-tools sandbox proxy: 127\.0\.0\.1:\d+ is not allowed/)
      // A target that is no host name never reaches a rule (a wildcard could match it by accident).
      const asked: Array<string> = []
      const odd = yield* sandboxed(`node client.mjs connect 'evil.example*.npmjs.org:443'`, { ws, authorize: allowing(false, asked) })
      assert.strictEqual(odd, `HTTP/1.1 400 Bad Request | agent-tools sandbox proxy: "evil.example*.npmjs.org" is not a host name\n`)
      assert.deepStrictEqual(asked, [])
    }))
})

/**
 * The `node` on PATH (the one inside the sandbox) reads the proxy variables for `fetch` from 22.21
 * on, when `NODE_USE_ENV_PROXY=1` (not set by the sandbox: Node warns about it on every start).
 */
const nodeFetchUsesProxy = (() => {
  const version = spawnSync("node", ["--version"], { encoding: "utf8" }).stdout?.trim() ?? ""
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major >= 24 || major === 22 && minor >= 21
})()

describe("Node's fetch inside the sandbox", () => {
  const name = "fetch goes through the proxy: allowed and refused hosts"
  const ready = hasBwrap && nodeFetchUsesProxy
  it.live.skipIf(!ready)(ready ? name : `${name} (skipped: needs bwrap and node 22.21 or later on PATH)`, () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      // Not on 127.0.0.1: NO_PROXY keeps that (and localhost) direct, i.e. inside the sandbox.
      const port = yield* Effect.map(
        listening(createHttpServer((_, res) => res.end("hello over http\n")) as unknown as Server, 0, "127.0.0.2"),
        portOf
      )
      const fetch = (host: string) =>
        `NODE_USE_ENV_PROXY=1 node --no-warnings -e 'fetch("http://${host}:${port}/").then(async (r) => console.log(r.status, (await r.text()).trim()), (e) => console.log(String(e.cause.cause ?? e.cause)))'`
      const authorize: Sandbox.Authorize = (host) =>
        Effect.succeed(host === "127.0.0.2" ? { _tag: "allow", privateAddresses: true } : { _tag: "deny", reason: "no" })
      const out = yield* sandboxed(`${fetch("127.0.0.2")}; ${fetch("127.0.0.3")}`, { ws, authorize })
      // Node tunnels plain http with CONNECT too, so a refusal is its error, not a response.
      assert.match(out, /^200 hello over http\n.*Proxy response \(403\) !== 200 when HTTP Tunneling\n$/)
    }), 30_000)
})

describe("the other network modes", () => {
  live("allow: the host's loopback is reachable, as outside the sandbox", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* tcpServer
      const out = yield* sandboxed(`node client.mjs tcp 127.0.0.1 ${port}; echo "[$HTTP_PROXY]"`, { ws, layer: { network: "allow" } })
      assert.strictEqual(out, "hello from the host\n[]\n")
    }))

  live("deny: nothing is reachable, not even through a proxy", () =>
    Effect.gen(function*() {
      const ws = yield* workspace
      const port = yield* httpServer
      const out = yield* sandboxed(
        `node client.mjs tcp 127.0.0.1 ${port}; node client.mjs tcp 169.254.169.254 80; echo "[$HTTP_PROXY]"`,
        { ws, layer: { network: "deny" }, authorize: allowing(true) }
      )
      assert.strictEqual(out, "error ECONNREFUSED\nerror ENETUNREACH\n[]\n")
    }))
})

// ---------------------------------------------------------------------------------------------
// Through the bash tool: the `network` permission decides, from rules or from the user's answer.

const bash = (command: string, timeout?: number) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: "s", tool: "bash" })
    return yield* registry.execute("bash", { command, description: "test", ...(timeout === undefined ? {} : { timeout }) }, ctx)
  })

const inAgent = <A, E>(
  config: AgentConfig.Input,
  unattended: "wait" | "reject",
  body: (ws: string) => Effect.Effect<A, E, NodeAgentTools.Services | Scope.Scope>
) =>
  Effect.gen(function*() {
    const ws = yield* workspace
    return yield* body(ws).pipe(
      Effect.provide(NodeAgentTools.layerWithoutPlatform({ cwd: ws, config, unattended, platform: "linux" }))
    )
  }).pipe(Effect.provide(NodeServices.layer))

const commands = { "*": "allow" as const }

describe("the network permission (bash tool)", () => {
  live("a rule naming the host allows it, loopback included; other hosts follow their rules", () =>
    Effect.gen(function*() {
      const port = yield* httpServer
      yield* inAgent(
        { permission: { bash: commands, network: { "*": "deny", localhost: "allow" } } },
        "reject",
        () =>
          Effect.gen(function*() {
            const tool = yield* ToolRegistry.ToolRegistry.use((r) => r.get("bash"))
            assert.include(
              Option.getOrThrow(tool).description,
              "Network access is HTTP(S) only, through a proxy set in HTTP_PROXY/HTTPS_PROXY"
            )
            const allowed = yield* bash(`node client.mjs get http://localhost:${port}/x`)
            assert.strictEqual(allowed.output, "200 hello over http\n")
            const denied = yield* bash(`node client.mjs get http://127.0.0.1:${port}/x`)
            assert.match(denied.output, /^403 agent-tools sandbox proxy: 127\.0\.0\.1:\d+ is not allowed: A permission rule prevents/)
          })
      )
    }))

  live("a wildcard allow does not open loopback addresses", () =>
    Effect.gen(function*() {
      const port = yield* httpServer
      yield* inAgent({ permission: { bash: commands, network: { "local*": "allow" } } }, "reject", () =>
        Effect.gen(function*() {
          const result = yield* bash(`node client.mjs get http://localhost:${port}/x`)
          assert.match(result.output, /^403 agent-tools sandbox proxy: localhost resolves to .*, a loopback address\./)
        }))
    }))

  live("an unknown host is asked while the command runs, once per call; a rejection refuses it", () =>
    Effect.gen(function*() {
      const port = yield* httpServer
      yield* inAgent({ permission: { bash: commands } }, "wait", () =>
        Effect.gen(function*() {
          const responder = yield* ScriptedPermission.run((request) => request.patterns[0] === "localhost" ? "once" : "reject")
          // Approved, but by the user, not a rule: the host may not resolve to loopback.
          const once = yield* bash(
            `node client.mjs get http://localhost:${port}/a; node client.mjs get http://localhost:${port}/b; node client.mjs get http://127.0.0.1:${port}/c`
          )
          const lines = once.output.trim().split("\n")
          assert.match(lines[0]!, /^403 agent-tools sandbox proxy: localhost resolves to .*, a loopback address\./)
          assert.match(lines[1]!, /^403 agent-tools sandbox proxy: localhost resolves to .*, a loopback address\./)
          assert.match(lines[2]!, /^403 agent-tools sandbox proxy: 127\.0\.0\.1:\d+ is not allowed: The user rejected/)
          const asked = yield* responder.asked
          assert.deepStrictEqual(asked.map((a) => [a.request.permission, a.request.patterns, a.reply]), [
            ["network", ["localhost"], "once"],
            ["network", ["127.0.0.1"], "reject"]
          ])
          assert.deepStrictEqual(asked[0]!.request.metadata, { host: "localhost", port })
        }))
    }))

  live("an ask still open when the command times out is withdrawn with the call", () =>
    Effect.gen(function*() {
      yield* inAgent({ permission: { bash: commands } }, "wait", () =>
        Effect.gen(function*() {
          const permission = yield* Permission.Permission
          // Nobody answers: the client waits on the proxy until the call's timeout.
          const result = yield* bash("node client.mjs get http://unanswered.example/", 1500)
          assert.strictEqual(result.metadata.reason, "timeout")
          assert.deepStrictEqual(yield* permission.pending, [])
        }))
    }))

  live("explain says that the hosts are decided while the command runs (only under the proxy)", () =>
    Effect.gen(function*() {
      const line = `  at run time: network: each host the command connects to is decided while it runs (permission "network", one request per host)`
      const args = { command: "curl https://example.com", description: "d" }
      yield* inAgent({ permission: { bash: commands } }, "reject", () =>
        Effect.gen(function*() {
          const text = Explain.render(yield* Explain.explain("bash", args))
          assert.strictEqual(text.split("\n").at(-1), line)
        }))
      yield* inAgent({ permission: { bash: commands }, sandbox: { network: "allow" } }, "reject", () =>
        Effect.gen(function*() {
          assert.notInclude(Explain.render(yield* Explain.explain("bash", args)), "at run time")
        }))
    }))

  live("`always` remembers the host for the session", () =>
    Effect.gen(function*() {
      const port = yield* httpServer
      yield* inAgent({ permission: { bash: commands, network: { localhost: "ask" } } }, "wait", () =>
        Effect.gen(function*() {
          const responder = yield* ScriptedPermission.run(["always"])
          yield* bash(`node client.mjs get http://localhost:${port}/a`)
          yield* bash(`node client.mjs get http://localhost:${port}/b`)
          assert.deepStrictEqual((yield* responder.asked).map((a) => a.request.patterns), [["localhost"]])
        }))
    }))
})
