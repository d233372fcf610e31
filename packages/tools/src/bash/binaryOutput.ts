/**
 * Binary output (`head -c 3000 /dev/urandom`, `cat image.png`) decodes to thousands of replacement
 * characters that tell the model nothing and cost it context. `Truncate` keeps such output's bytes
 * in the spill however small it is; the result shows what it was instead: its size, a guess at its
 * type from the leading magic bytes, and where the bytes are.
 */
import { Truncate } from "@agent-tools/core"

// Magic bytes as they read after UTF-8 decoding: a byte that is not UTF-8 became U+FFFD.
const MAGIC: ReadonlyArray<readonly [prefix: string, type: string]> = [
  ["\uFFFDPNG\r\n\x1a\n", "PNG image"],
  ["GIF87a", "GIF image"],
  ["GIF89a", "GIF image"],
  ["%PDF-", "PDF document"],
  ["\x1f\uFFFD\x08", "gzip compressed data"],
  ["BZh", "bzip2 compressed data"],
  ["\uFFFD7zXZ\0", "xz compressed data"],
  ["PK\x03\x04", "Zip archive"],
  ["\x7fELF", "ELF executable"],
  ["\0asm", "WebAssembly module"],
  ["SQLite format 3\0", "SQLite database"]
]

/** A guess at what binary data is, from its first bytes (decoded). */
export const binaryType = (start: string): string =>
  MAGIC.find(([prefix]) => start.startsWith(prefix))?.[1] ?? "binary data"

/**
 * What the model reads instead of binary output, or undefined for text. A truncated preview opens
 * with its one-line marker: the data starts after it.
 */
export const binaryOutputText = (output: Truncate.Result): string | undefined => {
  if (!Truncate.looksBinary(output.content)) return undefined
  const start = output.truncated ? output.content.slice(output.content.indexOf("\n") + 1) : output.content
  const what = `(binary output: ${output.totalBytes} bytes, ${binaryType(start)}; not shown as text.`
  return output.outputPath !== undefined
    ? `${what} The bytes are saved in ${output.outputPath}: inspect them with a command such as \`file\`, \`xxd\` or \`od -c\`, or redirect the command's output to a file.)`
    : `${what} Redirect the command's output to a file to keep it, and inspect it with a command such as \`file\`, \`xxd\` or \`od -c\`.)`
}
