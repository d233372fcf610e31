/**
 * What a job runs, decided once at its start from the command's analysis: a shell reading
 * commands from its input (`bash`, `sh -i`), an interpreter's REPL (`python3`, `node` without a
 * script), or another program. Input written to the first two is code, asked like a command.
 */
import type { Jobs } from "@agent-tools/core"
import type { Analysis } from "../../bash/analysis.ts"

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox"])

/** Interpreters and how each runs code given as an argument (the form its input is asked as). */
export const INTERPRETERS: Readonly<Record<string, string>> = {
  python: "-c",
  python2: "-c",
  python3: "-c",
  node: "-e",
  nodejs: "-e",
  bun: "-e",
  deno: "eval",
  ruby: "-e",
  irb: "-e",
  perl: "-e",
  php: "-r",
  lua: "-e",
  R: "-e",
  Rscript: "-e",
  julia: "-e",
  ghci: "-e",
  psql: "-c",
  sqlite3: "",
  mysql: "-e"
}

/** Options that keep a shell or interpreter reading its input (`-i`, `-q`, `--login`…), not a script. */
const isOption = (word: string) => word.startsWith("-")

const baseName = (program: string) => program.slice(program.lastIndexOf("/") + 1).replace(/^(python\d)\.\d+$/, "$1")

export interface KindOf {
  readonly kind: Jobs.Kind
  readonly interpreter?: string | undefined
}

/** What one command of the job is, when it reads code from its input. */
const commandKind = (argv: ReadonlyArray<string>): KindOf | undefined => {
  if (argv.length === 0) return undefined
  const name = baseName(argv[0]!)
  const rest = argv.slice(1)
  const readsInput = rest.every(isOption) && !rest.some((w) => ["-c", "-e", "-r", "--eval", "--command", "-m"].includes(w))
  if (!readsInput) return undefined
  if (SHELLS.has(name)) return { kind: "shell", interpreter: name }
  if (Object.hasOwn(INTERPRETERS, name)) return { kind: "interpreter", interpreter: name }
  return undefined
}

/**
 * The kind of the job: a shell when any of its commands is a shell with options only (no script,
 * no `-c` code), else an interpreter when one is, else a program whose input is data. Any such
 * command counts (not only the last): the input may reach it.
 */
export const kindOf = (analysis: Analysis): KindOf => {
  const kinds = analysis.commands.map((c) => commandKind(c.argv)).filter((k) => k !== undefined)
  return kinds.find((k) => k.kind === "shell") ?? kinds[0] ?? { kind: "program" }
}

/** Quotes `text` as one word for a POSIX shell. */
export const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

/** The command an interpreter's input is asked as: `<program> -c '<input>'`, so the analysis of code run from an argument decides. */
export const asCommand = (interpreter: string, input: string): string => {
  const flag = INTERPRETERS[interpreter] ?? "-c"
  return flag === "" ? `${interpreter} ${quote(input)}` : `${interpreter} ${flag} ${quote(input)}`
}
