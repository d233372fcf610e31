/**
 * The `bash` tool: `{command, timeout? (ms), workdir?, description}`.
 *
 * analyse (tree-sitter) → ask external_directory / edit / bash (one prompt) → run with hard limits → a
 * preview with the spill path: head+tail (20% head, 80% tail) unless the truncation config says
 * otherwise. The tool truncates its own output (bounded memory while streaming), so it sets
 * `metadata.truncated` and the registry does not truncate again.
 *
 * Options come from `BashConfig` (a Context.Reference with defaults; see config.ts).
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Result from "effect/Result"
import { ChildProcessSpawner } from "effect/process"
import * as z from "zod"
import { Jobs, Permission, ProtectedPaths, Sandbox, Terminal, Tool, Truncate, TrustedProgram, Workspace } from "@agent-tools/core"
import { BashAnalyzer } from "./analyzer.ts"
import { binaryOutputText } from "./binaryOutput.ts"
import { BashConfig, environment, NON_INTERACTIVE_ENV } from "./config.ts"
import { describe } from "./description.ts"
import { directoryOf } from "./explain.ts"
import { makeShellPatch } from "../apply_patch/shellPatch.ts"
import { BashParser } from "./parser.ts"
import { plan } from "./permissions.ts"
import { run, type RunResult } from "./runner.ts"
import { blockedNote, blockedPaths } from "./sandboxBlocked.ts"
import { networkAccess } from "./networkAccess.ts"
import { runsOffline } from "./offline.ts"
import { sandboxPolicy } from "./sandboxPolicy.ts"
import { checkAvailable, startInBackground, toToolError } from "../internal/jobs/start.ts"
import { select, ShellNotFoundError } from "./shell.ts"

/** A terminal job's size when the call gives none. */
const TTY_COLS = 120
const TTY_ROWS = 40

export const parameters = z.lazy(() =>
  z.object({
    command: z.string().refine((command) => command.trim() !== "", "must not be empty").describe("The command to execute"),
    timeout: z.number().int().positive().optional().describe("Optional timeout in milliseconds"),
    workdir: z.string().optional().describe(
      "The working directory to run the command in. Defaults to the workspace root. Use this instead of 'cd' commands."
    ),
    description: z.string().describe(
      "Clear, concise description of what this command does in 5-10 words. Examples:\nInput: ls\nOutput: Lists files in current directory\n\nInput: git status\nOutput: Shows working tree status\n\nInput: npm install\nOutput: Installs package dependencies\n\nInput: mkdir foo\nOutput: Creates directory 'foo'"
    ),
    run_in_background: z.boolean().optional().describe(
      "Run the command as a background job of this session (a server, a watcher, a REPL): returns after its first output with a job id for bash_output and bash_kill"
    ),
    tty: z.boolean().optional().describe("With run_in_background: run the job on a pseudo-terminal (REPLs, prompts, full-screen programs)"),
    cols: z.number().int().min(2).max(1000).optional().describe(`With tty: the terminal's columns (default ${TTY_COLS})`),
    rows: z.number().int().min(2).max(1000).optional().describe(`With tty: the terminal's rows (default ${TTY_ROWS})`)
  }).superRefine((args, check) => {
    if (args.tty === true && args.run_in_background !== true) {
      check.addIssue({ code: "custom", path: ["tty"], message: "tty needs run_in_background: true (a terminal job runs in the background)" })
    }
    for (const key of ["cols", "rows"] as const) {
      if (args[key] !== undefined && args.tty !== true) check.addIssue({ code: "custom", path: [key], message: `${key} needs tty: true` })
    }
  })
)

export type Parameters = z.output<typeof parameters>

const fail = (reason: Tool.ToolErrorReason, message: string, cause?: unknown) =>
  new Tool.ToolError({ tool: "bash", reason, message, ...(cause === undefined ? {} : { cause }) })

/** bash's own truncation preference, below any configuration: the end of a build or test run is where the error is. */
const TRUNCATION: Truncate.Settings = { direction: "head+tail" }

const lastChars = (text: string, n: number) => text.length <= n ? text : `…\n${text.slice(-n)}`

