/**
 * Test harness for the MCP client: the upstream server of `fixtures/upstream.ts` (over stdio, or
 * over streamable HTTP in a child process the test starts and stops), `agent-tools mcp` itself as
 * an upstream, and the node layer configured with them.
 */
import { Effect, FileSystem, Path, Schedule } from "effect"
import { NodeAgentTools } from "@agent-tools/runtime"
import type { AgentConfig } from "@agent-tools/runtime"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { NODE, SOURCE } from "./harness.ts"

export const UPSTREAM = fileURLToPath(new URL("./fixtures/upstream.ts", import.meta.url))
export const CLI = fileURLToPath(new URL("../../bin/agent-tools.js", import.meta.url))

/** The upstream over stdio; it logs its starts and cancelled calls to `log`. */
export const stdioServer = (log: string) => ({
  type: "local" as const,
  command: [NODE, SOURCE, UPSTREAM, "stdio"],
  environment: { UPSTREAM_LOG: log }
})

/** A workspace, a spill directory and the upstream's log file, under one temp dir. */
export const makeDirs = Effect.fn("test.makeDirs")(function*(files: Record<string, string> = {}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const base = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-mcpclient-" }))
  const root = path.join(base, "ws")
  yield* fs.makeDirectory(root)
  for (const [name, content] of Object.entries(files)) yield* fs.writeFileString(path.join(root, name), content)
  return { root, spill: path.join(base, "spill"), log: path.join(base, "upstream.log") }
})

/** The upstream's log lines so far. */
export const logLines = (log: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.readFileString(log).pipe(
      Effect.map((text) => text.split("\n").filter((l) => l !== "")),
      Effect.orElseSucceed(() => [] as Array<string>)
    ))

/** Waits (up to ~10 s) until the log has a line equal to `line`. */
export const awaitLog = (log: string, line: string) =>
  logLines(log).pipe(
    Effect.flatMap((lines) => lines.includes(line) ? Effect.void : Effect.fail(`no "${line}" in ${log}`)),
    Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 200 }),
    Effect.orDie
  )

/** The node layer on `root` with `mcp` servers, everything allowed unless `permission` says otherwise. */
export const stack = (
  dirs: { readonly root: string; readonly spill: string },
  mcp: NonNullable<AgentConfig.Input["mcp"]>,
  permission: Record<string, "allow" | "ask" | "deny"> = {}
) =>
  NodeAgentTools.layer({
    cwd: dirs.root,
    config: { mcp, permission: { "*": "allow", ...permission }, spill: { dir: dirs.spill } },
    unattended: "reject",
    analysisWorker: false
  })

/** The upstream over streamable HTTP in a child process, stopped with the scope; its endpoint URL. */
export const httpServer = Effect.fn("test.httpServer")(function*(log: string) {
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(NODE, [SOURCE, UPSTREAM, "http"], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, UPSTREAM_LOG: log } })
    ),
    (child) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )
  const port = yield* Effect.callback<string>((resume) => {
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening (\d+)/.exec(out)
      if (match !== null) resume(Effect.succeed(match[1]!))
    })
  })
  return `http://127.0.0.1:${port}/mcp`
})

