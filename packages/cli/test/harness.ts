/**
 * Test harness: temp workspaces with custom tools (the way users extend the CLI), the CLI run
 * in-process with captured stdout/stderr, a scripted terminal, and as a real subprocess.
 */
import { NodeServices } from "@effect/platform-node"
import { Effect, FileSystem, Layer, Path, Sink, Stdio, Stream, Terminal } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { Tool } from "@agent-tools/core"
import { main } from "@agent-tools/cli"
import { WorkspaceTrust } from "@agent-tools/runtime"

const zodUrl = import.meta.resolve("zod")

/** Custom tools (plain-object shape) importing zod by URL, since a temp dir has no node_modules. */
export const TOOLS: Record<string, string> = {
  "echo.js": `import { z } from ${JSON.stringify(zodUrl)}
export default {
  description: "Echo the text back\\nSecond line of the description",
  args: { text: z.string().describe("what to echo"), times: z.number().int().optional() },
  execute: async (args) => ({ title: "echo", output: args.text.repeat(args.times ?? 1), metadata: { length: args.text.length } })
}
`,
  "touch.js": `import { z } from ${JSON.stringify(zodUrl)}
export default {
  description: "Asks to edit a file, then says so",
  args: { file: z.string() },
  execute: async (args, ctx) => {
    await ctx.ask({ permission: "edit", patterns: [args.file], always: [args.file], metadata: { filepath: "/ws/" + args.file, diff: "--- a\\n+++ b\\n-old\\n+new" } })
    return "touched " + args.file
  }
}
`,
  "swallow.js": `import { z } from ${JSON.stringify(zodUrl)}
export default {
  description: "Wraps a permission rejection in its own error",
  args: { file: z.string() },
  execute: async (args, ctx) => {
    try { await ctx.ask({ permission: "edit", patterns: [args.file] }) } catch { throw new Error("could not edit " + args.file) }
    return "ok"
  }
}
`,
  "fail.js": `export default { description: "Always fails", execute: async () => { throw new Error("boom: the tool failed") } }
`,
  "progress.js": `export default {
  description: "Reports progress like bash",
  execute: async (args, ctx) => {
    ctx.metadata({ metadata: { output: "step 1\\n" } })
    await new Promise((r) => setTimeout(r, 5))
    ctx.metadata({ metadata: { output: "step 1\\nstep 2\\n" } })
    await new Promise((r) => setTimeout(r, 5))
    return "finished"
  }
}
`,
  "long.js": `export default {
  description: "Prints 3000 lines",
  execute: async () => Array.from({ length: 3000 }, (_, i) => "line " + (i + 1)).join("\\n")
}
`
}

export interface Workspace {
  readonly dir: string
  readonly spillDir: string
}

/**
 * A temp workspace with the custom tools, `extra` files and a config pointing at both, trusted by
 * the user (the test's own config directory, see vitest.setup.ts) unless `trusted: false`.
 */
export const workspace = (
  options: { readonly config?: Record<string, unknown>; readonly files?: Record<string, string>; readonly trusted?: boolean } = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-cli-" }))
    const spillDir = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-cli-spill-" }))
    const files: Record<string, string> = {
      ...Object.fromEntries(Object.entries(TOOLS).map(([name, text]) => [`.agent/tools/${name}`, text])),
      "agent-tools.json": JSON.stringify({ tools: { directories: [".agent/tools"] }, spill: { dir: spillDir }, ...options.config }),
      ...options.files
    }
    for (const [name, content] of Object.entries(files)) {
      yield* fs.makeDirectory(path.dirname(path.join(dir, name)), { recursive: true })
      yield* fs.writeFileString(path.join(dir, name), content)
    }
    if (options.trusted !== false) yield* WorkspaceTrust.trust(dir).pipe(Effect.orDie)
    return { dir, spillDir } satisfies Workspace
  })

export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  readonly stdin?: string | undefined
  /** Pretend stdin is a terminal. */
  readonly tty?: boolean | undefined
  /** Whether stdout is a terminal (default false: captured like a pipe). */
  readonly stdoutTty?: boolean | undefined
  /** Lines the user types at prompts; when they run out, input ends. */
  readonly answers?: ReadonlyArray<string> | undefined
  /** Tool definitions instead of the built-ins. */
  readonly tools?: ReadonlyArray<Tool.Definition<string, any, any>> | undefined
  /** Extra services around the run (e.g. a BashConfig). */
  readonly layer?: Layer.Layer<never> | undefined
}

