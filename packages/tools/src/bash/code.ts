/**
 * Commands that run code the analysis cannot see, though they look like ordinary commands:
 * interpreters given inline code (`python3 -c`, `node -e`), `awk` programs calling `system()`,
 * `sed` scripts with the `e` command, `git -c core.pager=…`, `git rebase --exec`, `npm
 * --script-shell`. Each is reported with a reason; the command is then asked as unanalysed, so a
 * prefix rule (`git *`, `sed -n *`) does not approve it.
 *
 * `sed` scripts are read here too, for the files their `w`/`r` commands write and read. The table
 * of other programs that run a command named in an option is `runsCode.ts`; text bash evaluates
 * by itself (prompts, subscripts, exported functions) is `shellEval.ts`.
 */

import { gitSubcommandCode, makefileOf, runsCode } from "./runsCode.ts"
import { shellVariableCode, subscriptCode } from "./shellEval.ts"
import { makeWord, type Word } from "./words.ts"
import { SHELLS } from "./wrappers.ts"

/** An option that takes inline code, per interpreter. */
const INLINE_CODE: Record<string, RegExp> = {
  python: /^-[A-Za-z]*c/,
  python3: /^-[A-Za-z]*c/,
  python2: /^-[A-Za-z]*c/,
  pypy: /^-[A-Za-z]*c/,
  pypy3: /^-[A-Za-z]*c/,
  node: /^(-[A-Za-z]*[ep]|--eval|--print)(=|$)/,
  nodejs: /^(-[A-Za-z]*[ep]|--eval|--print)(=|$)/,
  bun: /^(-e|--eval|-p|--print)(=|$)/,
  deno: /^eval$/,
  perl: /^-[A-Za-z]*[eE]/,
  ruby: /^-[A-Za-z]*e/,
  php: /^-[A-Za-z]*r/,
  lua: /^-e/,
  luajit: /^-e/,
  Rscript: /^-e/,
  osascript: /^-e/,
  tclsh: /^-c/,
  jshell: /^-c/
}

/**
 * The files a shell, interpreter or `make` runs as code (`bash s.sh`, `. s.sh`, `python3 s.py`,
 * `make -f m.mk`, or the makefiles `make` looks for): none when it runs inline code, standard
 * input, or nothing.
 */
export const scriptFiles = (name: string, args: ReadonlyArray<Word>): ReadonlyArray<Word> => {
  if (name === "make" || name === "gmake") {
    const file = makefileOf(args.map((a) => a.value))
    if (file === undefined) return ["GNUmakefile", "makefile", "Makefile"].map((f) => makeWord(f, f, false, false, false))
    const at = args.find((a) => a.value === file || a.value.endsWith(`=${file}`) || a.value === `-f${file}`)
    return at === undefined ? [] : [{ ...at, value: file }]
  }
  if (name !== "source" && name !== "." && !SHELLS.has(name) && INLINE_CODE[name] === undefined) return []
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value
    if (v === "--") return args.slice(i + 1, i + 2)
    if (v === "-o" || v === "-O" || v === "+o" || v === "+O") i++
    else if (!v.startsWith("-") && !v.startsWith("+")) return [args[i]!]
  }
  return []
}

/** Options after which an interpreter runs no code: it prints something and exits. */
const INFO_ONLY = /^(--version|-V|--help|-h|-v|--v8-options)$/
/** `python -m module`: runs an installed module, an ordinary command. */
const MODULE = /^-[A-Za-z]*m$/

/**
 * Where an interpreter's code comes from, when nobody can read it first: `inline` (`-c CODE`,
 * `-e CODE`) or `stdin` (`python3 <<EOF`, `node -`); undefined when it runs a script file.
 */
const unseenInterpreterCode = (name: string, values: ReadonlyArray<string>): "inline" | "stdin" | undefined => {
  const code = INLINE_CODE[name]
  if (code === undefined) return undefined
  for (const v of values) {
    if (code.test(v)) return "inline"
    if (v === "-") return "stdin"
    if (!v.startsWith("-")) return undefined // the script file: what follows are its arguments
    if (INFO_ONLY.test(v) || MODULE.test(v)) return undefined
  }
  return "stdin"
}

/** `git -c KEY=VALUE` keys whose value is a command (or pulls in more configuration). */
const GIT_CODE_KEYS = [
  /^alias\./,
  /^core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|attributesfile|excludesfile)$/,
  /^pager\./,
  /^(diff|merge)\..*\.(command|driver|textconv)$/,
  /^diff\.external$/,
  /^filter\./,
  /^credential\./,
  /^(sequence|gpg|gpg\..*)\.(editor|program)$/,
  /^(difftool|mergetool)\..*\.cmd$/,
  /^(web\.browser|browser\..*\.cmd|man\..*\.cmd)$/,
  /^include(if)?\./,
  /^uploadpack\.packobjectshook$/,
  /^protocol\./,
  /^remote\..*\.(uploadpack|receivepack|proxy)$/,
  /^ssh\./,
  /^receive\.procreceiverefs$/,
  /^instaweb\./
]

