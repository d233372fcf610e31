/**
 * Commands that never open a network connection, so a call made only of them needs no network
 * proxy. Starting the proxy's bridge inside the sandbox costs a Node start-up per call; `ls`,
 * `grep` or `git status` need none of it. Skipping it never widens anything: such a call still
 * gets its own network namespace, only without the proxy (as under `network: deny`). A program
 * misjudged here would lose its network, not gain any.
 */
import type { Analysis } from "./analysisTypes.ts"

/** Programs that read and write local files and processes only. */
const LOCAL: ReadonlySet<string> = new Set([
  "[", "basename", "cat", "cd", "chmod", "chown", "cmp", "column", "comm", "cp", "cut", "date", "diff", "dirname",
  "du", "echo", "egrep", "env", "expand", "export", "false", "fgrep", "file", "find", "fold", "grep", "head",
  "hexdump", "id", "join", "jq", "kill", "ln", "ls", "md5sum", "mkdir", "mktemp", "mv", "nl", "od", "paste",
  "printf", "ps", "pwd", "readlink", "realpath", "rev", "rg", "rm", "rmdir", "sed", "seq", "set", "sha1sum",
  "sha256sum", "sha512sum", "sleep", "sort", "stat", "tac", "tail", "tee", "test", "touch", "tr", "tree", "true",
  "type", "uname", "uniq", "unset", "wc", "which", "whoami", "xxd", "yes"
])

/** git subcommands that stay in the repository (fetch, pull, push, clone, ls-remote, submodule… do not). */
// Commands that check files out are left out: a smudge filter (git-lfs) may download them.
const LOCAL_GIT: ReadonlySet<string> = new Set([
  "add", "blame", "branch", "commit", "config", "diff", "grep", "init", "log", "ls-files", "merge-base", "mv",
  "reflog", "rev-list", "rev-parse", "rm", "show", "status", "tag"
])

const programOf = (argv: ReadonlyArray<string>): string | undefined => {
  const first = argv[0]
  return first === undefined ? undefined : first.slice(first.lastIndexOf("/") + 1)
}

/** git's subcommand: the first word after the options (`git -C dir status` → `status`). */
const gitSubcommand = (argv: ReadonlyArray<string>): string | undefined => {
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!
    if (word === "-C" || word === "-c" || word === "--git-dir" || word === "--work-tree") i++
    else if (!word.startsWith("-")) return word
  }
  return undefined
}

/** True when every command of a fully analysed call is one of the local programs above. */
export const runsOffline = (analysis: Analysis): boolean =>
  analysis.unsupported.length === 0 && analysis.commands.length > 0 &&
  analysis.commands.every((command) => {
    const program = programOf(command.argv)
    if (program === "git") {
      const sub = gitSubcommand(command.argv)
      return sub !== undefined && LOCAL_GIT.has(sub)
    }
    return program !== undefined && LOCAL.has(program)
  })
