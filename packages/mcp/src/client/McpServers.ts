/**
 * Configured MCP servers as tool sources of a registry: nothing starts when they are added; a
 * server starts the first time its tools are needed — when the registry lists its tools (each
 * listing loads every source, the enabled servers connecting in parallel, each within its
 * start-up timeout) or when an id with the server's prefix is called or looked up. A server that
 * fails is logged as a warning and its tools are left out; the others serve on.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { Tool } from "@agent-tools/core"
import { ToolNames, ToolRegistry, ToolSource } from "@agent-tools/core"
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import * as McpClient from "../McpClient.ts"
import * as Connection from "./Connection.ts"
import type * as ServerConfig from "./ServerConfig.ts"

export interface Options {
  /** The working directory of local servers without `cwd` (the workspace root). */
  readonly cwd?: string | undefined
  readonly restart?: ServerConfig.RestartPolicy | undefined
}

/** The enabled servers of a config. */
export const enabled = (servers: Record<string, ServerConfig.ServerConfig>): ReadonlyArray<[string, ServerConfig.ServerConfig]> =>
  Object.entries(servers).filter(([, config]) => config.enabled !== false)

/** Each server's tool-id prefix: its name, provider-safe, with a hash when two would collide or it is too long. */
export const prefixes = (names: ReadonlyArray<string>): ReadonlyMap<string, string> => ToolNames.assign(names).toName

/** Ids starting with this may be the server's (kept to the part a shortened id still has). */
export const stemOf = (prefix: string): string => `${prefix}_`.slice(0, ToolNames.MAX_LENGTH - 9).toLowerCase()

/** One tool source per enabled server; the servers are shut down when the scope closes. */
export const sources = Effect.fn("McpServers.sources")(function*(
  servers: Record<string, ServerConfig.ServerConfig>,
  options: Options = {}
): Effect.fn.Return<ReadonlyArray<ToolSource.ToolSource>, never, Scope.Scope> {
  const list = enabled(servers)
  const prefix = prefixes(list.map(([name]) => name))
  const result: Array<ToolSource.ToolSource> = []
  for (const [name, config] of list) {
    const connection = yield* Connection.make(name, config, options)
    const stem = stemOf(prefix.get(name)!)
    // Built again only when the server lists other tools (after a restart).
    let cache: { readonly remotes: ReadonlyArray<McpTool>; readonly built: ReadonlyArray<Tool.Built> } | undefined
    result.push({
      name: `MCP server "${name}"`,
      claims: (id) => id.toLowerCase().startsWith(stem),
      changes: connection.changes,
      tools: connection.tools.pipe(
        Effect.flatMap((remotes) =>
          cache?.remotes === remotes ? Effect.succeed(cache.built) : McpClient.toolsOf(connection, prefix.get(name)!, remotes).pipe(
            Effect.tap((built) =>
              Effect.sync(() => {
                cache = { remotes, built }
              })
            )
          )
        ),
        Effect.mapError((e) => new ToolSource.ToolSourceError({ source: name, message: e.message }))
      )
    })
  }
  return result
})

/** Adds the servers' tool sources to the registry in context, for the life of the scope. */
export const register = Effect.fn("McpServers.register")(function*(
  servers: Record<string, ServerConfig.ServerConfig>,
  options: Options = {}
) {
  const registry = yield* ToolRegistry.ToolRegistry
  for (const source of yield* sources(servers, options)) yield* registry.addSource(source)
})

/** `register` as a layer over a registry: the servers live as long as the layer. */
export const layer = (
  servers: Record<string, ServerConfig.ServerConfig>,
  options: Options = {}
): Layer.Layer<never, never, ToolRegistry.ToolRegistry> => Layer.effectDiscard(register(servers, options))
