/** The bash tool through a registry over a real temp workspace: its layer, and a call that records asks and live metadata. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { afterAll, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { Events, ModuleLoader, Permission, Sandbox, SpillStorage, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import * as Bash from "../../src/bash/index.ts"

export const base = realpathSync(mkdtempSync(join(tmpdir(), "bash-tool-")))
export const root = join(base, "ws")
export const spillDir = join(base, "spill")
mkdirSync(join(root, "sub"), { recursive: true })
afterAll(() => rmSync(base, { recursive: true, force: true }))

export interface Setup {
  readonly rules?: Permission.Ruleset
  readonly unattended?: "wait" | "reject" | "allow"
  readonly config?: Partial<Bash.ConfigOptions>
  readonly env?: Record<string, string>
  readonly truncation?: Truncate.Config
}

export const ALLOW_ALL: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

export const layerWith = (setup: Setup = {}) =>
  Layer.mergeAll(
    Workspace.layer({ root, spillDirectories: [spillDir] }),
    Permission.layer({ rules: setup.rules ?? ALLOW_ALL, unattended: setup.unattended ?? "reject" }),
    Truncate.layer(setup.truncation),
    Bash.parserLayer,
    Bash.configLayer({ home: base, ...setup.config }),
    ConfigProvider.layer(ConfigProvider.fromEnvRecord({ PATH: "/usr/bin:/bin", SHELL: "/bin/bash", ...setup.env }))
  ).pipe(
    Layer.provideMerge(SpillStorage.layer({ dir: spillDir })),
    Layer.provideMerge(Layer.mergeAll(NodeServices.layer, Events.layerNoop, ModuleLoader.layerMemory({}))),
    Layer.provideMerge(Sandbox.layerNone("these tests run commands unconfined"))
  )

export const args = (command: string, more: Partial<Bash.Parameters> = {}) => ({ command, description: "test command", ...more })

/** Calls the tool once through a registry, with a context that records asks and live metadata. */
export const call = (input: Record<string, unknown>, options: { readonly abort?: AbortSignal } = {}) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.make([Bash.BashTool])
    const asked: Array<Tool.AskInput> = []
    const live: Array<Tool.Metadata> = []
    const ctx = yield* Tool.makeContext({ sessionID: "s", abort: options.abort, metadata: (u) => Effect.sync(() => void live.push(u.metadata ?? {})) })
    const prompts: Array<ReadonlyArray<Tool.AskInput>> = []
    const result = yield* registry.execute("bash", input, {
      ...ctx,
      ask: (i) => Effect.andThen(Effect.sync(() => (asked.push(i), prompts.push([i]))), ctx.ask(i)),
      askAll: (is) => Effect.andThen(Effect.sync(() => (asked.push(...is), prompts.push(is))), ctx.askAll(is))
    })
    return { result, asked, prompts, live }
  })

export const live = (name: string, setup: Setup, body: () => Effect.Effect<void, unknown, any>) =>
  it.live(name, () => body().pipe(Effect.provide(layerWith(setup))), 30_000)
