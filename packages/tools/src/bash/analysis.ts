/**
 * The permission analysis of a bash command, pure and synchronous once the parser is loaded: which
 * commands can run (each part of every chain, substitution, subshell, loop, function and wrapper),
 * the `bash` patterns and `always` patterns for them, and the paths they touch (arguments after
 * brace expansion, redirect targets, `cd` effects), made absolute against the tracked working
 * directory with their `..` segments kept for Workspace to resolve after symlinks.
 *
 * Anything it cannot see through (a syntax error, a command name known only at run time, a path
 * argument built from variables, `cd $X`, `cd -P` past a `..`, code read from stdin, inline
 * interpreter code and programs running a command named in an option (`code.ts`, `runsCode.ts`),
 * text bash itself evaluates as code (`shellEval.ts`), a script the command wrote and then runs,
 * arguments `xargs` reads, a path through a link the script made) is listed in `unsupported`: the
 * tool then asks for the whole command text and never lets a rule allow it silently.
 *
 * The work is linear in the size of the command; `analyzeBounded` refuses commands over
 * `MAX_COMMAND_BYTES` and nesting past `MAX_NESTING` with a BashAnalysisError.
 */
import * as Effect from "effect/Effect"
import type { Node, TreeCursor } from "./syntax.ts"
import { expandBraces, MAX_BRACE_WORDS, wordFromText } from "./braces.ts"
import { codeVariable, hiddenCode, scriptFiles } from "./code.ts"
import { ALIAS_REASON, aliasDefinitions, promptExpansion, subscriptCode, testSubscriptCode } from "./shellEval.ts"
import type { SyncParser } from "./parser.ts"
import type { Analysis, Command, Options } from "./analysisTypes.ts"
import { BashAnalysisError, MAX_NESTING, nestingError, sizeError } from "./bounds.ts"
import { clip, type Context, copy, errorSnippet, isUnsafe, joinTexts, literalWord, MAX_DEPTH, type State, unique } from "./walkState.ts"
import { PathLog } from "./pathLog.ts"
import { type Access, MODIFYING_COMMANDS, normalize } from "./paths.ts"
import { outputPaths } from "./outputOptions.ts"
import { exact, forms, SAFE_ENV, SYSTEM_BIN } from "./patterns.ts"
import { evaluate, evaluateLeaf, isLeafWord, type LeafWord, makeWord, type Word } from "./words.ts"
import { assignmentName, findParts, UNSUPPORTED_NAMES, unwrap, WRAPPER_NAMES } from "./wrappers.ts"

export type { Analysis, Command, Options, PathSource, PathUse } from "./analysisTypes.ts"
export { BashAnalysisError, MAX_COMMAND_BYTES, MAX_NESTING, sizeError } from "./bounds.ts"

class Walker extends PathLog {
  readonly commands: Array<Command> = []
  readonly functions = new Set<string>()
  private depth = 0
  /** Inside code run by `xargs` (`xargs sh -c '…'`): its arguments arrive unseen. */
  private unseenArguments = 0

  private readonly parser: SyncParser

  constructor(parser: SyncParser, home: string) {
    super(home)
    this.parser = parser
  }

  /** Parses and walks a script (the top level, or the code of `bash -c`, `eval`, …). */
  script(source: string, state: State) {
    if (this.depth >= MAX_DEPTH) return this.unsupport(`scripts nested more than ${MAX_DEPTH} levels deep`)
    this.depth++
    try {
      this.parser.withTree(source, (tree) => {
        if (tree === null) return this.unsupport("the command could not be parsed")
        const outer = this.clean
        const outerCursor = this.cursor
        const outerSource = this.source
        this.clean = !tree.rootNode.hasError
        this.cursor = tree.walk()
        this.source = source
        try {
          if (!this.clean) this.unsupport(`syntax error near: ${errorSnippet(tree.rootNode)}`)
          this.walk(tree.rootNode, state)
        } finally {
          this.cursor.delete()
          this.clean = outer
          this.cursor = outerCursor
          this.source = outerSource
        }
      })
    } finally {
      this.depth--
    }
  }

  /** The tree being walked has no error anywhere: no node needs its own `hasError` check. */
  private clean = true
  /** The text of the tree being walked. */
  private source = ""
  /** One cursor per tree being walked, reset onto each command. */
  private cursor: TreeCursor | undefined
  /** How deep the walk is, in syntax levels and wrappers. */
  private level = 0