const gitCode = (values: ReadonlyArray<string>): string | undefined => {
  let i = 0
  for (; i < values.length; i++) {
    const v = values[i]!
    if (v === "-c" || v.startsWith("-c")) {
      const setting = v === "-c" ? values[++i] ?? "" : v.slice(2)
      const key = setting.split("=")[0]!.toLowerCase()
      if (GIT_CODE_KEYS.some((k) => k.test(key))) return `git -c ${key} can run a command`
      continue
    }
    if (v === "--config-env" || v.startsWith("--config-env=")) return "git --config-env can run a command"
    if (v === "-C" || v === "--git-dir" || v === "--work-tree" || v === "--namespace") {
      i++
      continue
    }
    if (!v.startsWith("-")) break
  }
  const sub = values[i]
  const rest = values.slice(i + 1)
  const passed = gitSubcommandCode(sub, rest)
  if (passed !== undefined) return passed
  if (sub === "rebase" && rest.some((v) => v === "-x" || v.startsWith("--exec") || /^-[A-Za-z]*x/.test(v))) {
    return "git rebase --exec runs a command"
  }
  if (sub === "bisect" && rest[0] === "run") return "git bisect run runs a command"
  if (sub === "submodule" && rest.includes("foreach")) return "git submodule foreach runs a command"
  if (sub === "filter-branch" || sub === "filter-repo") return `git ${sub} runs commands`
  if (sub === "difftool" && rest.some((v) => v === "-x" || v.startsWith("--extcmd"))) return "git difftool --extcmd runs a command"
  if (sub === "config" && rest.some((v) => /^alias\./i.test(v)) && rest.some((v) => v.startsWith("!"))) {
    return "git config sets an alias that runs a command"
  }
  return undefined
}

const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "npx", "bun", "bunx"])

const packageManagerCode = (name: string, values: ReadonlyArray<string>): string | undefined => {
  for (const v of values) {
    if (v === "--script-shell" || v.startsWith("--script-shell=")) return `${name} --script-shell runs another program`
    if (v === "--node-options" || v.startsWith("--node-options=")) return `${name} --node-options can load code`
  }
  const execIndex = name === "npx" ? -1 : values.indexOf("exec")
  const after = name === "npx" ? values : execIndex >= 0 ? values.slice(execIndex + 1) : []
  if (after.some((v) => v === "-c" || v === "--call" || v.startsWith("--call="))) return `${name} exec -c runs inline code`
  return undefined
}

export interface SedEffects {
  /** Files its `w` commands and `s///w` flags write. */
  readonly writes: ReadonlyArray<string>
  /** Files its `r`/`R` commands read. */
  readonly reads: ReadonlyArray<string>
  /** Runs commands (`e`, `s///e`). */
  readonly runs: boolean
}

/** The rest of the line from `i` (a sed file name runs to the end of the line). */
const lineFrom = (script: string, i: number) => {
  const end = script.indexOf("\n", i)
  return { text: script.slice(i, end < 0 ? script.length : end).trim(), next: end < 0 ? script.length : end + 1 }
}

/** Skips a delimited part (`/re/`), honouring backslash escapes; returns the index after it. */
const skipDelimited = (script: string, i: number, delimiter: string) => {
  while (i < script.length && script[i] !== delimiter) i += script[i] === "\\" ? 2 : 1
  return i + 1
}

/** What a sed script does besides editing the stream. */
export const sedEffects = (script: string): SedEffects => {
  const writes: Array<string> = []
  const reads: Array<string> = []
  let runs = false
  let i = 0
  while (i < script.length) {
    const c = script[i]!
    if (/[\s;{}!,0-9$~+]/.test(c)) {
      i++
      continue
    }
    if (c === "/") {
      i = skipDelimited(script, i + 1, "/")
      continue
    }
    if (c === "\\") {
      // `\%regex%`: an address with another delimiter
      i = skipDelimited(script, i + 2, script[i + 1] ?? "")
      continue
    }
    if (c === "#") {
      i = lineFrom(script, i).next
      continue
    }
    if (c === "s" || c === "y") {
      const delimiter = script[i + 1] ?? ""
      i = skipDelimited(script, skipDelimited(script, i + 2, delimiter), delimiter)
      if (c === "y") continue
      while (i < script.length && /[gpiImMe0-9w]/.test(script[i]!)) {
        if (script[i] === "e") runs = true
        if (script[i] === "w") {
          const { text, next } = lineFrom(script, i + 1)
          writes.push(text)
          i = next
          break
        }
        i++
      }
      continue
    }
    if (c === "w" || c === "W" || c === "r" || c === "R") {
      const { text, next } = lineFrom(script, i + 1)
      ;(c === "w" || c === "W" ? writes : reads).push(text)
      i = next
      continue
    }
    if (c === ":" || c === "b" || c === "t" || c === "T") {
      // a label: to the next `;` or the end of the line (`:a;N;$!ba;s/\n/ /`)
      while (i < script.length && script[i] !== ";" && script[i] !== "\n") i++
      continue
    }
    if (c === "e") runs = true
    if (c === "a" || c === "i" || c === "c" || c === "e") {
      // text or a command: to the end of the line (GNU: `a\` continues on the next lines)
      let { next } = lineFrom(script, i + 1)
      while (next > 1 && script[next - 2] === "\\" && next < script.length) next = lineFrom(script, next).next
      i = next
      continue
    }
    i++
  }
  return { writes, reads, runs }
}

