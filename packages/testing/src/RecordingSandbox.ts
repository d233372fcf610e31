/**
 * A `Sandbox` twin for tests: it reports the status it is given, records every command and policy
 * a tool hands to `wrap`, and returns the command unchanged — it confines nothing, yet says
 * `sandboxed` as its status does, so a tool's sandboxed path can be tested. Use it to check
 * what a tool asks the sandbox for (which paths a call may reach); the real confinement is tested
 * against bubblewrap in `@agent-tools/node`.
 *
 * @example
 * ```ts
 * const sandbox = RecordingSandbox.make()
 * yield* registry.execute("bash", { command: "cat ../shared/x", description: "read" }, ctx).pipe(Effect.provide(sandbox.layer))
 * sandbox.calls[0]?.policy.readable // ["/path/to/shared"]
 * ```
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Sandbox } from "@agent-tools/core"

export interface Call {
  readonly command: Sandbox.Command
  readonly policy: Sandbox.Policy
}

export interface Recording {
  /** Provides the twin as the `Sandbox`. */
  readonly layer: Layer.Layer<Sandbox.Sandbox>
  readonly service: Sandbox.Service
  /** Every `wrap`, in order. */
  readonly calls: ReadonlyArray<Call>
}

/** A sandboxed status by default; pass an unsandboxed one to test that path. */
export const make = (
  status: Sandbox.Status = { sandboxed: true, backend: "recording sandbox", network: "allow", readable: [], writable: [] }
): Recording => {
  const calls: Array<Call> = []
  const service: Sandbox.Service = {
    status: Effect.succeed(status),
    wrap: (command, policy) =>
      Effect.sync(() => {
        calls.push({ command, policy })
        return { ...command, sandboxed: status.sandboxed }
      })
  }
  return { layer: Layer.succeed(Sandbox.Sandbox, service), service, calls }
}
