/**
 * Exit codes of the contract and how every failure maps to one:
 * 0 success, 1 the tool failed, 2 usage error (bad flags, bad JSON, unknown tool, invalid
 * arguments, bad config or workspace), 3 a permission was rejected or denied.
 * The code is chosen by the error's tag and `reason`, never by its text.
 */
import * as Schema from "effect/Schema"
import type { ToolRegistry } from "@agent-tools/core"

export const OK = 0
export const TOOL_FAILURE = 1
export const USAGE = 2
export const PERMISSION = 3

/** A command's failure, already classified: `message` goes to stderr, `code` is the exit code. */
export class CliFailure extends Schema.TaggedError<CliFailure>()("CliFailure", {
  code: Schema.Number,
  message: Schema.String
}) {}

export const usage = (message: string) => new CliFailure({ code: USAGE, message })

const messageOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return error.message
  }
  return String(error)
}

const tagOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : undefined

/** The exit code for a failure of a command (see the module docs). */
export const codeOf = (error: unknown): number => {
  switch (tagOf(error)) {
    case "CliFailure":
      return (error as CliFailure).code
    case "PermissionRejectedError":
    case "PermissionDeniedError":
      return PERMISSION
    case "ToolUnavailableError":
      // Hidden by a deny rule is a permission outcome; disabled in the config (or not offered
      // here) is a usage error.
      return (error as ToolRegistry.ToolUnavailableError).reason === "denied" ? PERMISSION : USAGE
    case "InvalidArgumentsError":
    case "UnknownToolError":
    case "ConfigError":
    case "WorkspaceRootError":
      return USAGE
    default:
      return TOOL_FAILURE
  }
}

/** Classifies any failure of a command. */
export const classify = (error: unknown): CliFailure =>
  error instanceof CliFailure ? error : new CliFailure({ code: codeOf(error), message: messageOf(error) })
