/**
 * Pure permission rules: evaluation, config parsing, merging and the "disabled tools" check.
 *
 * Precedence is purely by order: the LAST rule whose permission and pattern both match decides
 * (opencode's semantics, so configs carry over). There is no specificity sorting, so a catch-all
 * must come first: `{"*": "allow", "rm *": "deny"}` denies `rm a`, while
 * `{"rm *": "deny", "*": "allow"}` allows it (the later `*` wins).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Action, Rule, Ruleset } from "./Permission.ts"
import * as Wildcard from "./Wildcard.ts"

export interface Evaluation {
  readonly action: Action
  /** The deciding rule; undefined when nothing matched (the default is `ask`). */
  readonly rule: Rule | undefined
}

const NO_MATCH: Evaluation = { action: "ask", rule: undefined }

/** Like `evaluate`, with matching options (e.g. `{ platform: "win32" }` for case-insensitive). */
export const evaluateWith = (
  options: Wildcard.Options,
  permission: string,
  pattern: string,
  ...rulesets: ReadonlyArray<Ruleset | undefined>
): Evaluation => {
  // Scan from the end: the first hit is the last matching rule of the concatenation.
  for (let i = rulesets.length - 1; i >= 0; i--) {
    const rules = rulesets[i]
    if (rules === undefined) continue
    for (let j = rules.length - 1; j >= 0; j--) {
      const rule = rules[j]!
      if (Wildcard.match(permission, rule.permission, options) && Wildcard.match(pattern, rule.pattern, options)) {
        return { action: rule.action, rule }
      }
    }
  }
  return NO_MATCH
}

/** The last rule (over all rulesets, in order) matching both `permission` and `pattern`; no match → ask. */
export const evaluate = (
  permission: string,
  pattern: string,
  ...rulesets: ReadonlyArray<Ruleset | undefined>
): Evaluation => evaluateWith({}, permission, pattern, ...rulesets)

/** Concatenation: later rulesets override earlier ones under last-match-wins. */
export const merge = (...rulesets: ReadonlyArray<Ruleset | undefined>): Ruleset =>
  rulesets.flatMap((rules) => rules ?? [])

// ---------------------------------------------------------------------------------------------
// Config

/** A config value that is not a valid permission rule; `path` names the bad key. */
export class PermissionConfigError extends Schema.TaggedError<PermissionConfigError>()("PermissionConfigError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.path}: ${this.reason}`
  }
}

/** The opencode config shape: `{"edit": "ask", "bash": {"*": "ask", "git status": "allow"}}`. */
export type Config = Action | { readonly [permission: string]: Action | { readonly [pattern: string]: Action } }

export interface FromConfigOptions {
  /** The home directory for `~` and `$HOME` expansion. */
  readonly home: string
  /** The key path of the config in error messages (default `"permission"`). */
  readonly path?: string | undefined
}

const ACTIONS: ReadonlySet<string> = new Set(["allow", "ask", "deny"])
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

const keyPath = (base: string, key: string) => IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`

const show = (value: unknown) => value === undefined ? "undefined" : JSON.stringify(value) ?? String(value)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isAction = (value: unknown): value is Action => typeof value === "string" && ACTIONS.has(value)

/**
 * `~`, `~/x`, `$HOME`, `$HOME/x` at the start of a pattern become the home directory. Only a whole
 * `$HOME` segment counts: `$HOMEX` stays as written (opencode turned it into `<home>X`).
 */
export const expandHome = (pattern: string, home: string): string => {
  const base = home.replace(/[\\/]+$/, "")
  if (pattern === "~" || pattern === "$HOME") return home
  for (const prefix of ["~/", "~\\", "$HOME/", "$HOME\\"]) {
    if (pattern.startsWith(prefix)) return base + "/" + pattern.slice(prefix.length)
  }
  return pattern
}

/**
 * For `bash`, a pattern without wildcards names a command with any arguments: `"yarn": "deny"`
 * denies `yarn test` too, and `"git status": "allow"` allows `git status -s` (opencode matched the
 * bare text only, so `yarn test` slipped past a `yarn` deny). The rule is emitted as `"yarn *"`,
 * which still matches the bare `yarn` (see Wildcard). Write a wildcard to opt out of this.
 */
export const commandPattern = (pattern: string): string =>
  pattern.trim() === "" || Wildcard.hasWildcard(pattern) ? pattern : `${pattern} *`

const EXPECTED = "expected allow | ask | deny"

/**
 * Rules from an opencode-style config, in insertion order: a string value gives
 * `{permission: key, pattern: "*", action}`, an object gives one rule per pattern (with home
 * expansion and, for `bash`, see `commandPattern`). A bare action string applies to everything.
 * Fails with the key path of the first bad value.
 */
export const fromConfig = (config: unknown, options: FromConfigOptions): Effect.Effect<Ruleset, PermissionConfigError> =>
  Effect.suspend(() => {
    const root = options.path ?? "permission"
    const fail = (path: string, reason: string) => Effect.fail(new PermissionConfigError({ path, reason }))
    if (isAction(config)) return Effect.succeed([{ permission: "*", pattern: "*", action: config }])
    if (!isRecord(config)) return fail(root, `${EXPECTED} or an object of permissions, got ${show(config)}`)
    const rules: Array<Rule> = []
    for (const [permission, value] of Object.entries(config)) {
      const path = keyPath(root, permission)
      if (isAction(value)) {
        rules.push({ permission, pattern: "*", action: value })
        continue
      }
      if (!isRecord(value)) return fail(path, `${EXPECTED} or an object of pattern → action, got ${show(value)}`)
      for (const [written, action] of Object.entries(value)) {
        if (!isAction(action)) return fail(keyPath(path, written), `${EXPECTED}, got ${show(action)}`)
        const expanded = expandHome(written, options.home)
        rules.push({ permission, pattern: permission === "bash" ? commandPattern(expanded) : expanded, action })
      }
    }
    return Effect.succeed(rules)
  })

// ---------------------------------------------------------------------------------------------
// Disabled tools

const EDIT_TOOLS: ReadonlySet<string> = new Set(["edit", "write", "apply_patch", "multiedit"])

/** The permission a tool asks for: `edit` for the file-writing tools, else the tool id. */
export const permissionOf = (toolId: string): string => EDIT_TOOLS.has(toolId) ? "edit" : toolId

/**
 * Tools denied outright, to hide from the model: the last rule whose permission matches the tool's
 * (ignoring patterns) has pattern `*` and action deny.
 */
export const disabled = (
  toolIds: Iterable<string>,
  ruleset: Ruleset,
  options: Wildcard.Options = {}
): Set<string> => {
  const result = new Set<string>()
  for (const id of toolIds) {
    const permission = permissionOf(id)
    const last = ruleset.findLast((rule) => Wildcard.match(permission, rule.permission, options))
    if (last !== undefined && last.pattern === "*" && last.action === "deny") result.add(id)
  }
  return result
}