const decoder = new TextDecoder()
const capture = (into: Array<string>) =>
  Sink.forEach((chunk: string | Uint8Array) =>
    Effect.sync(() => void into.push(typeof chunk === "string" ? chunk : decoder.decode(chunk)))
  )

/** Runs the CLI in-process (Command.runWith through `main`) on the real Node platform. */
export const run = (args: ReadonlyArray<string>, options: RunOptions = {}) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const answers = [...(options.answers ?? [])]
    const stdio = Layer.succeed(
      Stdio.Stdio,
      Stdio.make({
        args: Effect.succeed(args),
        stdinIsTerminal: Effect.succeed(options.tty ?? false),
        stdoutIsTerminal: Effect.succeed(options.stdoutTty ?? false),
        stdout: () => capture(out),
        stderr: () => capture(err),
        stdin: options.stdin === undefined ? Stream.empty : Stream.make(new TextEncoder().encode(options.stdin))
      })
    )
    const terminal = Layer.succeed(
      Terminal.Terminal,
      Terminal.make({
        columns: Effect.succeed(80),
        rows: Effect.succeed(24),
        size: Effect.die("unused"),
        readInput: Effect.die("unused"),
        readLine: Effect.suspend(() => {
          const next = answers.shift()
          return next === undefined ? Effect.fail(new Terminal.QuitError({})) : Effect.succeed(next)
        }),
        display: () => Effect.void
      })
    )
    const code = yield* main(args, { tools: options.tools }).pipe(
      Effect.provide(Layer.mergeAll(NodeServices.layer, stdio, terminal, options.layer ?? Layer.empty))
    )
    return { code, stdout: out.join(""), stderr: err.join("") } satisfies Run
  })

const root = fileURLToPath(new URL("../../..", import.meta.url))
export const BIN = fileURLToPath(new URL("../bin/agent-tools.js", import.meta.url))
export const NODE = `${root}node_modules/.bin/node`
/** Node runs the workspace packages from their TypeScript sources (their "agent-tools-source" export condition). */
export const SOURCE = "--conditions=agent-tools-source"

/** Runs `agent-tools` as a real process through its JS launcher (stdin is a pipe, never a TTY). */
export const spawnCli = (
  args: ReadonlyArray<string>,
  options: { readonly stdin?: string; readonly cwd?: string; readonly env?: Record<string, string> } = {}
) =>
  Effect.callback<Run>((resume) => {
    const child = spawn(NODE, [SOURCE, BIN, ...args], { cwd: options.cwd ?? root, stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => void (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => void (stderr += d))
    child.on("close", (code) => resume(Effect.succeed({ code: code ?? -1, stdout, stderr })))
    child.stdin.end(options.stdin ?? "")
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

/**
 * Runs `agent-tools mcp` as a real process: sends `messages` (JSON-RPC), keeps stdin open until
 * a reply for every request id arrived, then closes stdin (the MCP way to end a session).
 */
export const spawnMcp = (
  args: ReadonlyArray<string>,
  messages: ReadonlyArray<{ readonly id?: number }>,
  options: { readonly env?: Record<string, string> } = {}
) =>
  Effect.callback<Run>((resume) => {
    const child = spawn(NODE, [SOURCE, BIN, "mcp", ...args], { cwd: root, stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env })
    const waiting = new Set(messages.flatMap((m) => m.id === undefined ? [] : [m.id]))
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d
      for (const line of stdout.split("\n")) {
        try {
          const id = (JSON.parse(line) as { id?: number }).id
          if (id !== undefined) waiting.delete(id)
        } catch {
          // an incomplete last line; the test checks every complete line
        }
      }
      if (waiting.size === 0) child.stdin.end()
    })
    child.stderr.setEncoding("utf8").on("data", (d: string) => void (stderr += d))
    child.on("close", (code) => resume(Effect.succeed({ code: code ?? -1, stdout, stderr })))
    for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`)
    return Effect.sync(() => void child.kill("SIGKILL"))
  })
