/**
 * Commands that run another command: `sudo rm x` runs `rm x`, `bash -c 'a; b'` runs a script,
 * `find . -exec rm {} \;` runs `rm`. Each wrapper is described by how its options are read, so
 * the inner command is found the way the wrapper itself finds it (where its options end and the inner command begins).
 */
import type { Word } from "./words.ts"

export type Unwrapped =
  | {
    readonly _tag: "inner"
    /** The wrapper's own words (name and options). */
    readonly wrapper: ReadonlyArray<Word>
    readonly inner: ReadonlyArray<Word>
    /** Privileged wrappers (sudo, doas, …) are asked for too: a rule may deny `sudo *`. */
    readonly privileged: boolean
    /** `env NAME=VALUE cmd`: assignments for the inner command. */
    readonly assignments: ReadonlyArray<Word>
    /** `env -C dir`, `sudo -D dir`: the inner command runs there. */
    readonly chdir: Word | undefined
    /** `xargs cmd`: more arguments arrive on stdin, unseen. */
    readonly stdinArguments: boolean
  }
  | {
    readonly _tag: "script"
    readonly wrapper: ReadonlyArray<Word>
    /** The code string (`bash -c CODE`, `eval …`, `su -c CODE`, `watch CODE`, `trap CODE …`). */
    readonly script: Word
    /** Asked as a command of its own too (login shells read profile files; sudo-like). */
    readonly privileged: boolean
  }
  | {
    readonly _tag: "unseen"
    /** Why the code it runs cannot be seen (`bash -s` reads it from standard input). */
    readonly reason: string
    /** Code it runs that can be seen in part (`mapfile -C CODE`): analysed too, for deny rules. */
    readonly script?: Word | undefined
    /** A command it runs with more arguments added unseen (`parallel rm :::`): analysed too. */
    readonly inner?: ReadonlyArray<Word> | undefined
  }

interface Spec {
  /** Options followed by a separate value. */
  readonly values: ReadonlySet<string>
  /** Wrapper-specific reading of the words after the options. */
  readonly kind: "inner" | "privileged" | "timeout" | "env" | "xargs" | "watch" | "chroot" | "command" | "operand"
  /** Options that mean "no command follows" (e.g. `command -v`, `sudo -l`). */
  readonly noCommand?: ReadonlySet<string> | undefined
}

const set = (...xs: ReadonlyArray<string>): ReadonlySet<string> => new Set(xs)

const SPECS: Record<string, Spec> = {
  sudo: {
    kind: "privileged",
    values: set("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--chdir"),
    noCommand: set("-l", "-v", "-k", "-K", "-e", "--list", "--validate", "--edit", "-V", "--version")
  },
  doas: { kind: "privileged", values: set("-u", "-C") },
  pkexec: { kind: "privileged", values: set("--user") },
  chroot: { kind: "chroot", values: set("--userspec", "--groups") },
  timeout: { kind: "timeout", values: set("-s", "-k", "--signal", "--kill-after") },
  nice: { kind: "inner", values: set("-n", "--adjustment") },
  nohup: { kind: "inner", values: set() },
  stdbuf: { kind: "inner", values: set("-i", "-o", "-e", "--input", "--output", "--error") },
  ionice: { kind: "inner", values: set("-c", "-n", "--class", "--classdata"), noCommand: set("-p", "--pid") },
  setsid: { kind: "inner", values: set() },
  time: { kind: "inner", values: set("-f", "-o", "--format", "--output") },
  command: { kind: "command", values: set(), noCommand: set("-v", "-V") },
  builtin: { kind: "inner", values: set() },
  exec: { kind: "inner", values: set("-a") },
  env: { kind: "env", values: set("-u", "-C", "-S", "--unset", "--chdir", "--split-string") },
  xargs: {
    kind: "xargs",
    values: set("-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--eof", "--max-lines",
      "--max-args", "--max-procs", "--max-chars", "--process-slot-var")
  },
  watch: { kind: "watch", values: set("-n", "--interval", "-q", "--equexit") },
  // Tracers and debuggers run the command they are given.
  strace: {
    kind: "inner",
    values: set("-e", "-o", "-s", "-u", "-E", "-P", "-a", "-b", "-I", "-O", "-S", "-X", "--output", "--user", "--env"),
    noCommand: set("-p", "--attach")
  },
  ltrace: { kind: "inner", values: set("-e", "-o", "-s", "-u", "-n", "-a", "-A", "-D", "-F", "-l", "--output"), noCommand: set("-p") },
  valgrind: { kind: "inner", values: set() },
  // Namespaces, containers and service managers run the command inside; their options change
  // what it can reach, so the written form is asked too.
  unshare: { kind: "privileged", values: set("-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd") },
  nsenter: { kind: "privileged", values: set("-t", "-S", "-G", "--target", "--setuid", "--setgid") },
  firejail: { kind: "privileged", values: set() },
  "systemd-run": {
    kind: "privileged",
    values: set("-p", "-u", "-E", "-M", "-H", "--property", "--unit", "--setenv", "--machine", "--host", "--uid", "--gid",
      "--working-directory", "--slice", "--description")
  },
  setpriv: { kind: "privileged", values: set("--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set") },
  fakeroot: { kind: "privileged", values: set("-l", "-s", "-i", "--lib", "--faked") },
  chrt: { kind: "operand", values: set() },
  taskset: { kind: "operand", values: set() },
  prlimit: { kind: "inner", values: set(), noCommand: set("-p", "--pid") },
  unbuffer: { kind: "inner", values: set() },
  "dbus-run-session": { kind: "inner", values: set("--config-file", "--dbus-daemon") },
  "xvfb-run": { kind: "inner", values: set("-n", "-s", "-f", "-e", "-p", "--server-num", "--server-args") }
}

