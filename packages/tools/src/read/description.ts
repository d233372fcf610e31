/**
 * What the model is told about the file tools. Every claim here is tested behaviour (opencode's
 * texts promised things the code did not do).
 */
import { MAX_EDIT_BYTES } from "../internal/file/files.ts"

export const READ_LIMIT = 2000
export const MAX_LINE_LENGTH = 2000
export const MAX_READ_BYTES = 50 * 1024

const editLimit = `${MAX_EDIT_BYTES / 1024 / 1024} MB`

export const READ = `Read a file or directory from the local filesystem. If the path does not exist, an error is returned with up to 3 similar names.

Usage:
- filePath may be absolute or relative to the workspace root.
- By default, this tool returns up to ${READ_LIMIT} lines from the start of the file. The offset parameter is the line number to start from (1-indexed); limit is the number of lines.
- Output is capped at ${MAX_READ_BYTES / 1024} KB (less when the configured output limits are lower); the footer says which offset to continue from.
- Contents are returned with each line prefixed by its line number as \`<line>: <content>\`. For example, if a file has contents "foo\\n", you will receive "1: foo". For directories, entries are returned one per line (without line numbers) with a trailing \`/\` for subdirectories.
- Any line longer than ${MAX_LINE_LENGTH} characters is truncated.
- Avoid tiny repeated slices (30 line chunks). If you need more context, read a larger window.
- Images (PNG, JPEG, GIF, WebP) and PDFs are returned as file attachments. Other binary files are refused.
- Files that are not valid UTF-8 are shown byte for byte as ISO-8859-1; edits keep their encoding.
- Reading a file is required before it can be overwritten with write, or changed with edit, multiedit.`

export const WRITE = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the read tool first to read the file's contents. This tool will fail if you did not read the file, or if it changed since you read it.
- Missing parent directories are created. The file is replaced atomically and keeps its permissions, its encoding and BOM; a CRLF file stays CRLF. A file of any size can be replaced (over ${editLimit} the result counts the changed lines instead of showing the diff).
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.`

export const EDIT = `Performs exact string replacements in files.

Usage:
- You must use the read tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file, or if the file changed since you read it in or next to the lines you edit (a change elsewhere is kept, and the result says the edit was re-based over it).
- When editing text from read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: line number + colon + space (e.g., \`1: \`). Everything after that space is the actual file content to match. Never include any part of the line number prefix in the oldString or newString.
- If oldString is not found exactly, whitespace, indentation and typographic quote (“ ” ‘ ’) differences are tolerated when they identify one place unambiguously; the result says which matching strategy was used and which lines were changed. Lines your edit does not change keep the file's exact text.
- The edit will FAIL if oldString matches more than one place; the error lists their line numbers. Either provide a larger string with more surrounding context to make it unique or use \`replaceAll\` to change every instance of oldString.
- newString is written literally: write out every line it should contain. A placeholder such as \`// ... existing code ...\` or a bare \`...\` line in place of lines oldString has is refused, since it would delete them.
- Use \`replaceAll\` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- An empty oldString creates a new file with newString as its content; it fails on an existing file (use write for a full replacement).
- Line endings, BOM and encoding of the file are kept. Files over ${editLimit} cannot be edited.`

export const MULTIEDIT = `Makes several edits to one file in one operation. Prefer it over several edit calls on the same file.

Usage:
- Same rules as the edit tool for every edit: read the file first; each oldString must identify one place (or set replaceAll).
- Edits are applied in order, each on the result of the previous ones: plan them so an earlier edit does not change the text a later one looks for.
- All or nothing: if any edit fails, the error names which one and the file is not changed at all.
- To create a new file, give the first edit an empty oldString and the file content as newString.`
