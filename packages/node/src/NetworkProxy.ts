/**
 * The network of a sandboxed call under `sandbox.network: "proxy"`: the call gets its own network
 * namespace (only its own loopback: the host's loopback services, abstract unix sockets and the
 * cloud metadata address are not there), and its HTTP(S) goes through a proxy this process runs.
 *
 * Outside the sandbox, an HTTP proxy listens on a unix socket in a private directory made for
 * the call: `CONNECT host:port` opens a tunnel (HTTPS, or any TCP), an absolute-URI request
 * (`GET http://host/path`) is forwarded. Each request's host is put to the policy's `authorize`
 * (the bash tool asks the permission service, which may prompt the user while the call runs); a
 * host that is not allowed gets `403` with the reason. The host is then resolved once and refused
 * when any of its addresses is loopback, private, link-local or otherwise not public — the same
 * check webfetch makes — unless `authorize` allowed private addresses for it; the socket connects
 * to exactly the addresses checked.
 *
 * Inside, the directory is bound read-only at its own path, and a small Node program (the
 * bridge, `internal/networkBridge.ts`) listens on 127.0.0.1 and forwards each connection to the
 * socket. A `/bin/sh` wrapper starts the bridge, waits for its `ready <port>` line, exports
 * `HTTP_PROXY`/`HTTPS_PROXY` (both cases) and `NO_PROXY`, and only then `exec`s the command, so the
 * command never starts before the proxy is reachable. The variables are set inside the sandbox,
 * after anything that clears the environment. The bridge is a process of the call's PID
 * namespace: it ends with the call; the proxy and its directory end with the call's scope.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import type * as Scope from "effect/Scope"
import { Sandbox } from "@agent-tools/core"
import { Web } from "@agent-tools/tools"
import type * as Http from "node:http"
import type * as Net from "node:net"
import { createRequire } from "node:module"
import * as Bridge from "./internal/networkBridge.ts"
import { guardedLookup, type Refusal, type Resolve, systemResolve } from "./WebFetchClient.ts"

// CommonJS loads, as the webfetch client does: the ESM node:http evaluates its lazy exports (undici).
// Loaded when the first proxy starts: node:http (client and server) is a few milliseconds of
// every process's start otherwise, for the calls that allow a network.
const require = createRequire(import.meta.url)
interface Builtins {
  readonly http: typeof Http
  readonly net: typeof Net
}
let builtins: Builtins | undefined
const nodeModules = (): Builtins => builtins ??= { http: require("node:http"), net: require("node:net") }

/** Hosts a command inside the sandbox reaches directly, not through the proxy (its own servers). */
export const NO_PROXY = "localhost,127.0.0.1,::1"

/** The socket's file name in the call's network directory. */
const SOCKET = "proxy.sock"

/**
 * Run by `/bin/sh -c` with `$1` node, `$2` the bridge file, `$3` the socket, then the command and
 * its arguments. The bridge's stdout is the command substitution's pipe, which ends when the
 * bridge has printed its port and let go of it; a bridge that fails prints nothing, and then the
 * command is not run (exit 125).
 */
const WRAPPER = [
  // An empty environment: the command's Node settings (NODE_OPTIONS --require…) are not the bridge's.
  "ready=$(/usr/bin/env -i \"$1\" \"$2\" \"$3\" </dev/null 2>/dev/null 3>&- &)",
  "case \"$ready\" in \"ready \"*) ;; *) echo \"agent-tools: the sandbox's network proxy bridge did not start\" >&2; exit 125 ;; esac",
  "proxy=\"http://127.0.0.1:${ready#ready }\"",
  `export HTTP_PROXY="$proxy" HTTPS_PROXY="$proxy" http_proxy="$proxy" https_proxy="$proxy" NO_PROXY="${NO_PROXY}" no_proxy="${NO_PROXY}"`,
  "shift 3",
  "exec \"$@\""
].join("\n")

export interface Options {
  /** Decides each host; absent: every host is refused. */
  readonly authorize?: Sandbox.Authorize | undefined
  /** Resolves host names (default: the system resolver). */
  readonly resolve?: Resolve | undefined
  /** The Node program the bridge runs with (default: this process's). */
  readonly node?: string | undefined
}

