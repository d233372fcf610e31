/**
 * Input written to a job whose program reads code (see kind.ts) is code: it is analysed and asked
 * like a command before it is written. A shell's input is planned exactly as a bash command (so a
 * `bash` deny rule refuses it and `bash: ask` asks); an interpreter's as `<program> -c <input>`,
 * so the analysis of code given to an interpreter decides. Input to other programs is data.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import { type Jobs, type Permission, Tool, type Workspace } from "@agent-tools/core"
import { BashAnalyzer } from "../../bash/analyzer.ts"
import { BashConfig, environment } from "../../bash/config.ts"
import { BashParser } from "../../bash/parser.ts"
import { plan } from "../../bash/permissions.ts"
import { asCommand } from "./kind.ts"

const fail = (tool: string, reason: Tool.ToolErrorReason, message: string, cause?: unknown) =>
  new Tool.ToolError({ tool, reason, message, ...(cause === undefined ? {} : { cause }) })

/** Escape sequences (arrow and function keys) and control characters other than tab and newline. */
// eslint-disable-next-line no-control-regex
const KEYS = /\u001b\[[0-?]*[ -/]*[@-~]|\u001bO.|[\u0000-\u0008\u000b-\u001f\u007f]/g

/** The command `input` counts as, for a job of this kind; undefined when it is data. */
export const inputCommand = (job: Jobs.Job, input: string): string | undefined => {
  if (job.kind === "program") return undefined
  // A terminal's Enter is `\r`: the shell sees the line as one ending in a newline. Keys that are
  // not text (Ctrl-C, arrows) are not code.
  const text = job.tty ? input.replaceAll("\r", "\n").replace(KEYS, "") : input
  if (text.trim() === "") return undefined
  return job.kind === "shell" ? text : asCommand(job.interpreter ?? "sh", text)
}

export type AskInput = (
  job: Jobs.Job,
  input: string,
  ctx: Tool.Context
) => Effect.Effect<void, Tool.ToolError | Permission.PermissionDeniedError | Permission.PermissionRejectedError>

/** Asks for `input` as the job's kind says (nothing for data); fails when refused. Built with the tool. */
export const makeAskInput = (tool: string) =>
  Effect.gen(function*() {
    const config = yield* BashConfig
    const parsers = yield* BashParser
    const analyzer = yield* BashAnalyzer
    const services = yield* Effect.context<Workspace.Workspace | FileSystem.FileSystem | Permission.Permission>()
    const env = yield* environment(config)
    const ask: AskInput = (job, input, ctx) =>
      Effect.gen(function*() {
        const command = inputCommand(job, input)
        if (command === undefined) return
        const analysis = yield* analyzer.analyze(parsers.parser, command, { cwd: job.cwd, home: env.home }).pipe(
          Effect.mapError((e) => fail(tool, e._tag === "BashAnalysisError" ? "too-large" : "unavailable", `input: ${e.message}`, e))
        )
        const planned = yield* plan(analysis, { description: `input to ${job.id}` }).pipe(
          Effect.mapError((e) => fail(tool, "io", e.message, e)),
          Effect.provideContext(services)
        )
        yield* ctx.askAll(planned.requests)
      })
    return ask
  })
