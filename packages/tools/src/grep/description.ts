/** What the model reads about grep, glob and list, and the limits those texts promise. */

export const MATCH_LIMIT = 100
export const FILE_LIMIT = 100
export const LIST_LIMIT = 100
export const MAX_LINE_LENGTH = 2000

export const GREP = `Fast content search tool that works with any codebase size.
- Searches file contents using regular expressions (ripgrep's Rust syntax when rg is installed, JavaScript syntax otherwise).
- Supports full regex syntax (eg. "log.*Error", "function\\s+\\w+", etc.); escape literal special characters such as ( [ { . with a backslash.
- Filter files by pattern with the include parameter (eg. "*.js", "*.{ts,tsx}").
- Respects .gitignore and .ignore files; searches hidden files (eg. .github/, .env.example) but never .git.
- Returns matching lines grouped by file, files sorted by modification time (newest first), at most ${MATCH_LIMIT} matches; the output says how many more there are.
- Lines longer than ${MAX_LINE_LENGTH} characters are cut around the match.
- If you need to count all matches or see more context, use the Bash tool with \`rg\` (ripgrep) directly. Do NOT use \`grep\`.
- When you are doing an open-ended search that may require multiple rounds of globbing and grepping, use the Task tool instead.`

export const GLOB = `Fast file pattern matching tool that works with any codebase size.
- Supports glob patterns like "**/*.js" or "src/**/*.ts"; a pattern without "/" (eg. "*.ts") matches at any depth.
- Returns the ${FILE_LIMIT} most recently modified matching files of the whole directory tree, newest first, as absolute paths.
- Respects .gitignore and .ignore files; hidden files and directories (eg. .github/, .env.example) are included, .git never.
- To look inside an ignored directory (eg. node_modules or dist), pass it as the path.
- Use this tool when you need to find files by name patterns.
- When you are doing an open-ended search that may require multiple rounds of globbing and grepping, use the Task tool instead.
- You have the capability to call multiple tools in a single response. It is always better to speculatively perform multiple searches as a batch that are potentially useful.`

export const LIST = `Lists files and directories under a given path as a tree. The path may be absolute or relative to the workspace root; omit it to list the workspace root.
- Skips common build, dependency and cache directories (node_modules, .git, dist, build, target, vendor, __pycache__, .venv, ...) and files ignored by .gitignore; you can add glob patterns to ignore with the ignore parameter.
- Shows at most ${LIST_LIMIT} files, shallowest first, and says how many more there are.
- You should generally prefer the Glob and Grep tools, if you know which directories to search.`

/** Directory (trailing "/") and file names the list tool leaves out, as opencode's ls does. */
export const LIST_IGNORES = [
  "node_modules/", "__pycache__/", ".git/", "dist/", "build/", "target/", "vendor/", "bin/", "obj/", ".idea/", ".vscode/",
  ".zig-cache/", "zig-out", ".coverage", "coverage/", "tmp/", "temp/", ".cache/", "cache/", "logs/", ".venv/", "venv/", "env/"
]