  walk(node: Node, state: State): void {
    if (++this.level > MAX_NESTING) throw nestingError()
    try {
      this.walkNode(node, state)
    } finally {
      this.level--
    }
  }

  private walkNode(node: Node, state: State): void {
    switch (node.type) {
      case "command":
        return this.command(node, state)
      case "subshell":
      case "command_substitution":
      case "process_substitution":
        return this.children(node, copy(state))
      case "pipeline":
        // Each element runs in its own subshell: a `cd` there does not last.
        for (const child of this.kids(node, false)) this.walk(child, copy(state))
        return
      case "redirected_statement": {
        for (const r of node.childrenForFieldName("redirect")) this.redirect(r, state, node.text)
        const body = node.childForFieldName("body")
        if (body !== null) this.walk(body, state)
        return
      }
      case "function_definition": {
        const name = node.childForFieldName("name")
        if (name !== null) this.functions.add(name.text)
        const body = node.childForFieldName("body")
        if (body !== null) this.walk(body, copy(state))
        return
      }
      case "variable_assignment":
        return this.assignment(node, state, false)
      case "declaration_command": {
        const named = this.kids(node, false)
        const exported = node.firstChild?.type === "export" ||
          named.some((c) => c.type === "word" && /^-[a-zA-Z]*x/.test(c.text))
        const env = { home: this.home, cwd: state.cwd }
        const operands = named.filter((c) => c.type !== "variable_assignment").map((c) => evaluate(c, env).value)
        const subscript = subscriptCode("declare", operands)
        if (subscript !== undefined) this.unsupport(subscript)
        for (const child of named) {
          if (child.type === "variable_assignment") this.assignment(child, state, exported)
          else this.walk(child, state)
        }
        return
      }
      case "expansion": {
        const prompt = promptExpansion(node.text)
        if (prompt !== undefined) this.unsupport(prompt)
        return this.children(node, state)
      }
      case "test_command": {
        const subscript = testSubscriptCode(node.text)
        if (subscript !== undefined) this.unsupport(subscript)
        return this.children(node, state)
      }
      case "ERROR":
        this.unsupport(`syntax error near: ${clip(node.text)}`)
        return this.children(node, state)
      case "word":
      case "raw_string":
      case "string_content":
      case "number":
      case "comment":
      case "simple_expansion":
      case "variable_name":
      case "heredoc_content":
        return // leaves: nothing runs inside them
      default:
        if (node.isMissing) this.unsupport(`syntax error: missing ${node.type}`)
        return this.children(node, state)
    }
  }

  children(node: Node, state: State) {
    // Named children only: the punctuation in between runs nothing. A subtree with an error is
    // walked in full, so a missing `fi` or `)` is reported.
    for (const child of this.kids(node, !this.clean && node.hasError)) this.walk(child, state)
  }

  /**
   * The children of `node` (named only, unless `all`), read with the tree's cursor. Unlike
   * `node.namedChildren`, which caches the child nodes on their parent so the whole tree of node
   * objects stays alive until the walk ends, these die with the walk of their parent: a large
   * script's nodes never pile up in the heap for the collector to copy again and again.
   */
  kids(node: Node, all: boolean): Array<Node> {
    const cursor = this.cursor!
    cursor.reset(node)
    const kids: Array<Node> = []
    if (cursor.gotoFirstChild()) {
      do {
        if (all || cursor.nodeIsNamed) kids.push(cursor.currentNode)
      } while (cursor.gotoNextSibling())
    }
    return kids
  }

  /** `X=1` / `export X=1` on its own: later commands inherit it when it is in the environment. */
  assignment(node: Node, state: State, exported: boolean) {
    this.assigned(node, state)
    const name = node.childForFieldName("name")?.text ?? ""
    if (SAFE_ENV.has(name)) return
    const assigned = node.childForFieldName("value")
    const evaluated = assigned === null ? undefined : evaluate(assigned, { home: this.home, cwd: undefined })
    const code = codeVariable(name, evaluated?.value ?? "", evaluated?.dynamic ?? false)
    if (code !== undefined) this.unsupport(code)
    if (!exported && !/^[A-Z_][A-Z0-9_]*$/.test(name)) return // a shell variable, not exported
    const text = node.parent?.type === "declaration_command" ? node.parent.text : node.text
    this.commands.push({ text, argv: [], patterns: [text], always: exact(text), via: [], cwd: state.cwd })
  }

