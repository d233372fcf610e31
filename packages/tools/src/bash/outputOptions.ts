/**
 * Options that name a file (or a directory) a command writes: `git log --output=FILE`, `curl -o
 * FILE`, `wget -O FILE`, `gcc -o FILE`, `tar -cf FILE`, `git format-patch -o DIR`. One table, per
 * program; their values are write path uses, so `edit` and `external_directory` apply to them as
 * to a redirect.
 *
 * A short option's value may be attached (`-oout`) or the next word; it may close a cluster of
 * flags (`curl -sSLo out`). A long option's value is `--opt=VALUE` or the next word.
 */
import type { Word } from "./words.ts"
import type { Kind } from "./paths.ts"

interface OutputSpec {
  /** Short options (`-o`) whose value is written. */
  readonly short?: ReadonlyArray<string>
  /** Long options (`--output`) whose value is written. */
  readonly long?: ReadonlyArray<string>
  /**
   * How a short option's value may be written: `word` only as the next word (`javac -d DIR`, where
   * `-deprecation` is another option); `attached` also as `-oFILE` (the default); `cluster` also
   * closing a cluster of one-letter flags (`curl -sSLo FILE`, `tar -czf FILE`).
   */
  readonly style?: "word" | "attached" | "cluster"
  /** The value names a directory the command writes into (`git format-patch -o DIR`). */
  readonly directory?: boolean
  /** Only for this subcommand (`git format-patch`), or when this holds of the arguments. */
  readonly when?: (values: ReadonlyArray<string>) => boolean
}

/** Options any command may have that only ever name a file it writes. */
const ANY_COMMAND: OutputSpec = { long: ["--log-file", "--logfile", "--output-file", "--outfile", "--out-file"] }

const compiler: ReadonlyArray<OutputSpec> = [{ short: ["-o"] }]

/** git's options before the subcommand that take a separate value. */
const GIT_GLOBAL_VALUES = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"])

/** The subcommand is one of `names` (`git -C dir format-patch …`: global options skipped). */
const subcommand = (...names: ReadonlyArray<string>) => (values: ReadonlyArray<string>) => {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (GIT_GLOBAL_VALUES.has(v)) i++
    else if (!v.startsWith("-")) return names.includes(v)
  }
  return false
}

/** tar creating, appending or updating an archive writes the `-f` file. */
const tarWrites = (values: ReadonlyArray<string>) => {
  const first = values[0] ?? ""
  return values.some((v) => ["--create", "--append", "--update", "--concatenate"].includes(v)) ||
    values.some((v) => /^-[A-Za-z]*[cruA]/.test(v) && !v.startsWith("--")) ||
    (/^[A-Za-z]+$/.test(first) && /[cruA]/.test(first))
}

/** tar extracting writes into `-C DIR`, or the current directory. */
const tarExtracts = (values: ReadonlyArray<string>) => {
  const first = values[0] ?? ""
  return values.some((v) => v === "--extract" || v === "--get") ||
    values.some((v) => /^-[A-Za-z]*x/.test(v) && !v.startsWith("--")) ||
    (/^[A-Za-z]+$/.test(first) && first.includes("x"))
}

