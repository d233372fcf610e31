/**
 * Tool arguments from the command line: a JSON object given inline, or `-` to read it from stdin.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Exit from "./Exit.ts"

const readStdin = Effect.gen(function*() {
  const stdio = yield* Stdio.Stdio
  return yield* stdio.stdin.pipe(
    Stream.decodeText(),
    Stream.mkString,
    Effect.mapError((e) => Exit.usage(`Cannot read the arguments from stdin: ${e.message}`))
  )
})

const describe = (value: unknown) => value === null ? "null" : Array.isArray(value) ? "an array" : typeof value

/** Parses the arguments of a call: `{}` when none are given, stdin for `-`. */
export const parseArguments = Effect.fn("Cli.parseArguments")(function*(input: Option.Option<string>) {
  if (Option.isNone(input)) return {}
  const fromStdin = input.value === "-"
  const text = fromStdin ? yield* readStdin : input.value
  const where = fromStdin ? "on stdin" : "in <json>"
  if (text.trim() === "") return yield* Exit.usage(`Expected the tool arguments as a JSON object ${where}, got nothing.`)
  const value = yield* Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (e) => Exit.usage(`Invalid JSON ${where}: ${e instanceof Error ? e.message : String(e)}`)
  })
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return yield* Exit.usage(`The tool arguments must be a JSON object, got ${describe(value)} ${where}.`)
  }
  return value as Record<string, unknown>
})
