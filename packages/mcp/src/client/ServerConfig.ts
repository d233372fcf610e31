/**
 * One MCP server the client connects to: a local command spoken to over stdio, or a remote
 * streamable HTTP endpoint (the shape of opencode's `mcp` config), with the timeouts and the
 * restart policy that apply to it.
 */

export interface Common {
  /** `false`: configured but never started (default true). */
  readonly enabled?: boolean | undefined
  /**
   * Milliseconds: a number bounds start-up (spawn or connect, the handshake and tools/list);
   * an object sets start-up and each call separately.
   */
  readonly timeout?: number | { readonly startup?: number | undefined; readonly request?: number | undefined } | undefined
}

export interface Local extends Common {
  readonly type: "local"
  /** The program and its arguments. */
  readonly command: ReadonlyArray<string>
  /** Variables added to the environment the server inherits. */
  readonly environment?: Record<string, string> | undefined
  /** The server's working directory (default: the caller's). */
  readonly cwd?: string | undefined
}

export interface Remote extends Common {
  readonly type: "remote"
  /** The streamable HTTP endpoint. */
  readonly url: string
  /** Sent with every request (e.g. Authorization). */
  readonly headers?: Record<string, string> | undefined
}

export type ServerConfig = Local | Remote

/** Start-up bound: spawn or connect, the handshake and the first tools/list. */
export const DEFAULT_STARTUP_MS = 30_000
/** Each call's bound, restarted by every progress notification of the call. */
export const DEFAULT_REQUEST_MS = 300_000

export const startupMs = (config: ServerConfig): number =>
  typeof config.timeout === "number" ? config.timeout : config.timeout?.startup ?? DEFAULT_STARTUP_MS

export const requestMs = (config: ServerConfig): number =>
  typeof config.timeout === "number" ? DEFAULT_REQUEST_MS : config.timeout?.request ?? DEFAULT_REQUEST_MS

/**
 * How a server that failed to start or exited is started again: on the next call or listing once
 * a delay has passed (doubling from `initialDelayMs` up to `maxDelayMs`), and no more once
 * `maxAttempts` failures fall within `windowMs`.
 */
export interface RestartPolicy {
  readonly initialDelayMs: number
  readonly maxDelayMs: number
  readonly maxAttempts: number
  readonly windowMs: number
}

export const DEFAULT_RESTART: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, maxAttempts: 5, windowMs: 300_000 }

/** The delay before restart number `attempt` (1-based). */
export const restartDelay = (policy: RestartPolicy, attempt: number): number =>
  Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1))