export interface Proxy {
  /**
   * The bwrap arguments: the directory of the socket, read-only. The network namespace the bridge
   * listens in is the sandbox's to make (the call's own, or its session's).
   */
  readonly bwrapArguments: ReadonlyArray<string>
  /** The program to run inside the sandbox instead of `command`: the bridge first, then `command`. */
  readonly wrap: (command: Sandbox.Command) => Sandbox.Command
  /** The unix socket the proxy listens on (outside and inside the sandbox). */
  readonly socket: string
}

/** A DNS name: dot-separated labels of letters, digits, `-` and `_`. */
const HOST_NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/

const normalise = (host: string) => host.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase()

/** `host:port` of a CONNECT request (`[::1]:443` for IPv6). */
const authority = (target: string): { readonly host: string; readonly port: number } | undefined => {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target)
  if (match === null) return undefined
  const port = Number(match[3])
  return port > 0 && port < 65536 ? { host: normalise(match[1] ?? match[2]!), port } : undefined
}

const allowAll: Refusal = () => undefined

/** The reason a connection was refused, for the 403 the command sees. */
const blockedText = (error: Web.BlockedAddressError) => {
  const what = error.host === error.address
    ? `${error.address} is a ${error.kind} address`
    : `${error.host} resolves to ${error.address}, a ${error.kind} address`
  return `${what}. The sandbox's proxy refuses loopback, private and link-local addresses unless a "network" ` +
    `rule in agent-tools.json allows this host by its exact name.`
}

type Outcome =
  | { readonly _tag: "connected"; readonly socket: Net.Socket }
  | { readonly _tag: "refused"; readonly status: number; readonly text: string }

/**
 * The listener behind the socket: every request authorised by host, then connected through the
 * address check. `decide` asks the call's `authorize`; `sockets` holds every open socket (destroyed
 * when the call ends).
 */
