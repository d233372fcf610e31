/**
 * The `bash` patterns and `always` patterns of one command. The normalised form (wrappers,
 * assignments and global options removed, `/usr/bin/rm` → `rm`) is what deny rules meet; when
 * normalising dropped something that changes what runs (an unsafe assignment, a program outside
 * the system directories, `git -c`, a privileged wrapper), the written form is asked too, so an
 * allow rule for the plain command does not cover it.
 */
import { alwaysPattern, hoist } from "./arity.ts"
import type { Word } from "./words.ts"

/** Environment variables that change no command's code path: `CI=true npm test` is `npm test`. */
export const SAFE_ENV: ReadonlySet<string> = new Set([
  "CI", "NODE_ENV", "DEBUG", "FORCE_COLOR", "NO_COLOR", "TERM", "COLUMNS", "LINES", "LANG", "LANGUAGE", "LC_ALL",
  "LC_CTYPE", "LC_MESSAGES", "TZ", "RUST_BACKTRACE", "RUST_LOG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
  "NODE_NO_WARNINGS", "HUSKY", "CARGO_TERM_COLOR", "GIT_TERMINAL_PROMPT", "VERBOSE", "LOG_LEVEL", "TIMEFORMAT"
])

/** `/usr/bin/rm` is `rm`; a program anywhere else is asked for as written, and its file checked. */
export const SYSTEM_BIN: ReadonlySet<string> = new Set([
  "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin"
])

/**
 * An exact `always` pattern. Rules have no escape for `*` and `?`, so a text containing them would
 * approve more than itself: such a command gets no `always` pattern at all.
 */
export const exact = (text: string): ReadonlyArray<string> => /[*?]/.test(text) ? [] : [text]

interface Runner {
  /** An option that runs inline code: the always pattern is the exact command. */
  readonly code?: RegExp | undefined
  /** An option naming a module to run (`python -m pytest`): part of the prefix. */
  readonly module?: RegExp | undefined
}

const python: Runner = { code: /^-[A-Za-z]*c/, module: /^-[A-Za-z]*m$/ }
const node: Runner = { code: /^(-[A-Za-z]*[ep]|--eval|--print)(=|$)/ }
const perl: Runner = { code: /^-[A-Za-z]*[eE]/ }
const dashE: Runner = { code: /^-e$/ }
const shell: Runner = {}

const RUNNER_OF: Record<string, Runner> = {
  python, python3: python, python2: python, node, nodejs: node, tsx: node, "ts-node": node, perl,
  ruby: { code: /^-[A-Za-z]*e/ }, php: { code: /^-[A-Za-z]*r/ }, lua: dashE, Rscript: dashE, osascript: dashE,
  bash: shell, sh: shell, zsh: shell, dash: shell, ksh: shell, source: shell, ".": shell
}

/**
 * Interpreters run whatever their first operand names, so their `always` pattern includes the
 * script (`python tool.py *`, never `python *`); inline code (`python -c …`) gets the exact text.
 * Undefined for other commands; `""` when there is no safe always pattern.
 */
export const runnerAlways = (values: ReadonlyArray<string>, texts: ReadonlyArray<string>): string | undefined => {
  const runner = RUNNER_OF[values[0] ?? ""]
  if (runner === undefined) return undefined
  for (let i = 1; i < values.length; i++) {
    const v = values[i]!
    if (runner.code?.test(v) === true) return exact(texts.join(" "))[0] ?? ""
    if (runner.module?.test(v) === true) return `${texts.slice(0, i + 2).join(" ")} *`
    if (v.startsWith("-")) continue
    return `${texts.slice(0, i + 1).join(" ")} *`
  }
  return exact(texts.join(" "))[0] ?? ""
}

export interface Forms {
  readonly argv: ReadonlyArray<string>
  readonly patterns: ReadonlyArray<string>
  readonly always: ReadonlyArray<string>
}

export interface FormsInput {
  /** The command name as written, and normalised (basename, unquoted). */
  readonly name: Word
  readonly normName: string
  readonly args: ReadonlyArray<Word>
  /** Wrapper words written before it (`sudo -u x`, `timeout 5`). */
  readonly outer: ReadonlyArray<Word>
  readonly assignments: ReadonlyArray<Word>
  /** The program is a path outside the system directories. */
  readonly foreignPath: boolean
  readonly unsafeEnv: boolean
  readonly privileged: boolean
  /** A wrapper given no command (`sudo -v`, `env`): only its exact text may be approved. */
  readonly wrapperAlone: boolean
}

export const forms = (input: FormsInput): Forms => {
  const { args, normName } = input
  const hoisted = hoist(normName, args, (w) => w.value)
  const values = [normName]
  const texts = [normName]
  for (const w of hoisted.words) {
    values.push(w.value)
    texts.push(w.text)
  }
  const canonical = texts.join(" ")
  const always = input.wrapperAlone
    ? exact(canonical)[0] ?? ""
    : runnerAlways(values, texts) ?? alwaysPattern(values, texts)
  const patterns = [canonical]
  const alwaysList = [always]
  if (input.foreignPath || input.unsafeEnv || hoisted.risky || input.privileged) {
    const lead = [
      ...input.outer.map((w) => w.text),
      ...input.assignments.map((a) => a.text),
      input.foreignPath ? input.name.text : normName
    ]
    const rest = hoisted.risky ? args.map((w) => w.text) : hoisted.words.map((w) => w.text)
    const form = [...lead, ...rest].join(" ")
    patterns.push(form)
    // `git -c …` may run anything: only its exact text can be approved.
    alwaysList.push(
      hoisted.risky || !always.startsWith(normName) ? exact(form)[0] ?? "" : lead.join(" ") + always.slice(normName.length)
    )
  }
  return { argv: values, patterns, always: alwaysList.filter((a) => a !== "") }
}
