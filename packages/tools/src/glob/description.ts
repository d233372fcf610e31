/** What the model reads about glob, and the limit it promises. */
import { FILE_LIMIT } from "../internal/limits.ts"

export const GLOB = `Fast file pattern matching tool that works with any codebase size.
- Supports glob patterns like "**/*.js" or "src/**/*.ts"; a pattern without "/" (eg. "*.ts") matches at any depth.
- Returns the ${FILE_LIMIT} most recently modified matching files of the whole directory tree, newest first, as absolute paths.
- Respects .gitignore and .ignore files; hidden files and directories (eg. .github/, .env.example) are included, .git never.
- To look inside an ignored directory (eg. node_modules or dist), pass it as the path.
- Use this tool when you need to find files by name patterns.
- When you are doing an open-ended search that may require multiple rounds of globbing and grepping, use the Task tool instead.
- You have the capability to call multiple tools in a single response. It is always better to speculatively perform multiple searches as a batch that are potentially useful.`
