/**
 * Programs a test needs on the host (bwrap, python3, git): a test that needs one it lacks is
 * skipped with a name that says which program is missing, never failed for it.
 *
 * @example
 * ```ts
 * const bwrap = Programs.requires("bwrap")
 * it.live.skipIf(!bwrap.ok)(`confines the command${bwrap.note}`, () => …)
 * // without bwrap: "confines the command (skipped: bwrap is not installed)"
 * ```
 */
import { spawnSync } from "node:child_process"

const found = new Map<string, boolean>()

/** Whether `program` runs here (`program --version` exits 0); asked once per program. */
export const hasProgram = (program: string): boolean => {
  let known = found.get(program)
  if (known === undefined) {
    known = spawnSync(program, ["--version"], { stdio: "ignore", timeout: 10_000 }).status === 0
    found.set(program, known)
  }
  return known
}

export interface Requirement {
  /** Every program is there. */
  readonly ok: boolean
  /** The programs that are not. */
  readonly missing: ReadonlyArray<string>
  /** `""` when `ok`, else ` (skipped: bwrap is not installed)`: appended to the test's name. */
  readonly note: string
}

/** Whether every one of `programs` runs here, and the note a skipped test's name carries. */
export const requires = (...programs: ReadonlyArray<string>): Requirement => {
  const missing = programs.filter((p) => !hasProgram(p))
  const note = missing.length === 0
    ? ""
    : ` (skipped: ${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not installed)`
  return { ok: missing.length === 0, missing, note }
}