export const OUTPUT_OPTIONS: Record<string, ReadonlyArray<OutputSpec>> = {
  git: [
    // The diff family (log, show, diff, format-patch…) writes its output to `--output`.
    { long: ["--output"] },
    { short: ["-o"], long: ["--output-directory"], directory: true, when: subcommand("format-patch") },
    { short: ["-o"], when: subcommand("archive") }
  ],
  curl: [
    {
      short: ["-o", "-D", "-c"],
      style: "cluster",
      long: ["--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save",
        "--hsts", "--alt-svc"]
    },
    { long: ["--output-dir"], directory: true }
  ],
  wget: [
    { short: ["-O", "-o", "-a"], style: "cluster", long: ["--output-document", "--output-file", "--append-output", "--save-cookies"] },
    { short: ["-P"], style: "cluster", long: ["--directory-prefix"], directory: true }
  ],
  sort: [{ short: ["-o"], style: "cluster", long: ["--output"] }],
  gcc: compiler,
  "g++": compiler,
  cc: compiler,
  "c++": compiler,
  clang: compiler,
  "clang++": compiler,
  ld: compiler,
  rustc: [{ short: ["-o"] }, { long: ["--out-dir"], directory: true }],
  go: [{ short: ["-o"], when: subcommand("build", "test") }],
  javac: [{ short: ["-d"], style: "word", directory: true }],
  tsc: [{ long: ["--outFile"] }, { long: ["--outDir", "--declarationDir"], directory: true }],
  esbuild: [{ long: ["--outfile"] }, { long: ["--outdir"], directory: true }],
  pandoc: [{ short: ["-o"], long: ["--output"] }],
  patch: [{ short: ["-o"], long: ["--output"] }],
  openssl: [{ short: ["-out"] }],
  tar: [
    { short: ["-f"], style: "cluster", long: ["--file"], when: tarWrites },
    { short: ["-C"], style: "cluster", long: ["--directory"], directory: true, when: tarExtracts }
  ],
  time: [{ short: ["-o"], long: ["--output"] }],
  strace: [{ short: ["-o"], long: ["--output"] }],
  ltrace: [{ short: ["-o"], long: ["--output"] }],
  npm: [{ long: ["--pack-destination"], directory: true }],
  pnpm: [{ long: ["--pack-destination"], directory: true }],
  "ssh-keygen": [{ short: ["-f"], style: "word" }]
}

export interface OutputPath {
  readonly word: Word
  readonly kind: Kind
}

/** The value of `option` at `args[i]`, attached or in the next word; undefined when `args[i]` is not it. */
const valueOf = (args: ReadonlyArray<Word>, i: number, spec: OutputSpec): Word | undefined => {
  const w = args[i]!
  const v = w.value
  for (const long of spec.long ?? []) {
    if (v === long) return args[i + 1]
    if (v.startsWith(`${long}=`)) return { ...w, value: v.slice(long.length + 1) }
  }
  if (v.startsWith("--")) return undefined
  const style = spec.style ?? "attached"
  for (const short of spec.short ?? []) {
    if (v === short) return args[i + 1]
    if (style === "word" || short.length > 2) continue // `-out`: a word-long option
    if (style === "attached") {
      if (v.startsWith(short)) return { ...w, value: v.slice(short.length) }
      continue
    }
    // `-oFILE`, or a cluster of flags closed by it (`-sSLo FILE`, `-czf FILE`).
    const at = v.indexOf(short[1]!, 1)
    if (!/^-[A-Za-z]/.test(v) || at < 0) continue
    if (!/^[A-Za-z]*$/.test(v.slice(1, at))) continue
    const rest = v.slice(at + 1)
    return rest === "" ? args[i + 1] : { ...w, value: rest }
  }
  return undefined
}

/**
 * The files and directories `name args…` writes through its output options (`args` after the
 * name). The tar directory written when extracting with no `-C` is the current directory.
 */
export const outputPaths = (name: string, args: ReadonlyArray<Word>): ReadonlyArray<OutputPath> => {
  const values = args.map((w) => w.value)
  const specs = [ANY_COMMAND, ...(OUTPUT_OPTIONS[name] ?? [])].filter((s) => s.when === undefined || s.when(values))
  const found: Array<OutputPath> = []
  for (let i = 0; i < args.length; i++) {
    if (args[i]!.value === "--") break
    for (const spec of specs) {
      const value = valueOf(args, i, spec)
      if (value !== undefined && value.value !== "-" && value.value !== "") {
        found.push({ word: value, kind: spec.directory === true ? "directory" : "any" })
      }
    }
  }
  if (name === "tar" && tarExtracts(values) && !found.some((f) => f.kind === "directory")) {
    found.push({ word: { text: ".", value: ".", dynamic: false, glob: false, fd: false }, kind: "directory" })
  }
  return found
}
