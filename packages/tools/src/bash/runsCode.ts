/**
 * Programs that run a command or load code named in an option or an argument, which the analysis
 * does not parse: `tar --to-command`, `ssh -o ProxyCommand`, `vim -c '!…'`, `zip -TT`, `split
 * --filter`, `sqlite3 .shell`, `socat EXEC:`, `make --eval`, `git fetch --upload-pack`, `node
 * --import data:…`. One table, one entry per program: given the command's arguments (quotes
 * removed), the reason it runs unseen code, or undefined when this use of it does not.
 *
 * A program that runs a file of the workspace (`make`, `npm test`, `python3 tool.py`) stays an
 * ordinary command: the file is the workspace's, like any script it holds.
 */

type Check = (values: ReadonlyArray<string>) => string | undefined

/** `--name`, `--name=value`, `-x` or `-xvalue` among `values` (short options also late in a cluster). */
const hasOption = (values: ReadonlyArray<string>, long: ReadonlyArray<string>, short: ReadonlyArray<string> = []) =>
  values.some((v) =>
    long.some((l) => v === l || v.startsWith(`${l}=`)) ||
    short.some((s) => v === s || (v.startsWith(s) && !v.startsWith("--")))
  )

/** The value of `-o KEY=VALUE` / `-oKEY=VALUE` options (ssh and its relatives), keys lowercased. */
const sshOptions = (values: ReadonlyArray<string>): ReadonlyArray<string> => {
  const keys: Array<string> = []
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    const setting = v === "-o" ? values[++i] : v.startsWith("-o") ? v.slice(2) : undefined
    if (setting !== undefined) keys.push(setting.split(/[=\s]/)[0]!.toLowerCase())
  }
  return keys
}

/** ssh options whose value is a command run here (or that enable one). */
const SSH_CODE_KEYS = new Set(["proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match"])

const ssh = (name: string): Check => (values) => {
  const key = sshOptions(values).find((k) => SSH_CODE_KEYS.has(k))
  if (key !== undefined) return `${name} -o ${key} runs a local command`
  // A configuration file of the workspace's choosing can hold the same settings.
  if (hasOption(values, [], ["-F"])) return `${name} -F reads a configuration that can run local commands`
  // `scp -S prog`, `sftp -S prog`: the program used instead of ssh.
  if (name !== "ssh" && hasOption(values, [], ["-S"])) return `${name} -S runs another program instead of ssh`
  return undefined
}

const TAR_COMMAND_OPTIONS = [
  "--to-command", "--checkpoint-action", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command"
]

const tar: Check = (values) => {
  if (hasOption(values, TAR_COMMAND_OPTIONS)) return "tar runs a command given in its options"
  // `-I PROG` / `-F SCRIPT`, alone or in a cluster (`-xIf`), and the old style (`tar xIf`).
  const first = values[0] ?? ""
  const clusters = values.filter((v) => /^-[A-Za-z]+/.test(v) && !v.startsWith("--"))
  if (/^[A-Za-z]+$/.test(first) && /[IF]/.test(first)) clusters.push(`-${first}`)
  if (clusters.some((v) => /^-[A-Za-z]*[IF]/.test(v))) return "tar -I / -F runs a program given in its options"
  return undefined
}

/** `rsync -e ssh` (with a port) is the usual remote shell; any other is a program of the caller's choosing. */
const rsync: Check = (values) => {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (v === "--rsync-path" || v.startsWith("--rsync-path=")) return "rsync --rsync-path runs another program"
    const shell = v === "-e" || v === "--rsh" ? values[i + 1] : v.startsWith("--rsh=") ? v.slice(6) : /^-e./.test(v) ? v.slice(2) : undefined
    if (shell !== undefined && !/^ssh(\s+-p\s*\d+)?$/.test(shell)) return "rsync -e runs another program as its remote shell"
  }
  return undefined
}

const EDITORS_CODE = (name: string): Check => (values) => {
  for (const v of values) {
    if (v === "-c" || v === "--cmd" || v === "-S" || v === "-s" || v === "-u") {
      return `${name} ${v} runs editor commands, which can run shell commands`
    }
    // `+cmd` runs an Ex command; `+`, `+N` and `+/pattern` only place the cursor (a `|` would
    // start another command).
    if (v.startsWith("+") && !/^\+(\d*|\/[^|\n]*)$/.test(v)) return `${name} ${v} runs an editor command, which can run shell commands`
  }
  return undefined
}

/** `git SUB rest…` (global options already skipped): why the subcommand runs a command it is given. */
export const gitSubcommandCode = (sub: string | undefined, rest: ReadonlyArray<string>): string | undefined => {
  if ((sub === "ls-remote" || sub === "clone") && hasOption(rest, ["--upload-pack"], ["-u"])) return `git ${sub} --upload-pack runs a command`
  if ((sub === "fetch" || sub === "pull") && hasOption(rest, ["--upload-pack"])) return `git ${sub} --upload-pack runs a command`
  if (sub === "push" && hasOption(rest, ["--receive-pack", "--exec"])) return "git push --receive-pack runs a command"
  if (sub === "archive" && hasOption(rest, ["--exec", "--remote"])) return "git archive --exec / --remote runs a command"
  if (sub === "grep" && hasOption(rest, ["--open-files-in-pager"], ["-O"])) return "git grep -O runs a pager command"
  return undefined
}

