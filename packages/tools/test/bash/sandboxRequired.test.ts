/**
 * The sandbox is a required service: a registry with the bash tool does not type-check until a
 * composition chooses one, and choosing none (`Sandbox.layerNone`) is said on every result.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem, Layer } from "effect"
import { NodeServices } from "@effect/platform-node"
import { Sandbox, ToolRegistry } from "@agent-tools/core"
import { Testing } from "@agent-tools/testing"
import * as Bash from "../../src/bash/index.ts"

const bashRegistry = ToolRegistry.layer([Bash.BashTool])
type Needs<L> = L extends Layer.Layer<infer _A, infer _E, infer R> ? R : never
type EverythingButASandbox = Exclude<Needs<typeof bashRegistry>, Sandbox.Sandbox>

/** Two compositions of the same registry; only the one that names a sandbox type-checks. */
const compositions = (everythingElse: Layer.Layer<EverythingButASandbox>) => {
  // @ts-expect-error the bash tool needs a Sandbox, and a registry without one is not complete
  const forgotten: Layer.Layer<ToolRegistry.ToolRegistry> = bashRegistry.pipe(Layer.provide(everythingElse))
  const chosen: Layer.Layer<ToolRegistry.ToolRegistry> = bashRegistry.pipe(
    Layer.provide(Layer.merge(everythingElse, Sandbox.layerNone("a composition that chose no sandbox")))
  )
  return { forgotten, chosen }
}

describe("Sandbox: a required service", () => {
  it("a registry with the bash tool and no Sandbox does not type-check (see the @ts-expect-error above)", () => {
    assert.isFunction(compositions)
  })

  it.live("layerNone: the status and every bash result say sandboxed: false, with its reason", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const root = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-nosandbox-" }))
      const reason = "this host has no sandbox, by the user's choice"
      const status = yield* Effect.flatMap(Sandbox.Sandbox, (s) => s.status).pipe(Effect.provide(Sandbox.layerNone(reason)))
      assert.deepStrictEqual(status, { sandboxed: false, reason, required: false })
      const result = yield* Testing.call("bash", { command: "echo hi", description: "echo" }).pipe(
        Effect.provide(Testing.layer({
          tools: [Bash.BashTool],
          root,
          platform: NodeServices.layer,
          sandbox: Sandbox.layerNone(reason),
          services: Layer.mergeAll(
            Bash.parserLayer,
            Bash.configLayer({ home: root }),
            ConfigProvider.layer(ConfigProvider.fromEnvRecord({ PATH: "/usr/bin:/bin", SHELL: "/bin/bash" }))
          )
        }))
      )
      assert.strictEqual(result.output, "hi\n")
      assert.strictEqual(result.metadata.sandboxed, false)
      assert.strictEqual(result.metadata.sandboxReason, reason)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