const makeServer = (options: {
  readonly decide: (host: string, port: number) => Promise<Sandbox.Access>
  readonly resolve: Resolve
  readonly sockets: Set<Net.Socket>
}) => {
  const { http, net } = nodeModules()
  const track = (socket: Net.Socket) => {
    options.sockets.add(socket)
    socket.once("close", () => options.sockets.delete(socket))
    return socket
  }
  const refused = (status: number, text: string): Outcome => ({ _tag: "refused", status, text: `agent-tools sandbox proxy: ${text}\n` })

  /** Decides `host`, then connects to it with the address check it calls for. */
  const open = async (host: string, port: number): Promise<Outcome> => {
    // Only a DNS name or an IP address reaches a rule: nothing a wildcard could match by accident.
    if (net.isIP(host) === 0 && !HOST_NAME.test(host)) return refused(400, `${JSON.stringify(host)} is not a host name`)
    const access = await options.decide(host, port).catch((e): Sandbox.Access => ({ _tag: "deny", reason: String(e) }))
    if (access._tag === "deny") return refused(403, `${host}:${port} is not allowed: ${access.reason}`)
    const refusal = access.privateAddresses ? allowAll : Web.refusal
    if (net.isIP(host) !== 0) {
      const blocked = refusal(host, host)
      if (blocked !== undefined) return refused(403, blocked instanceof Web.BlockedAddressError ? blockedText(blocked) : blocked.message)
    }
    return new Promise((resolve) => {
      const socket = track(net.connect({ host, port, lookup: guardedLookup(options.resolve, refusal) as never }))
      const onError = (error: Error) => {
        socket.destroy()
        resolve(
          error instanceof Web.BlockedAddressError
            ? refused(403, blockedText(error))
            : refused(502, `cannot connect to ${host}:${port}: ${error.message}`)
        )
      }
      socket.once("error", onError)
      socket.once("connect", () => {
        socket.off("error", onError)
        resolve({ _tag: "connected", socket })
      })
    })
  }

  const server = http.createServer()
  server.on("connection", (socket: Net.Socket) => track(socket))

  // CONNECT host:port: a tunnel, opened once the host is allowed and connected.
  server.on("connect", (request: Http.IncomingMessage, client: Net.Socket, head: Buffer) => {
    client.on("error", () => client.destroy())
    const target = authority(request.url ?? "")
    if (target === undefined) {
      client.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nagent-tools sandbox proxy: CONNECT needs host:port\n`)
      return
    }
    void open(target.host, target.port).then((outcome) => {
      if (outcome._tag === "refused") {
        const reason = outcome.status === 403 ? "Forbidden" : outcome.status === 400 ? "Bad Request" : "Bad Gateway"
        client.end(
          `HTTP/1.1 ${outcome.status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${
            Buffer.byteLength(outcome.text)
          }\r\nConnection: close\r\n\r\n${outcome.text}`
        )
        return
      }
      const upstream = outcome.socket
      // The client may have gone while the host was decided (or the user answered).
      if (client.destroyed) return upstream.destroy()
      upstream.on("error", () => client.destroy())
      client.on("close", () => upstream.destroy())
      upstream.on("close", () => client.destroy())
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
  })

  // GET http://host/path: forwarded to the host over a connection of its own.
  server.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const fail = (status: number, text: string) => {
      if (response.headersSent) return response.destroy()
      response.writeHead(status, { "content-type": "text/plain", connection: "close" }).end(text)
    }
    let url: URL
    try {
      url = new URL(request.url ?? "")
    } catch {
      return fail(400, "agent-tools sandbox proxy: only absolute http:// URLs (and CONNECT) are proxied\n")
    }
    if (url.protocol !== "http:") return fail(400, `agent-tools sandbox proxy: ${url.protocol} is not proxied (use CONNECT)\n`)
    const host = normalise(url.hostname)
    const port = url.port === "" ? 80 : Number(url.port)
    void open(host, port).then((outcome) => {
      if (outcome._tag === "refused") return fail(outcome.status, outcome.text)
      if (response.destroyed) return outcome.socket.destroy()
      const headers = { ...request.headers }
      delete headers["proxy-connection"]
      delete headers["proxy-authorization"]
      const upstream = http.request({
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers,
        // The connection checked above: one per request, closed with it.
        createConnection: () => outcome.socket
      })
      upstream.on("response", (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.statusMessage, reply.headers)
        reply.pipe(response)
      })
      upstream.on("error", (error) => fail(502, `agent-tools sandbox proxy: ${host}:${port}: ${error.message}\n`))
      response.on("close", () => upstream.destroy())
      request.pipe(upstream)
    })
  })
  return server
}

/**
 * Starts the proxy for one call: its directory (the socket and the bridge), the listener, and
 * what to give bwrap. Everything is closed and removed when the scope closes.
 */
export const start = Effect.fn("NetworkProxy.start")(function*(
  options: Options
): Effect.fn.Return<Proxy, Sandbox.SandboxError, Scope.Scope | FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const setup = (cause: { readonly message: string }) =>
    new Sandbox.SandboxError({ reason: "setup", message: `cannot start the network proxy: ${cause.message}`, cause })
  const dir = yield* Effect.acquireRelease(
    fs.makeTempDirectory({ prefix: "agent-tools-net-" }).pipe(Effect.mapError(setup)),
    (dir) => fs.remove(dir, { recursive: true, force: true }).pipe(Effect.ignore)
  )
  const bridge = path.join(dir, Bridge.FILE)
  const socket = path.join(dir, SOCKET)
  yield* fs.writeFileString(bridge, Bridge.SOURCE).pipe(Effect.mapError(setup))
  // Decisions run as fibers of the call: one still waiting for the user when the call ends (its
  // command timed out, or was aborted) is interrupted, so no prompt outlives its call.
  const decisions = yield* FiberSet.make<Sandbox.Access>()
  const runDecision = yield* FiberSet.runtimePromise(decisions)()
  const authorize = options.authorize
  const decide = (host: string, port: number): Promise<Sandbox.Access> =>
    authorize === undefined
      ? Promise.resolve({ _tag: "deny", reason: "no one decides network access for this call" })
      : runDecision(authorize(host, port))
  const sockets = new Set<Net.Socket>()
  const server = makeServer({ decide, resolve: options.resolve ?? systemResolve, sockets })
  yield* Effect.acquireRelease(
    Effect.callback<void, Sandbox.SandboxError>((resume) => {
      server.once("error", (error) => resume(Effect.fail(setup(error))))
      server.listen(socket, () => resume(Effect.void))
    }),
    () =>
      Effect.sync(() => {
        server.close()
        for (const s of sockets) s.destroy()
      })
  )
  return {
    socket,
    bwrapArguments: ["--ro-bind", dir, dir],
    wrap: (command) => ({
      command: "/bin/sh",
      args: ["-c", WRAPPER, "sh", options.node ?? process.execPath, bridge, socket, command.command, ...command.args]
    })
  }
})
