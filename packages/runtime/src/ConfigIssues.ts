/**
 * Turns zod issues into one line per bad key, `truncation.direction: expected head | tail |
 * head+tail, got "middle"`: the path in the same notation as PermissionRules errors, what was
 * expected and what was found. zod's own messages name neither the key nor the value.
 */
import type * as z from "zod"

export interface Problem {
  /** `truncation.direction`, `permission.bash["git status"]`, `tools.disabled[0]`; "" for the root. */
  readonly path: string
  readonly reason: string
}

type Issue = z.core.$ZodIssue
type Key = PropertyKey

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

export const formatPath = (path: ReadonlyArray<Key>): string =>
  path.reduce<string>((acc, key) => {
    if (typeof key === "number") return `${acc}[${key}]`
    const name = String(key)
    if (IDENTIFIER.test(name)) return acc === "" ? name : `${acc}.${name}`
    return `${acc}[${JSON.stringify(name)}]`
  }, "")

/** A short rendering of a bad value. */
export const show = (value: unknown): string => {
  if (value === undefined) return "nothing"
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

const TYPE_NAMES: Record<string, string> = {
  object: "an object",
  record: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false"
}

/** What the issue says was expected, without the found value. */
const expectation = (issue: Issue): string => {
  switch (issue.code) {
    case "invalid_value":
      return issue.values.map((v) => typeof v === "string" ? v : JSON.stringify(v)).join(" | ")
    case "invalid_type":
      return TYPE_NAMES[issue.expected] ?? issue.expected
    case "too_small": {
      const op = issue.inclusive === false ? ">" : ">="
      if (issue.origin === "array") return `at least ${String(issue.minimum)} item(s)`
      if (issue.origin === "string") return `a non-empty string`
      return `a number ${op} ${String(issue.minimum)}`
    }
    case "too_big": {
      const op = issue.inclusive === false ? "<" : "<="
      return `a number ${op} ${String(issue.maximum)}`
    }
    default:
      return issue.message
  }
}

interface Leaf {
  readonly path: ReadonlyArray<Key>
  readonly expected: string
  readonly input: unknown
  readonly unknownKey?: boolean | undefined
}

const leaves = (issue: Issue, prefix: ReadonlyArray<Key>): ReadonlyArray<Leaf> => {
  const path = [...prefix, ...issue.path]
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ path: [...path, key], expected: "", input: undefined, unknownKey: true }))
  }
  if (issue.code !== "invalid_union") return [{ path, expected: expectation(issue), input: issue.input }]
  // A discriminated union whose tag matched no option: zod tries no branch, its message lists the tags.
  if (issue.errors.length === 0 && typeof issue.discriminator === "string") {
    const tag = issue.input !== null && typeof issue.input === "object" ? (issue.input as Record<string, unknown>)[issue.discriminator] : issue.input
    return [{ path, expected: issue.message, input: tag }]
  }
  const branches = issue.errors.map((branch) => branch.flatMap((i) => leaves(i, path)))
  const depth = (ls: ReadonlyArray<Leaf>) => Math.max(0, ...ls.map((l) => l.path.length))
  // A branch that got further into the value is the one the user meant: report its problem.
  const deepest = branches.reduce((best, b) => depth(b) > depth(best) ? b : best, branches[0] ?? [])
  if (depth(deepest) > path.length) return deepest
  const expected = [...new Set(branches.flat().map((l) => l.expected))].join(" or ")
  return [{ path, expected, input: issue.input }]
}

/** One problem per bad key, in the order zod found them. */
export const problems = (
  error: z.ZodError,
  /** The keys allowed at an object path, to list them when a key is unknown. */
  knownKeys: (path: ReadonlyArray<Key>) => ReadonlyArray<string> | undefined = () => undefined
): ReadonlyArray<Problem> =>
  error.issues.flatMap((issue) => leaves(issue as Issue, [])).map((leaf) => {
    if (leaf.unknownKey !== true) {
      return { path: formatPath(leaf.path), reason: `expected ${leaf.expected}, got ${show(leaf.input)}` }
    }
    const known = knownKeys(leaf.path.slice(0, -1))
    return {
      path: formatPath(leaf.path),
      reason: known === undefined || known.length === 0 ? "unknown key" : `unknown key (expected one of ${known.join(", ")})`
    }
  })