export const BashTool = Tool.define(
  "bash",
  Effect.gen(function*() {
    const config = yield* BashConfig
    const parsers = yield* BashParser
    const analyzer = yield* BashAnalyzer
    const workspace = yield* Workspace.Workspace
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const truncate = yield* Truncate.Truncate
    // Resolved here so the layer's requirements name them; used inside `execute`.
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const permission = yield* Permission.Permission
    const sandbox = yield* Sandbox.Sandbox
    const jobs = yield* Jobs.Jobs
    const terminal = yield* Terminal.Terminal
    const env = yield* environment(config)
    const limits = truncate.limits({ tool: "bash", toolDefaults: TRUNCATION })
    const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner),
        Effect.provideService(Truncate.Truncate, truncate),
        Effect.provideService(Permission.Permission, permission),
        Effect.provideService(Workspace.Workspace, workspace),
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provideService(Path.Path, path),
        Effect.provideService(Jobs.Jobs, jobs)
      )

    /** The working directory, analysis and permission requests of a call. */
    const analysePlan = Effect.fn("BashTool.prepare")(function*(args: Parameters) {
      const cwd = directoryOf(workspace.root, args.workdir)
      if (args.workdir !== undefined) {
        const info = yield* fs.stat(cwd).pipe(Effect.mapError((e) => fail("not-found", `workdir ${args.workdir} does not exist (${cwd})`, e)))
        if (info.type !== "Directory") return yield* fail("invalid", `workdir ${args.workdir} is not a directory (${cwd})`)
      }
      const analysis = yield* analyzer.analyze(parsers.parser, args.command, { cwd, home: env.home }).pipe(
        // Too large or too deep to analyse; else the parser could not be loaded.
        Effect.mapError((e) => fail(e._tag === "BashAnalysisError" ? "too-large" : "unavailable", e.message, e))
      )
      const planned = yield* provide(plan(analysis, { workdir: args.workdir, description: args.description })).pipe(
        Effect.mapError((e) => fail("io", e.message, e))
      )
      return { cwd, planned }
    })
    type Prepared = Effect.Success<ReturnType<typeof analysePlan>>
    /** The state a bash plan hands its run: the analysis, or the plan of the apply_patch call it stands for. */
    type Planned = Prepared | { readonly patch: unknown }

    // `apply_patch <<'EOF' … EOF` (codex's habit) runs as the apply_patch tool, not as a command.
    const shellPatch = yield* makeShellPatch
    const patchOf = (args: Parameters) => shellPatch(args.command, directoryOf(workspace.root, args.workdir))

    // Asked when the tool is built (first listed or called): the description says whether commands are confined.
    const status = yield* sandbox.status
    // The shell runs on the host when nothing confines it: never one the workspace or a sandboxed
    // command could have planted (`node_modules/.bin/bash` on PATH). Checked again before each call.
    const untrusted = [workspace.root, ...(status.sandboxed ? status.writable : [])]
    const trusted = (p: string) => provide(TrustedProgram.check(p, untrusted)).pipe(Effect.result)
    const configuredShell = config.shell === undefined
      ? Effect.void
      : Effect.flatMap(trusted(config.shell), (r) =>
        Result.isFailure(r)
          ? Effect.fail(new ShellNotFoundError({ message: `the configured shell ${r.failure.message}` }))
          : Effect.void)
    const shell = yield* Effect.result(
      Effect.andThen(configuredShell, select(env, (p) => Effect.map(trusted(p), Result.isSuccess), config.shell))
    )
    const checkShell = (file: string) =>
      Effect.flatMap(trusted(file), (r) => Result.isFailure(r) ? fail("denied", `the shell ${r.failure.message}`, r.failure) : Effect.void)
    /** Under `sandbox.mode: required` without a sandbox, nothing is asked and nothing runs. */
    const refused = !status.sandboxed && status.required
      ? fail("unavailable", `sandbox.mode is "required" but no sandbox can run here: ${status.reason}. The command was not run.`)
      : Effect.void

    // The analysis is made once, by the plan, and the run takes it over (a run without a plan makes its own).
    const execute = Effect.fn("BashTool.execute")(function*(args: Parameters, ctx: Tool.Context, state?: Planned | undefined) {
      const patch = patchOf(args)
      if (patch !== undefined) return yield* patch.execute(ctx, state !== undefined && "patch" in state ? state.patch : undefined)
      const given = state !== undefined && "planned" in state ? state : undefined
      if (Result.isFailure(shell)) return yield* fail("unavailable", shell.failure.message, shell.failure)
      yield* refused
      if (sandbox.prepare !== undefined) yield* sandbox.prepare
      yield* checkShell(shell.success.path)
      if (args.run_in_background === true) yield* checkAvailable(jobs, terminal, { tty: args.tty === true })
      const { cwd, planned } = given ?? (yield* analysePlan(args))
      yield* ctx.askAll(planned.requests)
      // After the asks: every outside path of the plan is approved for this call.
      const plannedPolicy = yield* provide(sandboxPolicy(planned, { root: workspace.root, cwd, sessionID: ctx.sessionID }))
      // Hosts reached through the sandbox's proxy are asked for while the command runs; a call of
      // local programs only (`ls`, `grep`, `git status`) gets its own network without the proxy.
      const offline = status.sandboxed && status.network === "proxy" && runsOffline(planned.analysis)
      const policy: Sandbox.Policy = {
        ...plannedPolicy,
        authorize: networkAccess({ permission, ctx }),
        // One loopback per session: a server a job started is reachable from the session's later calls.
        session: ctx.sessionID,
        ...(offline ? { network: "deny" as const } : {}),
        ...(args.tty === true ? { terminal: true } : {})
      }
      const truncation = { ...ctx.truncation, tool: "bash", toolDefaults: TRUNCATION }
      if (args.run_in_background === true) {
        return yield* provide(startInBackground(ctx, {
          command: args.command,
          description: args.description,
          analysis: planned.analysis,
          cwd,
          program: {
            command: shell.success.path,
            args: ["-c", args.command],
            // A terminal job's terminal is an xterm (the emulator that renders its screen is one).
            env: { ...NON_INTERACTIVE_ENV, ...config.env, ...(args.tty === true ? { TERM: "xterm-256color" } : {}) }
          },
          sandbox: { service: sandbox, policy },
          tty: args.tty === true ? { cols: args.cols ?? TTY_COLS, rows: args.rows ?? TTY_ROWS } : undefined,
          truncation,
          previewChars: config.previewChars
        })).pipe(Effect.mapError(toToolError("bash")))
      }

      const requested = args.timeout ?? config.defaultTimeout
      const timeout = Math.min(requested, config.maxTimeout)
      const result = yield* provide(run({
        command: args.command,
        cwd,
        shell: shell.success,
        platform: env.platform,
        env: { ...NON_INTERACTIVE_ENV, ...config.env },
        timeout,
        grace: config.killGrace,
        drain: config.exitDrain,
        abort: ctx.abort,
        truncation,
        preview: {
          chars: config.previewChars,
          interval: config.previewInterval,
          emit: (output) => ctx.metadata({ metadata: { output, description: args.description } })
        },
        sandbox: { service: sandbox, policy }
      })).pipe(
        Effect.catchTags({
          SandboxError: (e) => fail(e.reason === "unavailable" ? "unavailable" : "io", `could not set up the sandbox: ${e.message}`, e),
          SpawnError: (e) => fail("io", `could not start ${shell.success.path}: ${e.message}`, e)
        })
      )

      const notes = notesOf(result, { timeout, requested, max: config.maxTimeout, grace: config.killGrace, drain: config.exitDrain })
      if (result.sandboxed && status.sandboxed) {
        const guarded = provide(ProtectedPaths.resolve(workspace.root))
        const blocked = yield* provide(blockedPaths(result.output.content, { cwd, policy, system: status.readable, protected: guarded }))
        const note = blockedNote(blocked)
        if (note !== null) notes.push(note)
      }
      const binary = binaryOutputText(result.output)
      const body = binary ?? (result.output.content === "" ? "(no output)" : result.output.content)
      const output = notes.length === 0
        ? body
        : `${body.replace(/\n$/, "")}\n\n<bash_metadata>\n${notes.join("\n")}\n</bash_metadata>`
      const metadata: Tool.Metadata = {
        output: binary ?? lastChars(result.output.content, config.previewChars),
        exit: result.exitCode,
        signal: result.signal,
        reason: result.reason,
        description: args.description,
        cwd,
        shell: shell.success.name,
        timeout,
        durationMs: result.durationMs,
        truncated: result.output.truncated,
        sandboxed: result.sandboxed
      }
      if (!result.sandboxed) metadata.sandboxReason = status.sandboxed ? "the sandbox did not wrap this command" : status.reason
      if (requested > config.maxTimeout) metadata.requestedTimeout = requested
      if (result.output.outputPath !== undefined) metadata.outputPath = result.output.outputPath
      if (result.output.spillError !== undefined) metadata.spillError = result.output.spillError
      if (result.background) metadata.background = true
      return { title: args.description, output, metadata }
    })

    return {
      description: describe({
        directory: workspace.root,
        shell: Result.isSuccess(shell) ? shell.success.name : "bash",
        defaultTimeout: config.defaultTimeout,
        maxTimeout: config.maxTimeout,
        maxLines: limits.maxLines,
        maxBytes: limits.maxBytes,
        sandbox: status.sandboxed ? { network: status.network } : undefined
      }),
      parameters,
      execute,
      plan: (args: Parameters, ctx: Tool.Context): Effect.Effect<Tool.Plan<Planned>, Tool.ExecuteError> => {
        const patch = patchOf(args)
        if (patch !== undefined) return Effect.map(patch.plan(ctx), (p) => ({ requests: p.requests, state: { patch: p.state } }))
        return Effect.andThen(refused, Effect.map(analysePlan(args), (prepared) => ({ requests: prepared.planned.requests, state: prepared })))
      },
      truncation: TRUNCATION,
      annotations: { destructive: true },
      // An abort kills the command and returns what it printed before: the model should see that.
      ownAbort: true
    }
  })
)

