/**
 * Two hosts, one bucket: two `agent-tools` processes in two different workspaces, each with
 * `spill.s3` in its agent-tools.json. A command's output spilled by the first is paged (read) and
 * searched (grep) by the second through its `s3://` reference.
 */
import { execFile, execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { Effect } from "effect"

const BIN = fileURLToPath(new URL("../bin/agent-tools.js", import.meta.url))
// The S3 package's own test server launcher (it resolves s3rver from that package's dependencies).
const S3RVER = fileURLToPath(new URL("../../spill-s3/test/s3rver-process.mjs", import.meta.url))

/** s3rver (from npm) in a child process on a free port of 127.0.0.1, with one bucket; stopped by closing its stdin. */
const launch = async (directory: string, bucket: string) => {
  const child = spawn(process.execPath, [S3RVER, directory, bucket], { stdio: ["pipe", "pipe", "inherit"] })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ""
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString()
      if (out.includes("\n")) resolve((JSON.parse(out.split("\n")[0]!) as { port: number }).port)
    })
    child.once("exit", (code) => reject(new Error(`s3rver exited with ${code}`)))
  })
  const server = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    // s3rver's fixed development credentials.
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.stdin.end()
    await exited
  }
  return { server, stop }
}

let running: Awaited<ReturnType<typeof launch>>
let dir: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spills3-hosts-"))
  mkdirSync(join(dir, "s3"))
  running = await launch(join(dir, "s3"), "spills")
})
afterAll(async () => {
  await running.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** A workspace of its own with the shared bucket configured, trusted by the user (so its spill.s3 applies). */
const host = (name: string) => {
  const root = join(dir, name)
  mkdirSync(root)
  const config = { spill: { s3: { bucket: running.server.bucket, prefix: "shared/", endpoint: running.server.endpoint, forcePathStyle: true } } }
  writeFileSync(join(root, "agent-tools.json"), JSON.stringify(config))
  execFileSync(process.execPath, ["--conditions=agent-tools-source", BIN, "trust", root])
  return root
}

interface Result {
  readonly output: string
  readonly metadata: Record<string, unknown>
}

/** `agent-tools <args>` in `cwd`, credentials from the AWS environment variables; its JSON output. */
const run = <A>(args: ReadonlyArray<string>) =>
  Effect.promise(() =>
    new Promise<A>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        AWS_ACCESS_KEY_ID: running.server.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: running.server.credentials.secretAccessKey,
        AWS_EC2_METADATA_DISABLED: "true"
      }
      delete env.AWS_PROFILE
      execFile(
        process.execPath,
        ["--conditions=agent-tools-source", BIN, ...args],
        { env, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => error === null ? resolve(JSON.parse(stdout) as A) : reject(new Error(`${error.message}\n${stderr}`))
      )
    })
  )

const call = (cwd: string, tool: string, args: unknown) =>
  run<Result>(["call", tool, JSON.stringify(args), "--cwd", cwd, "--json", "--yes"])

it.live("a spill written on one host is paged and searched on another through its s3:// reference", () =>
  Effect.gen(function*() {
    const a = host("host-a")
    const b = host("host-b")
    const produced = yield* call(a, "bash", { command: "seq 1 200000", description: "Print many lines" })
    assert.strictEqual(produced.metadata.truncated, true)
    const ref = produced.metadata.outputPath as string
    assert.match(ref, new RegExp(`^s3://${running.server.bucket}/shared/tool_[0-9a-f]{16}_[0-9A-Za-z]{10}$`))

    const page = yield* call(b, "read", { filePath: ref, offset: 150000, limit: 3 })
    assert.strictEqual(page.output.split("\n").slice(0, 6).join("\n"), [`<path>${ref}</path>`, "<type>file</type>", "<content>", "150000: 150000", "150001: 150001", "150002: 150002"].join("\n"))
    assert.strictEqual(page.metadata.truncated, true)

    const found = yield* call(b, "grep", { pattern: "^19999[0-9]$", path: ref })
    assert.strictEqual(found.output, [`Found 10 matches`, `${ref}:`, ...Array.from({ length: 10 }, (_, i) => `  Line ${199990 + i}: ${199990 + i}`)].join("\n"))

    const listed = yield* run<ReadonlyArray<{ path: string; size: number }>>(["spill", "list", "--cwd", b, "--json"])
    assert.deepStrictEqual(listed.map((e) => [e.path, e.size]), [[ref, 1_288_895]])
  }), 120_000)
