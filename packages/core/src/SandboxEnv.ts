/**
 * Which variables of the host's environment a shell command sees. The agent's environment holds
 * secrets (`GITHUB_TOKEN`, cloud keys, model API keys) a command has no business reading, so a
 * command starts from an empty environment and gets only: the variables named here, the ones the
 * user lists (`sandbox.env`), and those the tool sets itself (the non-interactive set, the bash
 * config's `env`). Sandboxed or not: without a sandbox the same list applies, so secrets stay out
 * either way.
 *
 * Host values are read through Effect `Config`, so tests set them with a ConfigProvider.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as EnvVar from "./EnvVar.ts"

/** The locale categories (`LC_*`), by name: the environment is read by name, never listed whole. */
const LOCALE = [
  "LC_ALL",
  "LC_CTYPE",
  "LC_COLLATE",
  "LC_MESSAGES",
  "LC_MONETARY",
  "LC_NUMERIC",
  "LC_TIME",
  "LC_ADDRESS",
  "LC_IDENTIFICATION",
  "LC_MEASUREMENT",
  "LC_NAME",
  "LC_PAPER",
  "LC_TELEPHONE"
]

/**
 * The host variables every command sees: where programs are, the language, the terminal type, the
 * time zone, who the user is, the (private, in a sandbox) home and temp directories. None of them
 * carries a secret.
 */
export const PASSED: ReadonlyArray<string> = [
  "PATH",
  "LANG",
  "LANGUAGE",
  ...LOCALE,
  "TERM",
  "TZ",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR"
]

/** A variable name a user may list (`sandbox.env`): letters, digits and `_`, not starting with a digit. */
export const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * The host values of `PASSED` and of `extra` (names the user listed) that are set, then `set` (the
 * variables the caller sets) on top: a command's whole environment.
 */
export const environment = Effect.fnUntraced(function*(
  extra: ReadonlyArray<string>,
  set: Readonly<Record<string, string>> = {}
) {
  const env: Record<string, string> = {}
  for (const name of new Set([...PASSED, ...extra])) {
    const value = yield* EnvVar.option(name)
    if (Option.isSome(value)) env[name] = value.value
  }
  return { ...env, ...set }
})
