/**
 * Test harness: a temp workspace and the official MCP client talking to `fixtures/server.ts` in a
 * real child process over stdio.
 */
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Effect, FileSystem, Layer, Path } from "effect"
import type { Scope } from "effect"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import {
  type CallToolResult,
  type CreateMessageRequestParams,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequestParams,
  ElicitRequestSchema,
  type ElicitResult
} from "@modelcontextprotocol/sdk/types.js"
import { fileURLToPath } from "node:url"

export const NODE = fileURLToPath(new URL("../../../../node_modules/.bin/node", import.meta.url))
export const SERVER = fileURLToPath(new URL("./fixtures/server.ts", import.meta.url))
/** Node runs the workspace packages from their TypeScript sources (their "agent-tools-source" export condition). */
export const SOURCE = "--conditions=agent-tools-source"

export const NodePlatform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

export interface ServerOptions {
  /** The config's `permission` section. */
  readonly permission?: Record<string, "allow" | "ask" | "deny"> | undefined
  readonly yes?: boolean | undefined
  readonly progressInterval?: string | undefined
}

/** A workspace with a few files under a temp dir (the spill dir is its sibling). */
export const makeWorkspace = Effect.fn("test.makeWorkspace")(function*(files: Record<string, string>) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const base = yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-mcp-" })
  const root = path.join(base, "ws")
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name)
    yield* fs.makeDirectory(path.dirname(file), { recursive: true })
    yield* fs.writeFileString(file, content)
  }
  yield* fs.makeDirectory(root, { recursive: true })
  return yield* fs.realPath(root)
})

export type ElicitHandler = (params: ElicitRequestParams, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>

export type SampleHandler = (
  params: CreateMessageRequestParams
) => CreateMessageResult | CreateMessageResultWithTools | Promise<CreateMessageResult | CreateMessageResultWithTools>

export interface Connection {
  readonly client: Client
  readonly root: string
  /** What the server wrote on stderr so far. */
  readonly stderr: () => string
  /** Waits until stderr contains `text` (another pipe than the protocol: it may lag behind). */
  readonly stderrIncludes: (text: string) => Effect.Effect<void>
  /** Elicitation requests received, oldest first. */
  readonly elicitations: ReadonlyArray<ElicitRequestParams>
  /** Sets how the client answers elicitations (when it declared the capability). */
  readonly onElicit: (handler: ElicitHandler) => void
  /** Sampling requests received, oldest first (a deep copy of each). */
  readonly samplings: ReadonlyArray<CreateMessageRequestParams>
  /** Sets how the client answers sampling requests (when it declared the capability). */
  readonly onSample: (handler: SampleHandler) => void
  readonly call: (name: string, args?: Record<string, unknown>) => Effect.Effect<CallToolResult>
}

const defaultElicit: ElicitHandler = () => ({ action: "decline" })

/** Spawns the server on `root` and connects a client; closed (and the process ended) with the scope. */
export const connect = Effect.fn("test.connect")(function*(options: {
  readonly root: string
  readonly server?: ServerOptions | undefined
  /** Declare form elicitation (default true). */
  readonly elicitation?: boolean | undefined
  /** Declare sampling (`"tools"`: with tools) (default false). */
  readonly sampling?: boolean | "tools" | undefined
}): Effect.fn.Return<Connection, never, Scope.Scope> {
  let stderr = ""
  const elicitations: Array<ElicitRequestParams> = []
  let handler = defaultElicit
  const transport = new StdioClientTransport({
    command: NODE,
    args: [SOURCE, SERVER, options.root],
    env: { AGENT_TOOLS_TEST_OPTIONS: JSON.stringify(options.server ?? {}) },
    stderr: "pipe",
    cwd: options.root
  })
  const waiters: Array<() => void> = []
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
    for (const wake of waiters.splice(0)) wake()
  })
  const elicitation = options.elicitation ?? true
  const sampling = options.sampling ?? false
  const samplings: Array<CreateMessageRequestParams> = []
  let sampler: SampleHandler = () => ({ role: "assistant", model: "none", content: { type: "text", text: "" } })
  const client = new Client(
    { name: "agent-tools-test", version: "0.0.0" },
    {
      capabilities: {
        ...(elicitation ? { elicitation: { form: {} } } : {}),
        ...(sampling === false ? {} : { sampling: sampling === "tools" ? { tools: {} } : {} })
      }
    }
  )
  if (sampling !== false) {
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      samplings.push(structuredClone(request.params))
      return sampler(request.params)
    })
  }
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      elicitations.push(request.params)
      return handler(request.params, extra.signal)
    })
  }
  yield* Effect.acquireRelease(
    Effect.promise(() => client.connect(transport)),
    () => Effect.promise(() => client.close())
  )
  const call = (name: string, args: Record<string, unknown> = {}) =>
    Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)
  return {
    client,
    root: options.root,
    stderr: () => stderr,
    stderrIncludes: (text) =>
      Effect.callback<void>((resume) => {
        const check = () => stderr.includes(text) ? resume(Effect.void) : void waiters.push(check)
        check()
      }),
    elicitations,
    onElicit: (h) => {
      handler = h
    },
    samplings,
    onSample: (h) => {
      sampler = h
    },
    call
  }
})

/** The text of a result's first content block. */
export const text = (result: CallToolResult): string => {
  const first = result.content[0]
  return first?.type === "text" ? first.text : ""
}
