/**
 * What the bash analysis carries while it walks a script: the tracked working directory, the
 * wrappers and assignments around the current command, and the small text helpers its messages use.
 */
import type { Node } from "./syntax.ts"
import { SAFE_ENV } from "./patterns.ts"
import { makeWord, type Word } from "./words.ts"
import { assignmentName } from "./wrappers.ts"

export interface State {
  cwd: string | undefined
  stack: Array<string | undefined>
}

export interface Context {
  readonly state: State
  /** Wrapper words so far (`sudo -u x`, `timeout 5`). */
  readonly outer: ReadonlyArray<Word>
  /** Under a privileged wrapper: the written form is asked too. */
  readonly privileged: boolean
  /** Assignments for this command (`X=1 cmd`, `env X=1 cmd`). */
  readonly assignments: ReadonlyArray<Word>
  /** An assignment on the way here sets a variable that can change what runs (`LD_PRELOAD=…`). */
  readonly unsafeEnv: boolean
  readonly via: ReadonlyArray<string>
  /** `xargs`: arguments arrive on stdin. */
  readonly stdinArguments: boolean
  /** `find -exec`: `{}` stands for a file found under the (checked) roots. */
  readonly placeholders: boolean
}

export const copy = (s: State): State => ({ cwd: s.cwd, stack: [...s.stack] })
export const MAX_DEPTH = 8

export const literalWord = (value: string): Word => makeWord(value, value, false, false, false)

/** The words' source texts, space-separated. */
export const joinTexts = (words: ReadonlyArray<Word>): string => {
  let text = words.length === 0 ? "" : words[0]!.text
  for (let i = 1; i < words.length; i++) text += ` ${words[i]!.text}`
  return text
}

export const isUnsafe = (assignment: Word) => !SAFE_ENV.has(assignmentName(assignment))

export const clip = (text: string, max = 80) => {
  const line = text.slice(0, max * 4).replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

export const errorSnippet = (root: Node): string => {
  const error = root.descendantsOfType("ERROR")[0]
  if (error !== undefined && error !== null) return clip(error.text || root.text)
  return clip(root.text)
}

export const unique = (xs: ReadonlyArray<string>) => [...new Set(xs)]
