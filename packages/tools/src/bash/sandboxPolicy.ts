/**
 * From a call's permission plan to what its sandbox mounts. Called after every ask of the plan
 * succeeded, so each outside path the plan lists was approved (by a rule or by the user) for
 * this call: its asked directory is mounted for this call only, writable when the command writes
 * there, else read-only. A read the plan exempted from asking (a spill file) is mounted
 * read-only as the single path. When `external_directory` allows every path, nothing outside
 * is hidden.
 */
import * as Effect from "effect/Effect"
import { Permission, type Sandbox } from "@agent-tools/core"
import type { Plan } from "./permissions.ts"

/** The pattern `external_directory` uses for "every outside path". */
const EVERYWHERE = "/*"

export const sandboxPolicy = Effect.fn("Bash.sandboxPolicy")(function*(
  plan: Plan,
  options: { readonly root: string; readonly cwd: string; readonly sessionID?: string | undefined }
) {
  const permission = yield* Permission.Permission
  const everywhere = yield* permission.evaluate("external_directory", EVERYWHERE, undefined, options.sessionID)
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
    outside: everywhere.action === "allow" ? "writable" : "hidden"
  } satisfies Sandbox.Policy
})
