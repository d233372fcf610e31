/**
 * From a call's permission plan to what its sandbox mounts. Called after every ask of the plan
 * succeeded, so each outside path the plan lists was approved (by a rule or by the user) for
 * this call: its asked directory is mounted for this call only, writable when the command writes
 * there, else read-only. A read the plan exempted from asking (a spill file) is mounted
 * read-only as the single path.
 *
 * The outside is mounted wholesale only when `external_directory` allows every path and no
 * configured rule still denies or asks for some of them: "allow everything except `~/.ssh`"
 * keeps the outside hidden, since an unanalysed command's paths were never checked against the
 * exception and only the sandbox can hold it.
 */
import * as Effect from "effect/Effect"
import { Permission, type Sandbox, Wildcard } from "@agent-tools/core"
import type { Plan } from "./permissions.ts"

/** The pattern `external_directory` uses for "every outside path". */
const EVERYWHERE = "/*"
const EXTERNAL = "external_directory"

export const sandboxPolicy = Effect.fn("Bash.sandboxPolicy")(function*(
  plan: Plan,
  options: { readonly root: string; readonly cwd: string; readonly sessionID?: string | undefined }
) {
  const permission = yield* Permission.Permission
  const writable = new Set<string>()
  const readable = new Set<string>()
  for (const path of plan.paths) {
    if (path.inside) continue
    if (path.directory === undefined) readable.add(path.real)
    else if (path.access === "write") writable.add(path.directory)
    else readable.add(path.directory)
  }
  return {
    root: options.root,
    cwd: options.cwd,
    writable: [...writable],
    readable: [...readable].filter((p) => !writable.has(p)),
    outside: (yield* allowsEverywhere(permission, options.sessionID)) ? "writable" : "hidden",
    ...(options.sessionID === undefined ? {} : { session: options.sessionID })
  } satisfies Sandbox.Policy
})

/**
 * `external_directory` allows every outside path: `/*` is allowed, and every configured rule that
 * denies or asks is overridden where it applies. A rule's own pattern, evaluated as a path, names
 * the paths it covers: when that still comes out as deny or ask, the exception is in force.
 */
const allowsEverywhere = (permission: Permission.Permission["Service"], sessionID: string | undefined) =>
  Effect.gen(function*() {
    const everywhere = yield* permission.evaluate(EXTERNAL, EVERYWHERE, undefined, sessionID)
    if (everywhere.action !== "allow") return false
    for (const rule of permission.rules) {
      if (rule.action === "allow" || !Wildcard.match(EXTERNAL, rule.permission)) continue
      const covered = yield* permission.evaluate(EXTERNAL, rule.pattern, undefined, sessionID)
      if (covered.action !== "allow") return false
    }
    return true
  })
