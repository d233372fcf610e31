/**
 * The SDK transport for a server config: a child process over stdio in a process group of its own
 * (`ProcessTransport`; its stderr kept, the last lines quoted when it fails) or streamable HTTP. The SDK modules are imported on first use, so
 * a process that never starts a server never loads them.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { ServerConfig } from "./ServerConfig.ts"

export interface Opened {
  readonly transport: Transport
  /** The end of what the process wrote on stderr (empty for HTTP). */
  readonly stderrTail: () => string
}

/** The most stderr kept for error messages. */
const STDERR_TAIL_BYTES = 2_000

export const open = async (config: ServerConfig, defaultCwd: string | undefined): Promise<Opened> => {
  if (config.type === "remote") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } }
    })
    return { transport, stderrTail: () => "" }
  }
  const { ProcessTransport } = await import("./ProcessTransport.ts")
  const [command, ...args] = config.command
  if (command === undefined) throw new Error("its command is empty")
  const transport = new ProcessTransport({
    command,
    args,
    // The whole environment, as a shell would pass it, plus the configured variables.
    env: { ...(process.env as Record<string, string>), ...config.environment },
    cwd: config.cwd ?? defaultCwd
  })
  let tail = ""
  transport.stderr.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES)
  })
  return { transport, stderrTail: () => tail.trim() }
}
