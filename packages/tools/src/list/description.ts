/** What the model reads about list, and the limit it promises. */
import { LIST_LIMIT } from "../internal/limits.ts"

export const LIST = `Lists files and directories under a given path as a tree. The path may be absolute or relative to the workspace root; omit it to list the workspace root.
- Skips common build, dependency and cache directories (node_modules, .git, dist, build, target, vendor, __pycache__, .venv, ...) and files ignored by .gitignore; you can add glob patterns to ignore with the ignore parameter.
- Shows at most ${LIST_LIMIT} files, shallowest first, and says how many more there are.
- You should generally prefer the Glob and Grep tools, if you know which directories to search.`
