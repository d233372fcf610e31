/**
 * The client side of an MCP server over stdio, as the SDK's `StdioClientTransport`, except that the
 * server runs in a process group of its own and closing ends the whole group. Servers are often
 * started through a wrapper (`npx`, `uvx`, `sh -c`) whose children would outlive a kill of the
 * wrapper alone. Closing ends stdin first, as the SDK does, then signals the group SIGTERM and, after
 * a grace, SIGKILL. When the server exits on its own, what it left behind in its group is ended too.
 * Elsewhere than POSIX there are no process groups: the direct child alone is signalled.
 * Messages are delivered in order, each in a microtask of its own, so a progress notification
 * reaches its handler before the response that follows it in the same chunk.
 */
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { PassThrough } from "node:stream"

export interface Options {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
  readonly cwd?: string | undefined
}

/** How long closing waits for the server after ending its stdin, and again after SIGTERM. */
const GRACE_MS = 2_000

const groups = process.platform !== "win32"

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

export class ProcessTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined

  /** What the server writes on stderr. */
  readonly stderr = new PassThrough()
  private child: ChildProcess | undefined
  private readonly buffer = new ReadBuffer()
  private delivery: Promise<void> = Promise.resolve()
  private readonly options: Options

  constructor(options: Options) {
    this.options = options
  }

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("ProcessTransport already started"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: this.options.env,
        cwd: this.options.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: groups,
        windowsHide: true
      })
      this.child = child
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => resolve())
      child.on("close", () => {
        this.signal(child, "SIGTERM")
        if (this.child === child) this.child = undefined
        this.onclose?.()
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk)
        for (;;) {
          let message: JSONRPCMessage | null
          try {
            message = this.buffer.readMessage()
          } catch (error) {
            this.onerror?.(error instanceof Error ? error : new Error(String(error)))
            continue
          }
          if (message === null) break
          // The SDK handles a notification a microtask after it arrives but a response at once, so
          // a progress notification followed by its response in one chunk would lose its handler:
          // each message gets a microtask of its own, in order.
          const delivered = message
          this.delivery = this.delivery.then(() => this.onmessage?.(delivered))
        }
      })
      child.stdout?.on("error", (error) => this.onerror?.(error))
      child.stderr?.pipe(this.stderr)
    })
  }

  /** Signals the server's process group (its process alone where there are no groups). */
  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    if (child.pid === undefined) return
    try {
      if (groups) process.kill(-child.pid, signal)
      else child.kill(signal)
    } catch {
      // The group is gone already.
    }
  }

  /** Whether a process of the server's group is still alive. */
  private alive(child: ChildProcess): boolean {
    if (child.pid === undefined) return false
    if (!groups) return child.exitCode === null && child.signalCode === null
    try {
      process.kill(-child.pid, 0)
      return true
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    const child = this.child
    this.child = undefined
    if (child !== undefined) {
      const closed = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve()
        else child.once("close", () => resolve())
      })
      try {
        child.stdin?.end()
      } catch {
        // Already closed.
      }
      await Promise.race([closed, wait(GRACE_MS)])
      if (this.alive(child)) {
        this.signal(child, "SIGTERM")
        for (let waited = 0; waited < GRACE_MS && this.alive(child); waited += 50) await wait(50)
      }
      if (this.alive(child)) this.signal(child, "SIGKILL")
    }
    this.buffer.clear()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin
      if (stdin == null) return reject(new Error("Not connected"))
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once("drain", () => resolve())
    })
  }
}