const sqlite: Check = (values) => {
  if (values.includes("-safe")) return undefined
  if (hasOption(values, ["-cmd", "-init", "--cmd", "--init"])) return "sqlite3 -cmd / -init runs dot commands, which can run shell commands"
  const operands = values.filter((v) => !v.startsWith("-"))
  const sql = operands.slice(1)
  // Dot commands (`.shell`, `.system`, `.output`, `.load`) in an argument, or SQL loading an extension.
  if (sql.some((s) => /(^|\n)\s*\./.test(s) || /load_extension/i.test(s))) return "sqlite3 runs dot commands, which can run shell commands"
  if (sql.length === 0) return "sqlite3 reads commands from standard input, which can run shell commands"
  return undefined
}

/** Package runners: the package they run is fetched or resolved at run time, its code unseen. */
export const PACKAGE_RUNNER = "runs a package whose code the analysis cannot see"

const npmLike = (name: string, subcommands: ReadonlyArray<string>): Check => (values) => {
  const sub = values.find((v) => !v.startsWith("-"))
  return sub !== undefined && subcommands.includes(sub) ? `${name} ${sub} ${PACKAGE_RUNNER}` : undefined
}

/** node options that load a module before the script: its code is not in the command line. */
const NODE_PRELOAD = ["--import", "--require", "--loader", "--experimental-loader", "--env-file", "--env-file-if-exists"]

const node: Check = (values) => {
  for (const v of values) {
    if (!v.startsWith("-")) return undefined // the script: what follows are its arguments
    if (NODE_PRELOAD.some((o) => v === o || v.startsWith(`${o}=`)) || v === "-r" || (v.startsWith("-r") && !v.startsWith("--"))) {
      return `node ${v.split("=")[0]} loads code before the script`
    }
  }
  return undefined
}

/** The makefile `make` reads: `-f FILE`, or undefined for the default (`Makefile` in the directory). */
export const makefileOf = (values: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (v === "-f" || v === "--file" || v === "--makefile") return values[i + 1]
    if (v.startsWith("--file=") || v.startsWith("--makefile=")) return v.slice(v.indexOf("=") + 1)
    if (/^-f./.test(v)) return v.slice(2)
  }
  return undefined
}

/** `make` runs the workspace's makefile, an ordinary command; inline or piped make code is not. */
const make = (name: string): Check => (values) => {
  if (hasOption(values, ["--eval"], ["-E"])) return `${name} --eval runs inline make code`
  const file = makefileOf(values)
  if (file === "-" || (file !== undefined && /^\/dev\/(stdin|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/.test(file))) {
    return `${name} reads its makefile from standard input`
  }
  return undefined
}

const always = (reason: string): Check => () => reason

export const RUNS_CODE: Record<string, Check> = {
  tar,
  gtar: tar,
  ssh: ssh("ssh"),
  scp: ssh("scp"),
  sftp: ssh("sftp"),
  rsync,
  vim: EDITORS_CODE("vim"),
  vi: EDITORS_CODE("vi"),
  nvim: EDITORS_CODE("nvim"),
  ex: EDITORS_CODE("ex"),
  view: EDITORS_CODE("view"),
  vimdiff: EDITORS_CODE("vimdiff"),
  gvim: EDITORS_CODE("gvim"),
  zip: (values) => hasOption(values, ["--unzip-command"], ["-TT"]) ? "zip -TT runs a command to test the archive" : undefined,
  split: (values) => hasOption(values, ["--filter"]) ? "split --filter runs a command" : undefined,
  sqlite3: sqlite,
  socat: (values) =>
    values.some((v) => /(^|!!)(exec|system)[:,]/i.test(v)) ? "socat EXEC: / SYSTEM: runs a command" : undefined,
  make: make("make"),
  gmake: make("gmake"),
  node,
  nodejs: node,
  bun: (values) =>
    hasOption(values, ["--preload", "--require", "--import"], ["-r"])
      ? "bun --preload loads code before the script"
      : npmLike("bun", ["x"])(values),
  setarch: always("setarch runs a command whose position depends on its options"),
  sg: always("sg runs a command through a shell as another group"),
  tmux: always("tmux runs commands in a terminal server, out of sight"),
  screen: always("screen runs commands in a terminal session, out of sight"),
  npx: always(`npx ${PACKAGE_RUNNER}`),
  bunx: always(`bunx ${PACKAGE_RUNNER}`),
  npm: npmLike("npm", ["exec", "x"]),
  pnpm: npmLike("pnpm", ["dlx"]),
  yarn: npmLike("yarn", ["dlx"])
}

/** Why `name values…` runs code named in its options or arguments; undefined when it does not. */
export const runsCode = (name: string, values: ReadonlyArray<string>): string | undefined =>
  Object.hasOwn(RUNS_CODE, name) ? RUNS_CODE[name]!(values) : undefined
