/**
 * Which arguments of a command are paths, and whether it reads or writes them.
 *
 * - File commands (`FILE_COMMANDS`): every operand is a path; one we cannot resolve (`rm "$X"`)
 *   makes the command unanalysable, since it may touch anything.
 * - Every other command: any literal argument that looks like a path (`/…`, `~…`, `./…`, a `..`
 *   segment anywhere, `--out=/…`, `-o/…`, `NAME=../…`) is checked; plain words (`src`, `main`)
 *   cannot leave the directory.
 * - Writes: redirect targets, cp/mv/install/ln/rsync destinations (and mv sources, which vanish),
 *   tee/truncate/touch files, `sed -i` files, `dd of=`, the values of output options
 *   (`outputOptions.ts`: `--output=FILE`, `curl -o`, `gcc -o`, `tar -cf`…), and deletes (rm,
 *   rmdir, unlink, shred): also checked against `edit`.
 * - Links: where ln / cp -s make them, so later paths through them can be flagged; a relative
 *   `ln -s` target is resolved from the link's directory.
 */
import { outputPaths } from "./outputOptions.ts"
import type { Word } from "./words.ts"

export type Access = "read" | "write"
/** `directory`: the path names a directory (cd, a glob's folder); `any`: decided by stat later. */
export type Kind = "directory" | "any"

export interface PathArgument {
  readonly word: Word
  readonly access: Access
  readonly kind: Kind
}

const set = (...xs: ReadonlyArray<string>): ReadonlySet<string> => new Set(xs)

/** Every operand is a path. */
export const FILE_COMMANDS: ReadonlySet<string> = set(
  "cd", "pushd", "ls", "cat", "tac", "head", "tail", "less", "more", "wc", "stat", "file", "du", "nl", "od", "xxd",
  "hexdump", "strings", "md5sum", "sha1sum", "sha256sum", "sha512sum", "sort", "uniq", "diff", "cmp", "touch",
  "rm", "rmdir", "mkdir", "cp", "mv", "ln", "install", "chmod", "chown", "chgrp", "tee", "truncate", "shred",
  "unlink", "rsync", "realpath", "readlink", "source", ".", "dd", "sed", "grep", "egrep", "fgrep", "rg", "awk",
  "gawk", "mawk", "jq", "srm", "trash", "trash-put", "link"
)