  /** The code inside an assignment: its value, and the subscript of `a[$(cmd)]=…`, which bash runs. */
  assigned(node: Node, state: State) {
    const name = node.childForFieldName("name")
    if (name !== null && name.type !== "variable_name") this.walk(name, state)
    const value = node.childForFieldName("value")
    if (value !== null) this.walk(value, state)
  }

  command(node: Node, state: State) {
    const env = { home: this.home, cwd: state.cwd }
    const words: Array<Word> = []
    const assignments: Array<Word> = []
    // The tree's cursor over the children: `child(i)` and `fieldNameForChild(i)` walk the siblings
    // each time. All children are read before any is analysed (which moves the cursor again).
    const cursor = this.cursor!
    cursor.reset(node)
    // A plain word (most arguments) is read as text straight from the source: no node object.
    const children: Array<readonly [Node | string, string, string | null]> = []
    if (cursor.gotoFirstChild()) {
      do {
        if (!cursor.nodeIsNamed) continue
        const type = cursor.nodeType
        const child = isLeafWord(type) ? this.source.slice(cursor.startIndex, cursor.endIndex) : cursor.currentNode
        children.push([child, type, cursor.currentFieldName])
      } while (cursor.gotoNextSibling())
    }
    for (const [child, type, field] of children) {
      if (typeof child === "string") {
        if (field === "argument") words.push(...this.expand(evaluateLeaf(type as LeafWord, child, env)))
      } else if (type.endsWith("_redirect")) {
        this.redirect(child, state, node.text)
      } else if (type === "variable_assignment") {
        this.assigned(child, state)
        assignments.push(evaluate(child, env))
      } else {
        // Substitutions inside the words; a word without `$`, a backtick or `<(`/`>(` has none.
        if (type !== "word" && type !== "raw_string" && type !== "number" && /[$`<>]/.test(child.text)) this.walk(child, state)
        if (type === "command_name") words.push(evaluate(child, env))
        else if (field === "argument") words.push(...this.expand(evaluate(child, env)))
      }
    }
    if (words.length === 0) return
    this.simple(words, {
      state,
      outer: [],
      privileged: false,
      assignments,
      unsafeEnv: assignments.some(isUnsafe),
      via: [],
      stdinArguments: this.unseenArguments > 0,
      placeholders: false
    })
  }

  /** The words an argument becomes after brace expansion (`{y,../x}` → `y`, `../x`). */
  expand(word: Word): ReadonlyArray<Word> {
    if (!word.glob || !word.text.includes("{")) return [word]
    const texts = expandBraces(word.text)
    if (texts === "too many") {
      this.unsupport(`${clip(word.text)} expands to more than ${MAX_BRACE_WORDS} words`)
      return [word]
    }
    if (texts.length === 1) return [word]
    return texts.map((t) => wordFromText(t, this.home) ?? makeWord(t, t, true, false, false))
  }

  simple(words: ReadonlyArray<Word>, ctx: Context): void {
    if (++this.level > MAX_NESTING) throw nestingError()
    try {
      this.simpleCommand(words, ctx)
    } finally {
      this.level--
    }
  }

  private simpleCommand(words: ReadonlyArray<Word>, ctx: Context): void {
    for (const a of ctx.assignments) {
      const value = a.value.slice(a.value.indexOf("=") + 1).replace(/^(['"])(.*)\1$/s, "$2")
      const code = codeVariable(assignmentName(a), value, a.dynamic)
      if (code !== undefined) this.unsupport(code)
    }
    const name = words[0]!
    const text = joinTexts(words)
    // `$CMD x`, `$(which rm) x`, `{rm,x}`, `/bin/r?`: the shell decides the program at run time.
    if (name.dynamic || name.glob) {
      this.unsupport(`the command name ${name.text} is only known at run time`)
      const form = ctx.outer.length === 0 ? text : `${joinTexts(ctx.outer)} ${text}`
      this.commands.push({ text, argv: [], patterns: [form], always: [], via: ctx.via, cwd: ctx.state.cwd })
      return
    }
    const raw = name.value
    // `sudo 'BASH_FUNC_ls%%=() { …; }' bash -c ls`: a wrapper that passes assignments on.
    const exported = raw.includes("=") ? codeVariable(raw.slice(0, raw.indexOf("=")), raw.slice(raw.indexOf("=") + 1)) : undefined
    if (exported !== undefined) this.unsupport(exported)
    const slash = raw.lastIndexOf("/")
    const normName = slash >= 0 ? raw.slice(slash + 1) : raw
    const foreignPath = slash >= 0 && !SYSTEM_BIN.has(raw.slice(0, slash) || "/")
    if (foreignPath) {
      this.path(name, "read", "any", "program", text, ctx.state.cwd)
      this.runsWritten(name, normName, ctx.state.cwd)
    }
    if (slash < 0 && this.functions.has(raw)) return // its body was analysed where it was defined
    const args = words.slice(1)
    const normalized = [makeWord(normName, normName, name.dynamic, name.glob, name.fd)].concat(args)

    if (normName === "cd" || normName === "pushd" || normName === "popd") return this.cd(normName, args, text, ctx.state)
    if (normName === "set" && args.some((w, i) => /^-[A-Za-z]*P/.test(w.value) || (w.value === "-o" && args[i + 1]?.value === "physical"))) {
      this.physical = true
    }
    if (UNSUPPORTED_NAMES.has(normName)) this.unsupport(`${normName} is not supported by the analysis`)

    const unwrapped = unwrap(normName, normalized)
    if (unwrapped?._tag === "inner") {
      // The wrapper's own output file (`time -o f`, `strace -o f`).
      for (const o of outputPaths(normName, unwrapped.wrapper.slice(1))) {
        if (o.word.dynamic) this.unsupport(`${normName}: the path ${clip(o.word.text)} is only known at run time`)
        else this.path(o.word, "write", o.kind, "argument", text, ctx.state.cwd)
      }
      let state = ctx.state
      if (unwrapped.chdir !== undefined) {
        state = copy(ctx.state)
        state.cwd = this.path(unwrapped.chdir, "read", "directory", "cd", text, ctx.state.cwd)
      }
      return this.simple(unwrapped.inner, {
        state,
        outer: [...ctx.outer, ...ctx.assignments, name, ...unwrapped.wrapper.slice(1)],
        privileged: ctx.privileged || unwrapped.privileged,
        assignments: unwrapped.assignments,
        unsafeEnv: ctx.unsafeEnv || unwrapped.assignments.some(isUnsafe),
        via: [...ctx.via, normName],
        stdinArguments: ctx.stdinArguments || unwrapped.stdinArguments,
        placeholders: ctx.placeholders
      })
    }
    if (unwrapped?._tag === "script") {
      if (ctx.privileged || unwrapped.privileged || ctx.unsafeEnv) {
        const written = ctx.outer.concat(ctx.assignments).map((w) => w.text).concat(text).join(" ")
        this.commands.push({ text, argv: words.map((w) => w.value), patterns: [written], always: exact(written), via: ctx.via, cwd: ctx.state.cwd })
      }
      if (unwrapped.script.dynamic) return this.unsupport(`${normName} runs code only known at run time: ${clip(unwrapped.script.text)}`)
      if (ctx.stdinArguments) this.unseenArguments++
      try {
        return this.script(unwrapped.script.value, copy(ctx.state))
      } finally {
        if (ctx.stdinArguments) this.unseenArguments--
      }
    }

    if (unwrapped?._tag === "unseen") {
      this.unsupport(unwrapped.reason)
      // What can be seen is still analysed, so a deny rule for it applies.
      if (unwrapped.script !== undefined && !unwrapped.script.dynamic) this.script(unwrapped.script.value, copy(ctx.state))
      if (unwrapped.inner !== undefined) {
        this.simple(unwrapped.inner, { ...ctx, outer: [], assignments: [], via: [...ctx.via, normName], stdinArguments: true })
      }
    }

    // An ordinary command (or a wrapper given no command: `sudo -v`, `env`).
    const { argv, patterns, always } = forms({
      name,
      normName,
      args,
      outer: ctx.outer,
      assignments: ctx.assignments,
      foreignPath,
      unsafeEnv: ctx.unsafeEnv,
      privileged: ctx.privileged,
      // A wrapper given no command (`sudo -v`), or one whose command is unseen (`env -S…`).
      wrapperAlone: (unwrapped === undefined || unwrapped._tag === "unseen") && WRAPPER_NAMES.has(normName)
    })
    this.commands.push({ text, argv, patterns, always, via: ctx.via, cwd: ctx.state.cwd })
    const values = args.map((w) => w.value)
    for (const file of scriptFiles(normName, args)) this.runsWritten(file, normName, ctx.state.cwd)
    const hidden = hiddenCode(normName, values)
    if (hidden !== undefined) this.unsupport(hidden)
    const aliases = aliasDefinitions(normName, values)
    if (aliases.length > 0) this.unsupport(ALIAS_REASON)
    // What an alias would run is still analysed, so a deny rule for it applies.
    for (const code of aliases) this.script(code, copy(ctx.state))
    if (normName === "find") this.find(normalized, text, ctx)
    else this.arguments(normName, args, text, ctx)
    if (normName === "sed" || normName === "gsed") this.sed(values, text, ctx.state.cwd)
  }

  find(words: ReadonlyArray<Word>, text: string, ctx: Context) {
    const found = findParts(words)
    // `-delete` (or `-exec rm …`) changes what it finds under the roots: an edit of each root
    // (`.` when none is given).
    const deletes = found.some((p) =>
      p._tag === "delete" || (p._tag === "exec" && MODIFYING_COMMANDS.has(p.words[0]!.value.split("/").at(-1)!))
    )
    const access: Access = deletes ? "write" : "read"
    const parts = deletes && !found.some((p) => p._tag === "root") ? [{ _tag: "root" as const, word: literalWord(".") }, ...found] : found
    for (const part of parts) {
      if (part._tag === "delete") continue
      if (part._tag === "root") this.path(part.word, access, "directory", "argument", text, ctx.state.cwd)
      else if (part._tag === "output") this.path(part.word, "write", "any", "argument", text, ctx.state.cwd)
      else {
        this.simple(part.words, {
          ...ctx,
          outer: [],
          privileged: false,
          assignments: [],
          unsafeEnv: false,
          via: [...ctx.via, "find"],
          placeholders: true
        })
      }
    }
  }

  redirect(node: Node, state: State, text: string) {
    if (node.type !== "file_redirect") {
      // heredoc / herestring: nested redirects (`cat <<EOF > f`) and substitutions in the body.
      for (const child of this.kids(node, false)) {
        if (child.type === "file_redirect") this.redirect(child, state, text)
        else this.walk(child, state)
      }
      return
    }
    const operator = node.children.find((c) => c !== null && !c.isNamed)?.type ?? ">"
    const destination = node.childForFieldName("destination")
    if (destination === null) return
    const word = evaluate(destination, { home: this.home, cwd: state.cwd })
    if (word.fd) return this.walk(destination, copy(state))
    // `2>&1`, `>&2`, `<&0`, `>&-`: descriptor duplication, not a file.
    if ((operator === ">&" || operator === "<&") && /^(\d+-?|-)$/.test(word.value)) return
    this.walk(destination, state)
    if (word.dynamic) return this.unsupport(`the redirect target ${clip(word.text)} is only known at run time`)
    // bash brace-expands a redirect target too (`> {,../x}` writes `../x`): every word it can become is checked.
    for (const target of this.expand(word)) {
      if (target.value === "" && target !== word) continue
      this.path(target, operator.startsWith("<") ? "read" : "write", "any", "redirect", text, state.cwd)
    }
  }

}

/**
 * `analyze` within its bounds: a command over `MAX_COMMAND_BYTES` is refused before parsing, and
 * nesting past `MAX_NESTING` fails cleanly. The work is linear in the size of the command, so the
 * time it holds the thread is bounded by the size limit.
 */
export const analyzeBounded = (
  parser: SyncParser,
  source: string,
  options: Options
): Effect.Effect<Analysis, BashAnalysisError> =>
  Effect.suspend(() => {
    const tooLarge = sizeError(source)
    if (tooLarge !== undefined) return Effect.fail(tooLarge)
    try {
      return Effect.succeed(analyze(parser, source, options))
    } catch (error) {
      if (error instanceof BashAnalysisError) return Effect.fail(error)
      // A stack overflow the nesting limit did not foresee: still a tool error, not a crash.
      if (error instanceof RangeError) return Effect.fail(nestingError())
      throw error
    }
  })

/** Analyses `source` as it would run in `options.cwd`. Throws BashAnalysisError past `MAX_NESTING`. */
export const analyze = (parser: SyncParser, source: string, options: Options): Analysis => {
  const walker = new Walker(parser, options.home)
  const cwd = normalize(options.cwd)
  walker.script(source, { cwd, stack: [] })
  return {
    source,
    cwd,
    commands: walker.commands,
    patterns: unique(walker.commands.flatMap((c) => c.patterns)),
    always: unique(walker.commands.flatMap((c) => c.always)),
    paths: walker.paths,
    unsupported: walker.unsupported
  }
}
