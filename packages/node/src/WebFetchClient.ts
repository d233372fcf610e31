/**
 * webfetch's HTTP client on Node: Node's http/https with agents that check every connection's
 * address before the socket connects.
 *
 * The check runs where the address is chosen: a host name goes through the agent's `lookup`,
 * which resolves it once, refuses it when any of its addresses is private, link-local, loopback
 * or otherwise not public, and hands those same addresses to the socket — so a second DNS answer
 * (DNS rebinding) never gets a say. An IP literal skips `lookup` in Node, so `createConnection`
 * checks it first. Redirects are not followed (Node's client never does).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Web } from "@agent-tools/tools"
import type * as Http from "node:http"
import type * as Https from "node:https"
import type * as Net from "node:net"
import { createRequire } from "node:module"

// CommonJS loads, as @effect/platform-node does: the ESM node:http evaluates its lazy exports (undici).
// Each is loaded when first needed (https brings tls, a few milliseconds of every start otherwise).
const require = createRequire(import.meta.url)
const net = (): typeof Net => require("node:net")
const dns = (): typeof import("node:dns") => require("node:dns")

export interface ResolvedAddress {
  readonly address: string
  /** 4 or 6. */
  readonly family: number
}

/** Resolves a host name to its addresses (default: the system resolver, like any Node connection). */
export type Resolve = (host: string, family: number | undefined) => Promise<ReadonlyArray<ResolvedAddress>>

export interface Options {
  /** Connect to private, link-local and loopback addresses too (default false). */
  readonly allowPrivateNetwork?: boolean | undefined
  readonly resolve?: Resolve | undefined
}

export const systemResolve: Resolve = (host, family) =>
  dns().promises.lookup(host, { all: true, family: family === 4 || family === 6 ? family : 0 })

type LookupCallback = (error: Error | null, address: string | ReadonlyArray<ResolvedAddress>, family?: number) => void

/** The error for connecting `host` at `address`, or undefined when it may connect. */
export type Refusal = (host: string, address: string) => Error | undefined

/**
 * A `lookup` for `net.connect` that refuses a host with any address `refusal` rejects (also used by
 * the sandbox's network proxy, so both judge addresses alike).
 */
export const guardedLookup = (resolve: Resolve, refusal: Refusal) =>
(host: string, options: { readonly family?: number | string; readonly all?: boolean }, callback: LookupCallback) => {
  const family = typeof options.family === "number" ? options.family : undefined
  resolve(host, family).then(
    (addresses) => {
      const first = addresses[0]
      if (first === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" }), "")
      for (const { address } of addresses) {
        const refused = refusal(host, address)
        if (refused !== undefined) return callback(refused, "")
      }
      if (options.all === true) callback(null, addresses)
      else callback(null, first.address, first.family)
    },
    (error: Error) => callback(error, "")
  )
}

type CreateConnection = (options: Record<string, unknown>, callback: (error: Error | null, socket?: unknown) => void) => unknown

/** Puts the resolver and the address check in front of an agent's connections. */
const guard = <A extends Http.Agent>(agent: A, resolve: Resolve, refusal: Refusal): A => {
  const target = agent as unknown as { createConnection: CreateConnection }
  const create = target.createConnection.bind(agent)
  const lookup = guardedLookup(resolve, refusal)
  target.createConnection = (options, callback) => {
    const host = typeof options.host === "string" ? options.host : "localhost"
    if (net().isIP(host) === 0) return create({ ...options, lookup }, callback)
    const refused = refusal(host, host)
    if (refused === undefined) return create(options, callback)
    // The agent takes a missing socket as "wait for the callback"; it turns the error into the request's.
    process.nextTick(() => callback(refused))
    return undefined
  }
  return agent
}

const allowAll: Refusal = () => undefined

/**
 * The HttpAgent service: agents connecting through the guard, each made on its first request (so
 * node:http and node:https load then), closed with the scope.
 */
const agents = (options: Options) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const resolve = options.resolve ?? systemResolve
      const refusal = options.allowPrivateNetwork === true ? allowAll : Web.refusal
      let http: Http.Agent | undefined
      let https: Https.Agent | undefined
      return {
        get http(): Http.Agent {
          return http ??= guard(new (require("node:http") as typeof Http).Agent(), resolve, refusal)
        },
        get https(): Https.Agent {
          return https ??= guard(new (require("node:https") as typeof Https).Agent(), resolve, refusal)
        },
        destroy: () => {
          http?.destroy()
          https?.destroy()
        }
      }
    }),
    (a) => Effect.sync(a.destroy)
  )

/** webfetch's client: Node's http/https, refusing non-public addresses unless `allowPrivateNetwork`. */
export const layer = (options: Options = {}): Layer.Layer<Web.WebFetchClient> =>
  Layer.effect(
    Web.WebFetchClient,
    Effect.flatMap(agents(options), (a) => Effect.provideService(NodeHttpClient.makeNodeHttp, NodeHttpClient.HttpAgent, a))
  )
