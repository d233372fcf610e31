import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { readFile } from "node:fs/promises"

export interface Route {
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
  readonly handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>
}

const DEFAULT_PORT    = 8080
const MAX_BODY_BYTES  = 1024 * 1024
const REQUEST_TIMEOUT = 30_000

export class Router {
  private readonly routes: Array<Route> = []

  add(route: Route): this {
    this.routes.push(route)
    return this
  }

  find(method: string, path: string): Route | undefined {
    return this.routes.find((r) => r.method === method && r.path === path)
  }

  async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = this.find(req.method ?? "GET", req.url ?? "/")
    if (route === undefined) {
      res.statusCode = 404
      res.end("not found")
      return
    }
    try {
      await route.handler(req, res)
    } catch (error) {
      console.error("handler failed", error)
      res.statusCode = 500
      res.end("internal error")
    }
  }
}

export function failWith(res: ServerResponse, error: unknown) {
  console.error("request failed", error)
  res.statusCode = 500
  res.end("internal error")
}

export const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) {
      throw new Error("body too large")
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString("utf8")
}

export const jsonRoute = (path: string, load: () => Promise<unknown>): Route => ({
  method: "GET",
  path,
  handler: async (_req, res) => {
    const value = await load()
    res.setHeader("content-type", "application/json")   
    res.end(JSON.stringify(value))
  }
})

export const fileRoute = (path: string, file: string): Route => ({
  method: "GET",
  path,
  handler: async (_req, res) => {
    const text = await readFile(file, "utf8")
    res.setHeader("content-type", "text/plain")   
    res.end(text)
  }
})

export function start(router: Router, port = DEFAULT_PORT) {
  const server = createServer((req, res) => {
    req.setTimeout(REQUEST_TIMEOUT)
    void router.dispatch(req, res)
  })
  server.listen(port, () => {
    console.log(`listening on ${port}`)
  })
  return server
}

export function stop(server: ReturnType<typeof createServer>) {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => {
      if (error) reject(error)
      else resolve()
    })
  })
}

export class Metrics {
  private requests = 0
  private failures = 0

  record(ok: boolean): void {
    this.requests++
    if (!ok) {
      this.failures++
    }
  }

  snapshot(): { requests: number; failures: number; rate: number } {
    const rate = this.requests === 0 ? 0 : this.failures / this.requests
    return { requests: this.requests, failures: this.failures, rate }
  }

  reset(): void {
    this.requests = 0
    this.failures = 0
  }
}