/** The first operand is a pattern or program, not a path (unless given with -e/-f). */
const PATTERN_FIRST = set("grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "mawk", "jq")
/** Options that take the pattern/program, so every operand is a file. */
const PATTERN_OPTIONS = set("-e", "-f", "--regexp", "--file", "--expression")

/** Options that take a separate value, per file command (the value is not a path operand). */
const VALUES: Record<string, ReadonlySet<string>> = {
  head: set("-n", "-c"),
  tail: set("-n", "-c", "-s"),
  cp: set("-t", "-S", "--target-directory", "--suffix"),
  mv: set("-t", "-S", "--target-directory", "--suffix"),
  ln: set("-t", "-S", "--target-directory", "--suffix"),
  install: set("-m", "-o", "-g", "-t", "-S", "--mode", "--owner", "--group", "--target-directory"),
  truncate: set("-s", "-r", "--size", "--reference"),
  touch: set("-d", "-t", "-r", "--date", "--reference"),
  mkdir: set("-m", "--mode"),
  sort: set("-o", "-k", "-t", "-S", "-T", "--output", "--key", "--field-separator"),
  ls: set("-I", "-w", "-T", "--ignore", "--width"),
  du: set("-d", "-B", "-t", "--max-depth", "--exclude"),
  stat: set("-c", "--format", "--printf"),
  grep: set("-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file", "--max-count"),
  egrep: set("-e", "-f", "-m", "-A", "-B", "-C"),
  fgrep: set("-e", "-f", "-m", "-A", "-B", "-C"),
  rg: set("-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j", "--glob", "--type", "--regexp", "--file"),
  sed: set("-e", "-f", "-l", "--expression", "--file"),
  awk: set("-f", "-v", "-F"),
  gawk: set("-f", "-v", "-F"),
  mawk: set("-f", "-v", "-F"),
  jq: set("--arg", "--argjson", "-f", "--from-file", "--slurpfile", "--rawfile", "--indent"),
  xxd: set("-c", "-g", "-l", "-s"),
  od: set("-A", "-j", "-N", "-t", "-w"),
  rsync: set("-e", "--rsh", "--exclude", "--include", "-f", "--filter")
}

/** Commands that change or delete the files they are given: with `xargs` the files are unseen. */
export const MODIFYING_COMMANDS: ReadonlySet<string> = set(
  "rm", "rmdir", "mv", "cp", "ln", "install", "rsync", "tee", "truncate", "touch", "shred", "unlink", "chmod",
  "chown", "chgrp", "mkdir", "sed", "dd", "srm", "trash", "trash-put"
)

/** Commands whose arguments are never paths: arguments arriving unseen (`xargs echo`) touch no file. */
export const NO_PATH_ARGUMENTS: ReadonlySet<string> = set("echo", "printf", "true", "false", "kill")

/** Last operand is the destination; with `-t DIR` every operand is a source. */
const DESTINATION_LAST = set("cp", "mv", "install", "ln", "link", "rsync")
/** Commands that delete their operands: a delete is an edit, asked under `edit` like a write. */
export const DELETING_COMMANDS: ReadonlySet<string> = set("rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put")
const WRITE_ALL = set("tee", "truncate", "touch", ...DELETING_COMMANDS)

/** Device files that are never workspace paths: `> /dev/null`, `2> /dev/stderr`. */
export const isDevice = (path: string): boolean =>
  /^\/dev\/(null|zero|random|urandom|stdin|stdout|stderr|tty|fd\/\d+)$/.test(path) ||
  /^\/proc\/self\/fd\/\d+$/.test(path)

const PARENT_SEGMENT = /(^|\/)\.\.(\/|$)/

/**
 * Looks like a path whatever the command: absolute, home-relative, explicitly relative, or with a
 * `..` segment anywhere (`sub/../../x`).
 */
export const looksLikePath = (value: string): boolean =>
  !value.includes("://") &&
  (value.startsWith("/") || value.startsWith("~") || value.startsWith("./") || value === "." ||
    PARENT_SEGMENT.test(value))

const isOption = (w: Word) => w.value.startsWith("-") && w.value !== "-" && !w.dynamic

/** Operands (non-options) of a command, honouring `--` and options with separate values. */
const operands = (name: string, args: ReadonlyArray<Word>) => {
  const values = VALUES[name] ?? set()
  const result: Array<Word> = []
  const options: Array<{ readonly name: string; readonly value: Word | undefined }> = []
  let ended = false
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    if (!ended && w.value === "--") {
      ended = true
      continue
    }
    if (ended || !isOption(w)) {
      result.push(w)
      continue
    }
    if (values.has(w.value)) {
      options.push({ name: w.value, value: args[i + 1] })
      i++
    } else if (w.value.startsWith("--")) {
      const eq = w.value.indexOf("=")
      const name = eq < 0 ? w.value : w.value.slice(0, eq)
      options.push({ name, value: eq < 0 || !values.has(name) ? undefined : { ...w, value: w.value.slice(eq + 1) } })
    } else {
      // `-rf FILE` is `-r -f FILE`; `-n5` is `-n 5`: a flag that takes a value ends the cluster.
      for (let j = 1; j < w.value.length; j++) {
        const flag = `-${w.value[j]}`
        if (!/[A-Za-z0-9]/.test(w.value[j]!)) break // `-i.bak`: the rest is the previous flag's suffix
        if (!values.has(flag)) {
          options.push({ name: flag, value: undefined })
          continue
        }
        const rest = w.value.slice(j + 1)
        if (rest !== "") options.push({ name: flag, value: { ...w, value: rest } })
        else {
          options.push({ name: flag, value: args[i + 1] })
          i++
        }
        break
      }
    }
  }
  return { operands: result, options }
}