interface NoteOptions {
  readonly timeout: number
  readonly requested: number
  readonly max: number
  readonly grace: number
  readonly drain: number
}

/** What the model must know besides the output: why it ended, and what was cut. */
const notesOf = (r: RunResult, o: NoteOptions): Array<string> => {
  const notes: Array<string> = []
  const escapedNote = "a process that left the process group (setsid, a daemon) still held the output when the call returned and may still be running"
  const ended = r.sandboxed
    ? "every process it started was ended with it (the sandbox's process namespace)"
    : r.escaped
    ? `its process group was terminated (SIGTERM, then SIGKILL after ${o.grace} ms), but ${escapedNote}`
    : `its process tree was terminated (SIGTERM, then SIGKILL after ${o.grace} ms)`
  if (r.reason === "timeout") {
    notes.push(
      `Command timed out after ${o.timeout} ms: ${ended}. The output above is what it printed before that. If it needs longer and does not wait for input, retry with a larger timeout (max ${o.max} ms); a server or a watcher that runs until stopped belongs in the background (run_in_background: true, then bash_output).`
    )
  }
  if (o.requested > o.max) notes.push(`The requested timeout of ${o.requested} ms exceeds the maximum; ${o.max} ms was used.`)
  if (r.reason === "aborted") notes.push(`Command aborted by the user: ${ended}. The output above is what it printed before that.`)
  if (r.reason === "exit" && r.exitCode !== null && r.exitCode !== 0) notes.push(`Exit code ${r.exitCode}.`)
  if (r.reason === "exit" && r.signal !== null) notes.push(`The shell was terminated by ${r.signal}.`)
  if (r.background) {
    notes.push(
      r.escaped
        ? `Background processes still held the output ${o.drain} ms after the command finished; the command's process group was killed, but ${escapedNote}.`
        : `Background processes still held the output ${o.drain} ms after the command finished; they were terminated.`
    )
  }
  if (r.readError !== undefined) notes.push(`Reading the output failed part way: ${r.readError}`)
  return notes
}
