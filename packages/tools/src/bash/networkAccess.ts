/**
 * Who decides the hosts a sandboxed command connects to through the sandbox's network proxy: the
 * `network` permission, one request per host (the pattern is the host name, lower case, e.g.
 * `registry.npmjs.org`; the port is not part of it, so allowing a host allows every port of it).
 *
 * A host is decided once per call: the first connection asks (through the call's `ask`, so the
 * CLI or MCP prompt gets it while the command runs), later ones reuse the answer; `always`
 * stores the host for the session, so other calls pass without a prompt. A host may resolve to a
 * loopback, private or link-local address only when a configured allow rule names it exactly (no
 * wildcard): neither `"network": "allow"` nor a user's approval opens the local network.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { Permission, Sandbox, Tool } from "@agent-tools/core"

/** The permission every host is asked under. */
export const PERMISSION = "network"

/** A rule that names one host exactly. */
const exact = (pattern: string) => !/[*?]/.test(pattern)

/** Whether `decision` opens private addresses for its host: a configured allow rule naming it exactly. */
export const allowsPrivate = (decision: Permission.Decision): boolean =>
  decision.action === "allow" &&
  (decision.source === "rules" || decision.source === "ruleset") &&
  decision.rule !== undefined &&
  exact(decision.rule.pattern)

/** The `authorize` of one call: asks `network` for each new host, answering repeats from memory. */
export const networkAccess = (options: {
  readonly permission: Permission.Permission["Service"]
  readonly ctx: Pick<Tool.Context, "ask" | "sessionID">
}): Sandbox.Authorize => {
  const decided = new Map<string, Deferred.Deferred<Sandbox.Access>>()
  const decide = (host: string, port: number) =>
    Effect.gen(function*() {
      const asked = yield* options.ctx.ask({
        permission: PERMISSION,
        patterns: [host],
        always: [host],
        metadata: { host, port }
      }).pipe(Effect.result)
      if (asked._tag === "Failure") return { _tag: "deny", reason: asked.failure.message } satisfies Sandbox.Access
      const decision = yield* options.permission.evaluate(PERMISSION, host, undefined, options.ctx.sessionID)
      return { _tag: "allow", privateAddresses: allowsPrivate(decision) } satisfies Sandbox.Access
    })
  return (host, port) =>
    Effect.suspend(() => {
      const known = decided.get(host)
      if (known !== undefined) return Deferred.await(known)
      // Set before anything yields: concurrent connections to a new host wait for the one ask.
      const deferred = Deferred.makeUnsafe<Sandbox.Access>()
      decided.set(host, deferred)
      return decide(host, port).pipe(
        Effect.exit,
        Effect.flatMap((exit) => Effect.andThen(Deferred.done(deferred, exit), exit))
      )
    }).pipe(Effect.withSpan("Bash.networkAccess", { attributes: { host, port } }))
}
