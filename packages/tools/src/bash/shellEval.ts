/**
 * Places where bash itself evaluates text as code, though the text is quoted or stored in a
 * variable, so the syntax tree shows no command there:
 *
 * - prompt strings: `PS4='$(…)'` runs on every `set -x` trace line, `${x@P}` expands `x` as a
 *   prompt (command substitutions included);
 * - array subscripts: a variable name given to a builtin (`printf -v`, `read`, `test -v`,
 *   `[[ -v ]]`, `declare`, `let`, …) or a value evaluated in arithmetic may carry
 *   `a[$(cmd)]`, and bash runs the substitution when it evaluates the subscript;
 * - exported functions: `BASH_FUNC_name%%=() { …; }` in the environment defines a function in
 *   every bash started below, replacing whatever command has that name;
 * - aliases: `alias ls='rm x'` replaces a later command word with code (in bash once
 *   `expand_aliases` is set, in `sh`/dash and POSIX mode always).
 *
 * Each returns a reason: the command is then asked as unanalysed.
 */

/** Prompt strings bash expands (parameter expansion, command substitution) before using them. */
const PROMPTS = new Set(["PS0", "PS1", "PS2", "PS3", "PS4"])

/** Something a prompt expands into code: a substitution or an expansion (`\u`-style escapes run nothing). */
const EXPANDS = /[$`]/

/** `a[$(cmd)]`, `a[`cmd`]`: a subscript holding a command substitution. */
const SUBSCRIPT_CODE = /\[[^\]]*(\$\(|`)/

/**
 * Why setting `name` to `value` makes bash evaluate code of its own accord; undefined when not.
 * `dynamic`: the value is only known at run time (a substitution's output is stored, not its code).
 */
export const shellVariableCode = (name: string, value: string, dynamic: boolean): string | undefined => {
  if (name.startsWith("BASH_FUNC_")) return `${name} defines a function for every bash started from here`
  if (PROMPTS.has(name) && EXPANDS.test(value)) return `${name} is expanded as a prompt, which can run commands`
  if (!dynamic && SUBSCRIPT_CODE.test(value)) return `the value of ${name} holds a subscript that arithmetic would run as code`
  return undefined
}

/**
 * `[[ -v 'a[$(cmd)]' ]]`, `[[ 'a[$(cmd)]' -eq 1 ]]`: a test that names a variable, or compares as
 * arithmetic, where bash evaluates a subscript.
 */
export const testSubscriptCode = (text: string): string | undefined =>
  /(^|\s)-(v|eq|ne|lt|le|gt|ge)\s/.test(text) && SUBSCRIPT_CODE.test(text)
    ? "[[ ]] evaluates a subscript as code"
    : undefined

/** `${x@P}`: the value of `x` expanded as a prompt. */
export const promptExpansion = (text: string): string | undefined =>
  /@P\s*\}$/.test(text) ? `${text} expands a variable as a prompt, which can run commands` : undefined

/** Options of a builtin that take a variable name (`printf -v NAME`, `read -a NAME`). */
const NAME_OPTIONS: Record<string, ReadonlySet<string>> = {
  printf: new Set(["-v"]),
  read: new Set(["-a"]),
  wait: new Set(["-p"])
}

/** Builtins whose operands are (or assign) variable names, whose subscripts bash evaluates. */
const NAME_OPERANDS = new Set([
  "read", "declare", "typeset", "local", "export", "readonly", "let", "mapfile", "readarray", "getopts"
])

/** `test -v NAME`, `[ -v NAME ]`: only the word after `-v` is a variable name. */
const TESTS = new Set(["test", "["])

/**
 * Why `name values…` makes bash evaluate a subscript as code (`printf -v 'a[$(rm x)]' 1`,
 * `[[ -v 'a[$(rm x)]' ]]`); undefined when no word it reads as a variable name holds one.
 */
export const subscriptCode = (name: string, values: ReadonlyArray<string>): string | undefined => {
  const named = NAME_OPTIONS[name]
  const operands = NAME_OPERANDS.has(name)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    const option = (named !== undefined && named.has(v)) || (TESTS.has(name) && v === "-v") ? values[i + 1] : undefined
    // `printf FORMAT args` only names a variable through -v; the others through any operand.
    const candidate = option ?? (operands ? v : undefined)
    if (candidate !== undefined && SUBSCRIPT_CODE.test(candidate)) {
      return `${name} evaluates the subscript in ${candidate} as code`
    }
  }
  return undefined
}

/** `alias name=value`: defines code that replaces a later command word. */
export const aliasDefinitions = (name: string, values: ReadonlyArray<string>): ReadonlyArray<string> =>
  name === "alias" ? values.filter((v) => !v.startsWith("-") && v.includes("=")).map((v) => v.slice(v.indexOf("=") + 1)) : []

export const ALIAS_REASON = "alias replaces later commands with code the analysis does not follow"
