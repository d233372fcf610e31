/** Layers and helpers for the background job tests: real processes in a temp workspace, no sandbox. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { ConfigProvider, Effect, Layer } from "effect"
import { Events, Jobs, ModuleLoader, Permission, Sandbox, SpillStorage, Terminal, Tool, ToolRegistry, Truncate, Workspace } from "@agent-tools/core"
import { BackgroundJobs, Bash, BashKillTool, BashOutputTool } from "../../src/index.ts"

export const base = realpathSync(mkdtempSync(join(tmpdir(), "jobs-")))
export const root = join(base, "ws")
const spillDir = join(base, "spill")
mkdirSync(root, { recursive: true })

export interface Setup {
  readonly rules?: Permission.Ruleset
  readonly jobs?: BackgroundJobs.Options
  readonly terminal?: Terminal.Service
  readonly sandbox?: Layer.Layer<Sandbox.Sandbox>
  /** Spills in memory: no file a process can write into, so a job's output comes through a pipe. */
  readonly memorySpill?: boolean
  /** The event bus (default: one that drops every event). */
  readonly events?: Layer.Layer<Events.Events>
}

export const ALLOW_ALL: Permission.Ruleset = [{ permission: "*", pattern: "*", action: "allow" }]

/** The services of a session without the jobs layer (so a test can build and close that itself). */
export const servicesLayer = (setup: Setup = {}) =>
  Layer.mergeAll(
    Workspace.layer({ root, spillDirectories: [spillDir] }),
    Permission.layer({ rules: setup.rules ?? ALLOW_ALL, unattended: "reject" }),
    Truncate.layer(),
    Bash.parserLayer,
    Bash.configLayer({ home: base }),
    ConfigProvider.layer(ConfigProvider.fromEnvRecord({ PATH: "/usr/bin:/bin", SHELL: "/bin/bash" })),
    setup.terminal === undefined ? Layer.empty : Layer.succeed(Terminal.Terminal, setup.terminal)
  ).pipe(
    Layer.provideMerge(setup.memorySpill === true ? SpillStorage.layerMemory() : SpillStorage.layer({ dir: spillDir, direct: true })),
    Layer.provideMerge(Layer.mergeAll(NodeServices.layer, setup.events ?? Events.layerNoop, ModuleLoader.layerMemory({}))),
    Layer.provideMerge(setup.sandbox ?? Sandbox.layerNone("these tests run commands unconfined"))
  )

/** The session: the services and the jobs layer over them. */
export const sessionLayer = (setup: Setup = {}) =>
  BackgroundJobs.layer({ startYield: 300, ...setup.jobs }).pipe(Layer.provideMerge(servicesLayer(setup)))

export interface Called {
  readonly result: Tool.Result
  readonly asked: ReadonlyArray<Tool.AskInput>
}

/** Calls one tool through a registry of bash and the job tools. */
export const call = (tool: string, input: Record<string, unknown>, sessionID = "s", approve = false) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.make([Bash.BashTool, BashOutputTool, BashKillTool])
    const asked: Array<Tool.AskInput> = []
    const ctx = yield* Tool.makeContext({ sessionID })
    const result = yield* registry.execute(tool, input, {
      ...ctx,
      // `approve`: the user approves every prompt of this call (deny rules are not consulted).
      ask: (i) => Effect.andThen(Effect.sync(() => asked.push(i)), approve ? Effect.void : ctx.ask(i)),
      askAll: (is) => Effect.andThen(Effect.sync(() => asked.push(...is)), approve ? Effect.void : ctx.askAll(is))
    })
    return { result, asked } satisfies Called
  })

export const bg = (command: string, more: Record<string, unknown> = {}) => ({
  command,
  description: "background job",
  run_in_background: true,
  ...more
})

/** The job id of a start result. */
export const idOf = (r: Tool.Result): string => String(r.metadata.id)

export const alive = (pid: number): boolean => {
  if (!existsSync(`/proc/${pid}`)) return false
  // A zombie has ended; only its parent has not reaped it yet.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  return !/^\d+ \(.*\) Z/.test(stat)
}

/** Waits (polling) until `file` holds a pid. */
export const pidIn = (file: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500; i++) {
      if (existsSync(file)) {
        const text = readFileSync(file, "utf8").trim()
        if (/^\d+$/.test(text)) return Number(text)
      }
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`no pid in ${file}`))
  })

/** Waits until `pid` is gone (bounded; the assertion after it says whether it went). */
export const gone = (pid: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 250 && alive(pid); i++) yield* Effect.sleep("20 millis")
    return !alive(pid)
  })

export type { Jobs }