/** POSIX shells whose `-c` runs a script we can parse. */
export const SHELLS: ReadonlySet<string> = set("bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "busybox-sh")

/** Shell flags that change nothing we check (`-e`, `-x`, …); others (`-l`, `-i`) read profile files. */
const QUIET_SHELL_FLAGS = /^-[cexuvfnC]+$/

const isOption = (w: Word) => w.value.startsWith("-") && w.value !== "-" && !w.dynamic

/**
 * Reads `words[from..]` as options: returns the index of the first operand and the options seen.
 * `--` ends the options; `--opt=value` and attached short values (`-uroot`) are one word.
 */
const readOptions = (words: ReadonlyArray<Word>, from: number, values: ReadonlySet<string>) => {
  const seen: Array<string> = []
  let i = from
  while (i < words.length) {
    const w = words[i]!
    if (w.value === "--") return { next: i + 1, seen }
    if (!isOption(w)) break
    const name = w.value.includes("=") ? w.value.slice(0, w.value.indexOf("=")) : w.value
    seen.push(name)
    i += values.has(w.value) ? 2 : 1
  }
  return { next: i, seen }
}

/** The value of a `-S` that closes a cluster (`-iS 'cmd'`) or carries it attached (`-iS'cmd'`). */
const splitValue = (words: ReadonlyArray<Word>, cluster: Word): Word | undefined => {
  const rest = cluster.value.slice(cluster.value.indexOf("S") + 1)
  if (rest !== "") return { ...cluster, value: rest }
  return words[words.indexOf(cluster) + 1]
}

const inner = (
  words: ReadonlyArray<Word>,
  at: number,
  extra: Partial<Omit<Extract<Unwrapped, { _tag: "inner" }>, "_tag" | "wrapper" | "inner">> = {}
): Extract<Unwrapped, { _tag: "inner" }> | undefined =>
  at >= words.length ? undefined : {
    _tag: "inner",
    wrapper: words.slice(0, at),
    inner: words.slice(at),
    privileged: extra.privileged ?? false,
    assignments: extra.assignments ?? [],
    chdir: extra.chdir,
    stdinArguments: extra.stdinArguments ?? false
  }

const optionValue = (words: ReadonlyArray<Word>, from: number, to: number, names: ReadonlyArray<string>) => {
  for (let i = from; i < to; i++) {
    const v = words[i]!.value
    for (const name of names) {
      if (v === name) return words[i + 1]
      if (name.startsWith("--") && v.startsWith(name + "=")) return { ...words[i]!, value: v.slice(name.length + 1) }
      // `-S'rm x'`, `-Cdir`: a short option's value written against it
      if (!name.startsWith("--") && v.startsWith(name) && v.length > name.length) {
        return { ...words[i]!, value: v.slice(name.length) }
      }
    }
  }
  return undefined
}

const script = (words: ReadonlyArray<Word>, code: Word, upTo: number, privileged: boolean): Unwrapped => ({
  _tag: "script",
  wrapper: words.slice(0, upTo),
  script: code,
  privileged
})

/** Words joined into one code string (`eval a b`, `watch a b`); dynamic when any word is. */
const joined = (words: ReadonlyArray<Word>): Word => ({
  text: words.map((w) => w.text).join(" "),
  value: words.map((w) => w.value).join(" "),
  dynamic: words.some((w) => w.dynamic),
  glob: false,
  fd: false
})

/**
 * What `words` (name first, already normalised) run, when the name is a wrapper; undefined for an
 * ordinary command, or a wrapper given no command (`sudo -v`, `env`, `command -v git`).
 */
export const unwrap = (name: string, words: ReadonlyArray<Word>): Unwrapped | undefined => {
  if (SHELLS.has(name)) return unwrapShell(name, words)
  if (name === "eval") return words.length > 1 ? script(words, joined(words.slice(1)), 1, false) : undefined
  if (name === "source" || name === ".") {
    const file = words[1]
    if (file !== undefined && (file.fd || isStdinPath(file.value))) {
      return unseen(`${name} reads code from ${file.fd ? "a process substitution" : file.value}`)
    }
    return undefined
  }
  if (name === "trap") {
    let at = 1
    if (words[at]?.value === "--") at++
    const first = words[at]
    if (first === undefined || isOption(first) || first.value === "" || first.value === "-") return undefined
    return script(words, first, at, false)
  }
  if (name === "su" || name === "runuser") {
    // `su -c CODE user` and `su user -c CODE` both run CODE.
    const code = optionValue(words, 1, words.length, ["-c", "--command"])
    if (code !== undefined) return script(words, code, words.length, true)
    // `runuser -u USER -- cmd args`: a command, as root for another user.
    const { next } = readOptions(words, 1, set("-u", "-g", "-G", "-s", "-w", "--user", "--group", "--supp-group", "--shell"))
    const user = optionValue(words, 1, next, ["-u", "--user"])
    if (name === "runuser" && user !== undefined) return inner(words, next, { privileged: true })
    return unseen(`${name} starts a shell that reads its code from standard input`)
  }
  if (name === "mapfile" || name === "readarray") {
    const callback = optionValue(words, 1, words.length, ["-C"])
    return callback === undefined ? undefined : unseen(`${name} -C runs code with arguments only known at run time`, { script: callback })
  }
  if (name === "script") {
    // `script -qc CODE`: `-c` may close a cluster of flags.
    const cluster = words.findIndex((w, i) => i > 0 && /^-[A-Za-z]*c$/.test(w.value))
    const code = cluster > 0 ? words[cluster + 1] : optionValue(words, 1, words.length, ["-c", "--command"])
    if (code !== undefined) return script(words, code, words.length, false)
    return unseen("script starts a shell that reads its code from standard input")
  }
  if (name === "busybox") {
    // `busybox rm x` is `rm x`; `busybox` alone lists the applets.
    return words.length > 1 && !isOption(words[1]!) ? inner(words, 1) : undefined
  }
  if (name === "parallel") {
    const { next } = readOptions(words, 1, PARALLEL_VALUES)
    let end = next
    while (end < words.length && !words[end]!.value.startsWith(":::")) end++
    return unseen("parallel runs commands built from arguments only known at run time", {
      inner: end > next ? words.slice(next, end) : undefined
    })
  }
  if (name === "at" || name === "batch") return unseen(`${name} runs commands later, read from standard input or a file`)
  if (name === "gdb" || name === "lldb") return unseen(`${name} can run shell commands and programs of its own choosing`)
  if (name === "bwrap") return unseen("bwrap runs a command whose position depends on its many options")
  const spec = SPECS[name]
  if (spec === undefined) return undefined
  const { next, seen } = readOptions(words, 1, spec.values)
  if (spec.noCommand !== undefined && seen.some((o) => spec.noCommand!.has(o))) return undefined
  switch (spec.kind) {
    case "inner":
    case "command":
      return inner(words, next)
    case "privileged":
      return inner(words, next, { privileged: true, chdir: optionValue(words, 1, next, ["-D", "--chdir"]) })
    case "chroot":
      return inner(words, next + 1, { privileged: true })
    case "timeout":
      return inner(words, next + 1) // the duration comes first
    case "operand":
      return inner(words, next + 1) // `chrt 10 cmd`, `taskset 0x3 cmd`: one operand first
    case "env": {
      // `-S STRING` splits STRING with rules of its own (escapes, `${VAR}`), not the shell's: what
      // runs cannot be read off the text. Its shell reading is still analysed, for deny rules.
      const cluster = words.slice(1, next).find((w) => /^-[A-Za-z]*S/.test(w.value) || w.value.startsWith("--split-string"))
      if (cluster !== undefined) {
        const split = optionValue(words, 1, next, ["--split-string"]) ?? splitValue(words, cluster)
        return unseen("env -S splits its command with rules of its own", { script: split })
      }
      // env takes every word with `=` as an assignment, names the shell would refuse included
      // (`BASH_FUNC_f%%=…`).
      let at = next
      while (at < words.length && words[at]!.value.includes("=")) at++
      const found = inner(words, at, {
        assignments: words.slice(next, at),
        chdir: optionValue(words, 1, next, ["-C", "--chdir"])
      })
      // The assignments travel as `assignments`, not as wrapper words.
      return found === undefined ? undefined : { ...found, wrapper: words.slice(0, next) }
    }
    case "xargs":
      // No command means `echo`, which runs nothing of interest.
      return inner(words, next, { stdinArguments: true })
    case "watch":
      if (seen.includes("-x") || seen.includes("--exec")) return inner(words, next)
      return next < words.length ? script(words, joined(words.slice(next)), next, false) : undefined
  }
}

const unseen = (reason: string, extra: { readonly script?: Word | undefined; readonly inner?: ReadonlyArray<Word> | undefined } = {}): Unwrapped => ({
  _tag: "unseen",
  reason,
  script: extra.script,
  inner: extra.inner
})

/** A file that is really the standard input or an inherited descriptor: code nobody can read first. */
const isStdinPath = (value: string) => /^\/dev\/(stdin|fd\/\d+)$|^\/proc\/self\/fd\/\d+$|^\/dev\/tty$/.test(value)

const PARALLEL_VALUES = set("-j", "-S", "-a", "-d", "-I", "-n", "-N", "-L", "-P", "--jobs", "--arg-file", "--delimiter",
  "--colsep", "--max-args", "--sshlogin", "--joblog", "--results", "--tmpdir", "--workdir", "--timeout")

const unwrapShell = (name: string, words: ReadonlyArray<Word>): Unwrapped | undefined => {
  let quiet = true
  let hasC = false
  let stdin = false
  let i = 1
  for (; i < words.length; i++) {
    const w = words[i]!
    if (w.value === "--" || w.value === "-") {
      i++
      break
    }
    if (!isOption(w) && !w.value.startsWith("+")) break
    if (w.value === "-o" || w.value === "+o" || w.value === "-O" || w.value === "+O") {
      i++ // `-o pipefail`: a shell option name follows
      continue
    }
    if (w.value.startsWith("-") && !w.value.startsWith("--") && w.value.includes("c")) hasC = true
    if (w.value.startsWith("-") && !w.value.startsWith("--") && w.value.includes("s")) stdin = true
    if (!QUIET_SHELL_FLAGS.test(w.value)) quiet = false
  }
  if (!hasC) {
    // `echo rm x | sh`, `bash -s`, `bash < f`, `bash <<< CODE`, `bash /dev/stdin`, `bash <(…)`.
    const file = words[i]
    if (stdin || file === undefined) return unseen(`${name} reads its code from standard input`)
    if (file.fd || isStdinPath(file.value)) return unseen(`${name} reads code from ${file.fd ? "a process substitution" : file.value}`)
    return undefined // `bash script.sh`: runs a file, an ordinary command
  }
  const code = words[i]
  return code === undefined ? undefined : script(words, code, i, !quiet)
}

export type FindPart =
  | { readonly _tag: "root"; readonly word: Word }
  | { readonly _tag: "exec"; readonly words: ReadonlyArray<Word> }
  | { readonly _tag: "output"; readonly word: Word }
  | { readonly _tag: "delete" }

const FIND_EXEC = set("-exec", "-execdir", "-ok", "-okdir")
const FIND_OUTPUT = set("-fprint", "-fprint0", "-fls", "-fprintf")
const FIND_GLOBAL_VALUES = set("-D", "-O")

/** `find [-H|-L|-P] roots… expression`: the roots, `-exec` commands, `-fprint` output files, `-delete`. */
export const findParts = (words: ReadonlyArray<Word>): ReadonlyArray<FindPart> => {
  const parts: Array<FindPart> = []
  let i = 1
  while (i < words.length && /^-[HLPDO]/.test(words[i]!.value)) i += FIND_GLOBAL_VALUES.has(words[i]!.value) ? 2 : 1
  for (; i < words.length; i++) {
    const v = words[i]!.value
    if (v.startsWith("-") || v === "(" || v === "!" || v === ")" || v === ",") break
    parts.push({ _tag: "root", word: words[i]! })
  }
  for (; i < words.length; i++) {
    const v = words[i]!.value
    if (v === "-delete") parts.push({ _tag: "delete" })
    if (FIND_OUTPUT.has(v) && words[i + 1] !== undefined) parts.push({ _tag: "output", word: words[++i]! })
    if (!FIND_EXEC.has(v)) continue
    const start = i + 1
    let end = start
    while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++
    if (end > start) parts.push({ _tag: "exec", words: words.slice(start, end) })
    i = end
  }
  return parts
}

/** The words of an `env NAME=VALUE` assignment: the variable name. */
export const assignmentName = (w: Word): string => w.value.slice(0, w.value.indexOf("="))

/** `coproc` (and keywords seen as command names) mean the grammar misread the script. */
export const UNSUPPORTED_NAMES: ReadonlySet<string> = new Set(["coproc", "select", "{", "}"])

/** Every command name `unwrap` knows: alone (`sudo -v`) only its exact text may be approved. */
export const WRAPPER_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(SPECS), "eval", "trap", "su", "runuser", "mapfile", "readarray", "script", "busybox", "parallel"
])