const AWK = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"])

/** `system()`, `print | "cmd"`, `"cmd" | getline`, `print > "file"`, `getline < "file"`. */
const AWK_EFFECTS = [/\bsystem\s*\(/, /(^|[^|])\|(?!\|)/, /\bprintf?\b[^;{}\n]*>/, /\bgetline\b[^;{}\n]*</, /\|&/]

/** The program of an `awk` command line (after options; `-f` means it is in a file). */
const awkProgram = (values: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (v === "--") return values[i + 1]
    if (v === "-f" || v.startsWith("--file") || v === "-E" || v === "--exec") return undefined
    if (v === "-v" || v === "-F") {
      i++
      continue
    }
    if (v.startsWith("-")) continue
    return v
  }
  return undefined
}

const SED = new Set(["sed", "gsed"])

/** The scripts of a `sed` command line: `-e` values, or the first operand. */
export const sedScripts = (values: ReadonlyArray<string>): { readonly scripts: ReadonlyArray<string>; readonly fromFile: boolean; readonly sandboxed: boolean } => {
  const scripts: Array<string> = []
  let fromFile = false
  let sandboxed = false
  let first: string | undefined
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (v === "--sandbox") sandboxed = true
    else if (v === "-e" || v === "--expression") scripts.push(values[++i] ?? "")
    else if (v.startsWith("--expression=")) scripts.push(v.slice("--expression=".length))
    else if (v === "-f" || v === "--file" || v.startsWith("--file=")) fromFile = true
    else if (/^-[A-Za-z]+$/.test(v) && /[ef]/.test(v.slice(1))) {
      // `-ne SCRIPT`, `-nf FILE`
      if (v.includes("f")) fromFile = true
      else scripts.push(values[++i] ?? "")
    } else if (v === "-l" || v === "--line-length") i++
    else if (!v.startsWith("-") && first === undefined) first = v
  }
  if (scripts.length === 0 && !fromFile && first !== undefined) scripts.push(first)
  return { scripts, fromFile, sandboxed }
}

/**
 * Why `name values…` (a command after unwrapping; values without quotes) runs code the analysis
 * cannot see; undefined when it does not.
 */
export const hiddenCode = (name: string, values: ReadonlyArray<string>): string | undefined => {
  const named = runsCode(name, values) ?? subscriptCode(name, values)
  if (named !== undefined) return named
  const interpreter = unseenInterpreterCode(name, values)
  if (interpreter === "inline") return `${name} runs inline code`
  if (interpreter === "stdin") return `${name} reads its code from standard input`
  if (name === "git") return gitCode(values)
  if (PACKAGE_MANAGERS.has(name)) return packageManagerCode(name, values)
  if (AWK.has(name)) {
    const program = awkProgram(values)
    if (program !== undefined && AWK_EFFECTS.some((e) => e.test(program))) {
      return `${name} program runs commands or redirects output (system, |, >, getline <)`
    }
    return undefined
  }
  if (SED.has(name)) {
    const { scripts, fromFile, sandboxed } = sedScripts(values)
    if (sandboxed) return undefined
    if (fromFile) return `${name} -f reads a script that may run commands (e) or write files (w)`
    if (scripts.some((s) => sedEffects(s).runs)) return `${name} script runs commands (e)`
  }
  return undefined
}

/**
 * Environment variables whose value is a command, a library or code that programs load: setting
 * one (`GIT_PAGER='rm x' git log`, `export BASH_ENV=…`) runs code nobody sees in the command line.
 */
const CODE_ENV = new Set([
  "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV", "PROMPT_COMMAND",
  "PAGER", "GIT_PAGER", "MANPAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH",
  "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "LESSOPEN",
  "LESSCLOSE", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
  "npm_config_script_shell", "NPM_CONFIG_SCRIPT_SHELL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "SHELLOPTS", "BASHOPTS", "IFS"
])

/** `PAGER=cat`, `GIT_EDITOR=true`: the harmless values agents set to stay non-interactive. */
const HARMLESS_VALUE = /^(cat|less|more|true|false|:)?( -[A-Za-z]+)*$/

/**
 * Why assigning `value` to `name` runs unseen code; undefined for an ordinary variable.
 * `dynamic`: the value is only known at run time.
 */
export const codeVariable = (name: string, value: string, dynamic = false): string | undefined =>
  (CODE_ENV.has(name) || /^GIT_CONFIG_(KEY|VALUE|COUNT)/.test(name)) && !HARMLESS_VALUE.test(value)
    ? `${name} makes programs run code that is not in the command line`
    : shellVariableCode(name, value, dynamic)
