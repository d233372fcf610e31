/**
 * The bounds of the bash analysis: the largest command and the deepest nesting it follows, and the
 * error for a command past either (a tool error, never a crash).
 */
import * as Schema from "effect/Schema"

/**
 * The longest command analysed, in UTF-8 bytes: 128 KiB, the most Linux passes to a program as one
 * argument (MAX_ARG_STRLEN), so a longer `bash -c COMMAND` could not start anyway.
 */
export const MAX_COMMAND_BYTES = 128 * 1024

/** Syntax levels (substitutions, subshells, quotes, wrappers) the analysis descends before it stops. */
export const MAX_NESTING = 500

/** The command is too large or too deeply nested to analyse: a tool error, never a crash. */
export class BashAnalysisError extends Schema.TaggedError<BashAnalysisError>()("BashAnalysisError", {
  message: Schema.String
}) {}

export const nestingError = () =>
  new BashAnalysisError({
    message: `The command nests more than ${MAX_NESTING} levels deep (substitutions, subshells, quotes, wrappers), more than the analysis follows. Simplify it, or write it to a script file and run that file.`
  })

/** UTF-8 length of a string, without encoding it. */
const utf8Bytes = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** The error for a command over `MAX_COMMAND_BYTES`; undefined when it is within the limit. */
export const sizeError = (source: string): BashAnalysisError | undefined => {
  const bytes = source.length > MAX_COMMAND_BYTES / 4 ? utf8Bytes(source) : 0
  return bytes <= MAX_COMMAND_BYTES ? undefined : new BashAnalysisError({
    message: `The command is ${bytes} bytes; a command may be at most ${MAX_COMMAND_BYTES} bytes (${MAX_COMMAND_BYTES / 1024} KiB), the most a shell accepts as one argument. Write longer scripts to a file and run that file.`
  })
}
