/** What the model is told about the write tool; every claim here is tested behaviour. */
import { MAX_EDIT_BYTES } from "../internal/limits.ts"
import { megabytes } from "../internal/size.ts"

export const WRITE = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the read tool first to read the file's contents. This tool will fail if you did not read the file, or if it changed since you read it.
- Missing parent directories are created. The file is replaced atomically and keeps its permissions, its encoding and BOM; a CRLF file stays CRLF. A file of any size can be replaced (over ${megabytes(MAX_EDIT_BYTES)} the result counts the changed lines instead of showing the diff).
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.`
