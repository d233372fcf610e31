/**
 * What a bash command's analysis records besides its commands: the paths it touches (absolute,
 * `..` kept for Workspace to resolve after symlinks), the links and files it makes (a later path
 * through such a link, or a run of such a file, is code or a place nobody saw), the working
 * directory `cd`, `pushd` and `popd` move to, and what it cannot see through (`unsupported`).
 */
import type { PathSource, PathUse } from "./analysisTypes.ts"
import { sedEffects, sedScripts } from "./code.ts"
import { clip, type Context, literalWord, type State } from "./walkState.ts"
import { type Access, commandPaths, isDevice, type Kind, NO_PATH_ARGUMENTS, normalize, resolvePath } from "./paths.ts"
import type { Word } from "./words.ts"

export class PathLog {
  readonly paths: Array<PathUse> = []
  readonly unsupported: Array<string> = []
  /** Where the script makes links (lexically normalised): the kernel will follow them, unseen. */
  readonly links: Array<string> = []
  /**
   * Files the script writes (lexically normalised), and whether anything under it may be written
   * too (`tar -x -C dir`): running one later runs code nobody read.
   */
  readonly written: Array<{ readonly path: string; readonly tree: boolean }> = []
  /** `set -P`: every later `cd` resolves physically, like `cd -P`. */
  protected physical = false
  private readonly reasons = new Set<string>()
  protected readonly home: string

  constructor(home: string) {
    this.home = home
  }

  /** Records what cannot be seen through (once per reason): the whole command is then asked. */
  unsupport(reason: string) {
    if (this.reasons.has(reason)) return
    this.reasons.add(reason)
    this.unsupported.push(reason)
  }

  /** `bash s.sh`, `. s.sh`, `./s.sh` after the same command wrote `s.sh`: code nobody read runs. */
  runsWritten(file: Word, name: string, cwd: string | undefined) {
    if (file.dynamic || this.written.length === 0) return
    const at = resolvePath(file, cwd)
    if (at === undefined) return
    const path = normalize(at.path)
    if (this.written.some((w) => path === w.path || (w.tree && path.startsWith(w.path === "/" ? w.path : `${w.path}/`)))) {
      this.unsupport(`${name} runs ${clip(file.text)}, which this command writes: its code is not seen`)
    }
  }

  cd(name: string, args: ReadonlyArray<Word>, text: string, state: State) {
    const physical = this.physical || args.some((w) => /^-[LPe@]*P[LPe@]*$/.test(w.value))
    const operands = args.filter((w) => !(w.value.startsWith("-") && w.value.length > 1 && !w.dynamic))
    if (name === "popd") {
      state.cwd = state.stack.length > 0 ? state.stack.pop() : undefined
      return
    }
    if (name === "pushd") state.stack.push(state.cwd)
    const target = operands[0]
    if (target === undefined) {
      state.cwd = name === "pushd" ? undefined : this.home // `pushd` alone swaps the top two
      return
    }
    if (target.value === "-") {
      state.cwd = undefined
      return
    }
    if (target.dynamic) {
      this.unsupport(`${name} to a directory only known at run time: ${clip(target.text)}`)
      state.cwd = undefined
      return
    }
    if (physical) {
      // `cd -P link/..` goes to the parent of the link's target: past a `..`, where it lands
      // depends on the links before it, so the directory is no longer known.
      const path = this.path(target, "read", "directory", "cd", text, state.cwd)
      state.cwd = path === undefined || /\/\.\.(\/|$)/.test(path) ? undefined : path
      if (state.cwd === undefined) this.unsupport(`${name} -P ${clip(target.text)} resolves links: the directory is only known at run time`)
      return
    }
    // bash's `cd` is logical: `cd link/..` folds `link/..` away before it changes directory.
    state.cwd = this.path(target, "read", "directory", "cd", text, state.cwd, true)
  }

  /** Records a path use; returns the absolute path (undefined when it cannot be resolved). */
  path(
    word: Word,
    access: Access,
    kind: Kind,
    source: PathSource,
    command: string,
    cwd: string | undefined,
    logical = false
  ) {
    const resolved = resolvePath(word, cwd)
    if (resolved === undefined) {
      this.unsupport(`${clip(word.text)} is relative to a directory only known at run time`)
      return undefined
    }
    const path = logical ? normalize(resolved.path) : resolved.path
    if (this.links.length > 0) {
      const lexical = normalize(path)
      if (this.links.some((l) => lexical === l || lexical.startsWith(l === "/" ? l : `${l}/`))) {
        this.unsupport(`${clip(word.text)} may go through a link made earlier in the same command`)
      }
    }
    if (access === "write") this.written.push({ path: normalize(path), tree: kind === "directory" || resolved.glob })
    if (!isDevice(path)) {
      this.paths.push({ input: word.text, path, access, kind: resolved.glob ? "directory" : kind, source, command })
    }
    return path
  }

  /** Files a sed script writes (`w`, `s///w`) and reads (`r`). */
  sed(values: ReadonlyArray<string>, text: string, cwd: string | undefined) {
    for (const script of sedScripts(values).scripts) {
      const { reads, writes } = sedEffects(script)
      for (const file of writes) this.path(literalWord(file), "write", "any", "argument", text, cwd)
      for (const file of reads) this.path(literalWord(file), "read", "any", "argument", text, cwd)
    }
  }

  /** The paths among a command's arguments. */
  arguments(name: string, args: ReadonlyArray<Word>, text: string, ctx: Context) {
    const relevant = ctx.placeholders ? args.filter((w) => !w.value.includes("{}")) : args
    if (ctx.stdinArguments && !NO_PATH_ARGUMENTS.has(name)) {
      this.unsupport(`${ctx.via.at(-1) ?? "xargs"} passes ${name} arguments that cannot be checked`)
    }
    const { paths, unresolved, links } = commandPaths(name, relevant)
    for (const w of unresolved) this.unsupport(`${name}: the path ${clip(w.text)} is only known at run time`)
    for (const p of paths) this.path(p.word, p.access, p.kind, "argument", text, ctx.state.cwd)
    for (const link of links) {
      const at = link.dynamic ? undefined : resolvePath(link, ctx.state.cwd)
      if (at === undefined) this.unsupport(`${name} makes a link whose place is only known at run time: ${clip(link.text)}`)
      else this.links.push(normalize(at.path))
    }
  }
}