/** `--out=/x` → `/x`; `-o/x` → `/x`: an option's attached value when it looks like a path. */
const attachedValue = (w: Word): Word | undefined => {
  if (w.dynamic) return undefined
  const eq = w.value.indexOf("=")
  const value = w.value.startsWith("--") && eq > 0
    ? w.value.slice(eq + 1)
    : /^-[A-Za-z]./.test(w.value)
    ? w.value.slice(2)
    : undefined
  return value !== undefined && looksLikePath(value) ? { ...w, value, text: w.text } : undefined
}

export interface CommandPaths {
  readonly paths: ReadonlyArray<PathArgument>
  /** Operands that must be paths but cannot be resolved (dynamic): the command is unanalysable. */
  readonly unresolved: ReadonlyArray<Word>
  /** Where the command makes links (`ln`, `cp -s`): later paths through them are not analysable. */
  readonly links: ReadonlyArray<Word>
}

/**
 * Paths touched by `name args` (name normalised, args after the name): its operands and option
 * values, and the files its output options write (`--output=FILE`, `curl -o FILE`).
 */
export const commandPaths = (name: string, args: ReadonlyArray<Word>): CommandPaths => {
  const found = argumentPaths(name, args)
  const outputs = outputPaths(name, args)
  if (outputs.length === 0) return found
  const paths = [...found.paths]
  const unresolved = [...found.unresolved]
  for (const o of outputs) {
    if (o.word.fd) continue
    if (o.word.dynamic) unresolved.push(o.word)
    else paths.push({ word: o.word, access: "write", kind: o.kind })
  }
  return { paths, unresolved, links: found.links }
}

const argumentPaths = (name: string, args: ReadonlyArray<Word>): CommandPaths => {
  const paths: Array<PathArgument> = []
  const unresolved: Array<Word> = []
  const links: Array<Word> = []
  const add = (word: Word | undefined, access: Access, kind: Kind = "any") => {
    if (word === undefined || word.fd || word.value === "-" || word.value === "") return
    if (word.dynamic) unresolved.push(word)
    else paths.push({ word, access, kind })
  }

  if (name === "echo" || name === "printf") return { paths, unresolved, links }
  if (name === "dd") {
    for (const w of args) {
      if (w.value.startsWith("of=")) add({ ...w, value: w.value.slice(3) }, "write")
      else if (w.value.startsWith("if=")) add({ ...w, value: w.value.slice(3) }, "read")
    }
    return { paths, unresolved, links }
  }
  if (!FILE_COMMANDS.has(name)) {
    for (const w of args) {
      const value = isOption(w) ? attachedValue(w) : looksLikePath(w.value) ? w : assignedValue(w)
      if (value !== undefined && !value.dynamic && !value.fd && looksLikePath(value.value)) add(value, "read")
    }
    return { paths, unresolved, links }
  }

  const { operands: ops, options } = operands(name, args)
  // Options whose values are files: `sort -o out`, `cp -t dir`, `grep -f patterns`, `touch -r ref`.
  for (const o of options) {
    if (DESTINATION_LAST.has(name) && (o.name === "-t" || o.name === "--target-directory")) add(o.value, "write", "directory")
    if (PATTERN_FIRST.has(name) && (o.name === "-f" || o.name === "--file" || o.name === "--from-file")) add(o.value, "read")
    if (o.name === "-r" || o.name === "--reference") {
      if (name === "touch" || name === "truncate") add(o.value, "read")
    }
  }
  for (const a of args) {
    const attached = isOption(a) ? attachedValue(a) : undefined
    if (attached !== undefined) add(attached, "read")
  }

  let files = ops
  if (PATTERN_FIRST.has(name) && !options.some((o) => PATTERN_OPTIONS.has(o.name))) files = ops.slice(1)
  if (name === "chmod" || name === "chown" || name === "chgrp") {
    const reference = options.some((o) => o.name === "--reference")
    files = reference ? ops : ops.slice(1) // the mode or owner comes first
  }
  const inPlace = name === "sed" &&
    options.some((o) => o.name === "--in-place" || (!o.name.startsWith("--") && /^-[a-zA-Z]*i/.test(o.name)))
  const kind: Kind = name === "cd" || name === "pushd" ? "directory" : "any"
  const targetOption = options.some((o) => o.name === "-t" || o.name === "--target-directory")
  const linking = name === "ln" || name === "link" ||
    (name === "cp" && options.some((o) => o.name === "-s" || o.name === "-l" || o.name === "--symbolic-link" || o.name === "--link"))
  const targetDirectory = options.find((o) => o.name === "-t" || o.name === "--target-directory")?.value
  // Where links are made: the -t directory, the last operand, or (one operand) the current directory.
  const destination = targetDirectory ?? (files.length > 1 ? files.at(-1) : undefined)
  if (linking) links.push(destination ?? { ...files[0]!, value: basename(files[0]?.value ?? ".") })
  files.forEach((w, i) => {
    const last = i === files.length - 1
    let access: Access = "read"
    if (WRITE_ALL.has(name) || inPlace) access = "write"
    else if (DESTINATION_LAST.has(name)) access = (last && !targetOption && files.length > 1) || name === "mv" ? "write" : "read"
    const source = access === "read" && destination !== undefined && w !== destination
    if (name === "ln" && source && !w.dynamic && !w.value.startsWith("/") && symbolic(options)) {
      // A relative symlink target is resolved from the link's directory, not from here: the link is
      // `destination` itself, or (when that is a directory) a new entry inside it.
      const base = targetDirectory === undefined ? [parentOf(destination.value), destination.value] : [destination.value]
      for (const dir of base) add({ ...w, value: `${dir}/${w.value}` }, "read")
      return
    }
    add(w, access, kind)
  })
  return { paths, unresolved, links }
}

