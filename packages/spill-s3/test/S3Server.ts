/**
 * The tests' S3-compatible server: s3rver (from npm; no MinIO server binary ships in an npm or
 * Debian package) in a child process on 127.0.0.1 and a free port, with one bucket, stored in a
 * temp directory. Stopped, and its directory removed, when the scope closes.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, utimesSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, type Scope } from "effect"

export const ACCESS_KEY = "S3RVER"
export const SECRET_KEY = "S3RVER"

export interface Server {
  readonly endpoint: string
  readonly bucket: string
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string }
  /** Sets an object's LastModified `ms` into the past (s3rver takes it from its file's mtime). */
  readonly age: (key: string, ms: number) => void
  /** The pid of the server process (gone after the scope closes). */
  readonly pid: number
}

const started = (child: ChildProcess) =>
  new Promise<number>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const line = out.split("\n")[0]!
      if (out.includes("\n")) resolve((JSON.parse(line) as { port: number }).port)
    })
    child.once("exit", (code) => reject(new Error(`s3rver exited with ${code}`)))
  })

/** Starts the server; `stop` ends its process and removes its directory. */
export const launch = async (bucket = "spills"): Promise<{ readonly server: Server; readonly stop: () => Promise<void> }> => {
  const dir = mkdtempSync(join(tmpdir(), "spills3-s3rver-"))
  const child = spawn(process.execPath, [join(import.meta.dirname, "s3rver-process.mjs"), dir, bucket], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  const port = await started(child)
  const server: Server = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    age: (key, ms) => {
      const when = new Date(Date.now() - ms)
      utimesSync(join(dir, bucket, `${key}._S3rver_object`), when, when)
    },
    pid: child.pid!
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.stdin!.end()
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  return { server, stop }
}

/** The server for the scope. */
export const start = (bucket?: string): Effect.Effect<Server, never, Scope.Scope> =>
  Effect.map(Effect.acquireRelease(Effect.promise(() => launch(bucket)), (s) => Effect.promise(s.stop)), (s) => s.server)
