/** What the model is told about the edit tool; every claim here is tested behaviour. */
import { MAX_EDIT_BYTES } from "../internal/limits.ts"
import { megabytes } from "../internal/size.ts"

export const EDIT = `Performs exact string replacements in files.

Usage:
- You must use the read tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file, or if the file changed since you read it in or next to the lines you edit (a change elsewhere is kept, and the result says the edit was re-based over it).
- When editing text from read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: line number + colon + space (e.g., \`1: \`). Everything after that space is the actual file content to match. Never include any part of the line number prefix in the oldString or newString.
- If oldString is not found exactly, whitespace, indentation and typographic quote (“ ” ‘ ’) differences are tolerated when they identify one place unambiguously; the result says which matching strategy was used and which lines were changed. Lines your edit does not change keep the file's exact text.
- The edit will FAIL if oldString matches more than one place; the error lists their line numbers. Either provide a larger string with more surrounding context to make it unique or use \`replaceAll\` to change every instance of oldString.
- newString is written literally: write out every line it should contain. A placeholder such as \`// ... existing code ...\` or a bare \`...\` line in place of lines oldString has is refused, since it would delete them.
- Use \`replaceAll\` for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- An empty oldString creates a new file with newString as its content; it fails on an existing file (use write for a full replacement).
- Line endings, BOM and encoding of the file are kept. Files over ${megabytes(MAX_EDIT_BYTES)} cannot be edited.`
