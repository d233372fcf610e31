/** The text the model sees for the bash tool (opencode's bash.txt, shortened; values filled in). */
import type { Sandbox } from "@agent-tools/core"
import { MAX_COMMAND_BYTES } from "./analysis.ts"
export interface DescriptionValues {
  readonly directory: string
  readonly shell: string
  readonly defaultTimeout: number
  readonly maxTimeout: number
  readonly maxLines: number
  readonly maxBytes: number
  /** The sandbox commands run in, when there is one. */
  readonly sandbox?: { readonly network: Sandbox.Network } | undefined
}

const sandboxNote = (sandbox: DescriptionValues["sandbox"]) =>
  sandbox === undefined ? "" : `
- Commands run in a sandbox: the workspace and a private temp directory are writable, system directories are read-only, and other paths outside the workspace are not visible unless approved for the call (name such a path in the command so that access is asked for).${
    sandbox.network === "deny"
      ? " There is no network access."
      : sandbox.network === "proxy"
      ? " Network access is HTTP(S) only, through a proxy set in HTTP_PROXY/HTTPS_PROXY (tools that ignore those variables cannot connect); each new host is checked against the permission rules and may need the user's approval (a refused host answers 403 with the reason), and the machine's loopback, private and link-local addresses are not reachable."
      : ""
  }`

export const describe = (v: DescriptionValues): string =>
  `Executes a command in a ${v.shell} shell, with an optional timeout, and returns its output (stdout and stderr interleaved).

All commands run in ${v.directory} by default. Use the \`workdir\` parameter to run a command in another directory; AVOID \`cd <directory> && <command>\`.

Before running, every command the line can run (each part of a chain, pipeline, substitution or wrapper such as sudo, env, timeout or bash -c) is checked against the permission rules, and so is every path it touches: files outside the workspace and files the command writes may need the user's approval.

Usage notes:
- The command argument is required. Quote paths that contain spaces: cd "path with spaces/file.txt".
- A command may be at most ${MAX_COMMAND_BYTES} bytes (${MAX_COMMAND_BYTES / 1024} KiB); write a longer script to a file and run that file.
- You can specify an optional timeout in milliseconds (up to ${v.maxTimeout}ms). If not specified, commands time out after ${v.defaultTimeout}ms. On timeout the whole process tree is terminated and the output produced so far is returned.
- Commands run non-interactively: stdin is closed, editors and pagers are disabled (GIT_EDITOR, EDITOR and PAGER are set to non-interactive values), and git never prompts for credentials. Pass flags that avoid prompts (e.g. \`git commit -m\`, \`npm init -y\`). Only a few environment variables are passed on (PATH, HOME, the locale, TERM, TZ, USER and those configured): credentials in the agent's environment (API keys, tokens) are not set.
- Processes left running in the background when the command finishes are terminated. For a server, a watcher or anything that runs until stopped, set \`run_in_background: true\`: the command becomes a job of this session and the call returns after its first output with a job id; read what it prints with bash_output (which can also write to its stdin) and end it with bash_kill. Add \`tty: true\` for a program that needs a terminal (a REPL, a prompt, a full-screen program). Jobs end when the session ends.
- Write a clear, concise description of what the command does in 5-10 words.
- If the output exceeds ${v.maxLines} lines or ${v.maxBytes} bytes, the start and the end are returned and the full output is written to a file whose path is given; read or grep that file instead of re-running the command. Do NOT use \`head\`, \`tail\` or similar to limit output.
- Prefer the dedicated tools: Glob instead of find or ls, Grep instead of grep or rg, Read instead of cat/head/tail, Edit instead of sed/awk, Write instead of echo or heredocs.
- If the commands are independent, make several bash calls in one message. If they depend on each other, chain them in one call with '&&' (e.g. \`git add . && git commit -m "message"\`). Use ';' only when a later command must run even if an earlier one fails.
- A non-zero exit code is reported in the result; it is not an error of the tool.${sandboxNote(v.sandbox)}`
