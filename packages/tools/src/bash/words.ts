/**
 * What a shell word evaluates to, as far as it can be known without running anything: quotes
 * removed, escapes resolved, `~`, `$HOME` and `$PWD` expanded. Anything else that expands at run
 * time (`$X`, `$(…)`, backticks, arithmetic) makes the word dynamic.
 */
import type { Node } from "./syntax.ts"

export interface Word {
  /** The source text, as written. */
  readonly text: string
  /** The value after quote removal and the expansions we can resolve. */
  readonly value: string
  /** Contains an expansion we cannot resolve statically. */
  readonly dynamic: boolean
  /** Contains an unquoted glob (`*`, `?`, `[`) or brace expansion: names several paths. */
  readonly glob: boolean
  /** Is a process substitution (`<(…)`): the shell passes `/dev/fd/N`, not a path of ours. */
  readonly fd: boolean
}

export interface Env {
  readonly home: string
  /** The current directory, when known (after `cd $X` it is not). */
  readonly cwd: string | undefined
}

/** Every Word is built here, so all have one shape (property order) and the code reading them stays monomorphic. */
export const makeWord = (text: string, value: string, dynamic: boolean, glob: boolean, fd: boolean): Word => ({
  text,
  value,
  dynamic,
  glob,
  fd
})

const literal = (text: string, value = text): Word => makeWord(text, value, false, false, false)
const dynamicWord = (text: string): Word => makeWord(text, text, true, false, false)

const GLOB = /(?<!\\)[*?[]/

const plainWord = (text: string, value = unescapeWord(text)): Word => makeWord(text, value, false, GLOB.test(text), false)

/** `\x` → `x`, as the shell does for unquoted words. */
const unescapeWord = (text: string) => !text.includes("\\") ? text : text.replace(/\\(.)/gs, "$1").replace(/\\\n/g, "")

/** Inside double quotes only `\\`, `\"`, `\$`, `` \` `` and backslash-newline are escapes. */
const unescapeDouble = (text: string) => text.replace(/\\([\\"$`\n])/g, (_, c: string) => c === "\n" ? "" : c)

const variable = (name: string, env: Env): string | undefined =>
  name === "HOME" ? env.home : name === "PWD" ? env.cwd : undefined

/** `$HOME` / `${HOME}` / `$PWD`: the name when the node is a plain variable reference. */
const plainVariable = (node: Node): string | undefined => {
  const named = node.namedChildren
  if (named.length !== 1 || named[0]?.type !== "variable_name") return undefined
  if (node.type === "expansion" && node.childCount !== 3) return undefined
  return named[0].text
}

const join = (parts: ReadonlyArray<Word>, text: string, glob: boolean): Word => {
  let value = ""
  let dynamic = false
  let anyGlob = false
  for (const p of parts) {
    value += p.value
    dynamic ||= p.dynamic
    anyGlob ||= p.glob
  }
  return makeWord(text, value, dynamic, glob && anyGlob, false)
}

/** Node types whose value follows from their text alone. */
export type LeafWord = "word" | "number" | "raw_string"

export const isLeafWord = (type: string): type is LeafWord => type === "word" || type === "number" || type === "raw_string"

/** Evaluates a `LeafWord` node from its text. */
export const evaluateLeaf = (type: LeafWord, text: string, env: Env): Word => {
  switch (type) {
    case "word": {
      const tilde = tildeExpand(text, env.home)
      return tilde === undefined ? dynamicWord(text) : plainWord(text, unescapeWord(tilde))
    }
    case "number":
      return literal(text)
    case "raw_string":
      return literal(text, text.slice(1, -1))
  }
}

/** Evaluates an argument, command-name or redirect-target node. */
export const evaluate = (node: Node, env: Env): Word => {
  const text = node.text
  const type = node.type
  if (isLeafWord(type)) return evaluateLeaf(type, text, env)
  switch (type) {
    case "command_name":
      return node.firstChild === null ? literal(text) : evaluate(node.firstChild, env)
    case "file_descriptor":
      return literal(text)
    case "ansi_c_string":
      // $'…' with escapes is rare in commands; only the plain form is resolved.
      return text.includes("\\") ? dynamicWord(text) : literal(text, text.slice(2, -1))
    case "string": {
      const parts: Array<Word> = []
      for (const child of node.namedChildren) {
        if (child === null) continue
        if (child.type === "string_content") parts.push(literal(child.text, unescapeDouble(child.text)))
        else parts.push(evaluate(child, env))
      }
      return join(parts, text, false)
    }
    case "simple_expansion":
    case "expansion": {
      const name = plainVariable(node)
      const value = name === undefined ? undefined : variable(name, env)
      return value === undefined ? dynamicWord(text) : literal(text, value)
    }
    case "concatenation": {
      const children = node.namedChildren.filter((c): c is Node => c !== null)
      // `~` expands only at the start of the word.
      const parts = children.map((c, i) => i > 0 && c.type === "word" ? plainWord(c.text) : evaluate(c, env))
      const brace = children.some((c) => c.type === "word" && (c.text === "{" || c.text === "[")) && text !== "{}"
      const word = join(parts, text, true)
      return brace ? makeWord(word.text, word.value, word.dynamic, true, false) : word
    }
    case "process_substitution":
      return makeWord(text, text, true, false, true)
    case "brace_expression":
      // `{1..3}`: several words, expanded by the caller (braces.ts)
      return makeWord(text, text, false, true, false)
    default:
      // command_substitution, arithmetic_expansion, translated strings, …
      return dynamicWord(text)
  }
}

/** `~` → home, `~/x` → home/x; `~user` cannot be resolved (undefined). Not a tilde word: the text. */
const tildeExpand = (text: string, home: string): string | undefined => {
  if (!text.startsWith("~")) return text
  if (home === "") return undefined
  if (text === "~") return home
  if (text.startsWith("~/")) return home.replace(/\/+$/, "") + text.slice(1)
  return undefined
}
