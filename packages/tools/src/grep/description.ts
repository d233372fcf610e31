/** What the model reads about grep, and the limits it promises. */
import { MATCH_LIMIT, MAX_LINE_LENGTH } from "../internal/limits.ts"

export const GREP = `Fast content search tool that works with any codebase size.
- Searches file contents using regular expressions (ripgrep's Rust syntax when rg is installed, JavaScript syntax otherwise).
- Supports full regex syntax (eg. "log.*Error", "function\\s+\\w+", etc.); escape literal special characters such as ( [ { . with a backslash.
- Filter files by pattern with the include parameter (eg. "*.js", "*.{ts,tsx}").
- Respects .gitignore and .ignore files; searches hidden files (eg. .github/, .env.example) but never .git.
- Returns matching lines grouped by file, files sorted by modification time (newest first), at most ${MATCH_LIMIT} matches; the output says how many more there are.
- Lines longer than ${MAX_LINE_LENGTH} characters are cut around the match.
- If you need to count all matches or see more context, use the Bash tool with \`rg\` (ripgrep) directly. Do NOT use \`grep\`.
- When you are doing an open-ended search that may require multiple rounds of globbing and grepping, use the Task tool instead.`