const symbolic = (options: ReadonlyArray<{ readonly name: string }>) =>
  options.some((o) => o.name === "-s" || o.name === "--symbolic")

const basename = (value: string) => value.replace(/\/+$/, "").split("/").at(-1) || value

/** The directory part of a relative or absolute path as written (`a/b` → `a`, `b` → `.`). */
const parentOf = (value: string) => {
  const trimmed = value.replace(/\/+$/, "")
  const slash = trimmed.lastIndexOf("/")
  return slash < 0 ? "." : slash === 0 ? "/" : trimmed.slice(0, slash)
}

/** `OUT=../x` (a make variable, an `npm` config): the value, when the word assigns one. */
const assignedValue = (w: Word): Word | undefined => {
  const eq = w.value.indexOf("=")
  return eq > 0 && !w.value.startsWith("-") ? { ...w, value: w.value.slice(eq + 1) } : undefined
}

/**
 * An absolute path as the kernel will walk it: empty and `.` segments dropped, `..` kept
 * (`/a/./link/../c` → `/a/link/../c`). Folding `link/..` away here would be wrong when `link` is a
 * symlink: the kernel follows the link first, so Workspace resolves `..` against the real path.
 */
export const kernelPath = (path: string): string => {
  const out: Array<string> = []
  for (const part of path.split("/")) if (part !== "" && part !== ".") out.push(part)
  return "/" + out.join("/")
}

/**
 * Lexical POSIX normalisation of an absolute path (`/a/./b/../c` → `/a/c`): what `cd` does to
 * `$PWD` (bash's default logical mode), and how paths are compared before they exist.
 */
export const normalize = (path: string): string => {
  const out: Array<string> = []
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") out.pop()
    else out.push(part)
  }
  return "/" + out.join("/")
}

/**
 * The absolute path a word names in `cwd`; a glob (`src/*.ts`, `a{,.bak}`) names its directory.
 * Undefined when the word is relative and the directory is unknown.
 */
export const resolvePath = (
  word: Word,
  cwd: string | undefined
): { readonly path: string; readonly glob: boolean } | undefined => {
  let value = word.value
  let glob = false
  if (word.glob) {
    const at = value.search(/[*?[{]/)
    if (at >= 0) {
      const head = value.slice(0, at)
      const slash = head.lastIndexOf("/")
      value = slash < 0 ? "." : head.slice(0, slash) || "/"
      glob = true
    }
  }
  if (value.startsWith("/")) return { path: kernelPath(value), glob }
  if (cwd === undefined) return undefined
  return { path: kernelPath(`${cwd}/${value}`), glob }
}
