/**
 * What the model is told about the read tool. Every claim here is tested behaviour (opencode's
 * texts promised things the code did not do).
 */
import { MAX_LINE_LENGTH, MAX_READ_BYTES, READ_LIMIT } from "../internal/limits.ts"
import { kilobytes } from "../internal/size.ts"

export const READ = `Read a file or directory from the local filesystem. If the path does not exist, an error is returned with up to 3 similar names.

Usage:
- filePath may be absolute or relative to the workspace root.
- By default, this tool returns up to ${READ_LIMIT} lines from the start of the file. The offset parameter is the line number to start from (1-indexed); limit is the number of lines.
- Output is capped at ${kilobytes(MAX_READ_BYTES)} (less when the configured output limits are lower); the footer says which offset to continue from.
- Contents are returned with each line prefixed by its line number as \`<line>: <content>\`. For example, if a file has contents "foo\\n", you will receive "1: foo". For directories, entries are returned one per line (without line numbers) with a trailing \`/\` for subdirectories.
- Any line longer than ${MAX_LINE_LENGTH} characters is truncated.
- Avoid tiny repeated slices (30 line chunks). If you need more context, read a larger window.
- Images (PNG, JPEG, GIF, WebP) and PDFs are returned as file attachments. Other binary files are refused.
- Files that are not valid UTF-8 are shown byte for byte as ISO-8859-1; edits keep their encoding.
- Reading a file is required before it can be overwritten with write, or changed with edit, multiedit.`
