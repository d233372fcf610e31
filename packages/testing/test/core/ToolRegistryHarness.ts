/** What the ToolRegistry tests share: a recording Truncate, small tools, the registry layer and a context. */
import { Effect, type Layer } from "effect"
import { Testing } from "@agent-tools/testing"
import { z } from "zod"
import { type Permission, Tool, type ToolRegistry, Truncate, type Workspace } from "@agent-tools/core"

// A Truncate that records what the registry asked for and cuts at 10 characters: the registry's
// job is deciding *whether* and *with what options* to truncate, which this makes visible.
export const truncateCalls: Array<Truncate.Options | undefined> = []
export const FakeTruncate = Truncate.layerNoop({
  output: (text, options) =>
    Effect.sync(() => {
      truncateCalls.push(options)
      const truncated = text.length > 10
      return {
        content: truncated ? `${text.slice(0, 10)}[cut]` : text,
        truncated,
        outputPath: truncated ? "/spill/tool_1" : undefined,
        totalBytes: text.length,
        totalLines: 1,
        removedLines: 0,
        removedBytes: truncated ? text.length - 10 : 0
      }
    })
})

export const Echo = Tool.define("echo", {
  description: "Echo the text back",
  parameters: z.object({ text: z.string(), times: z.number().int().positive().optional() }),
  execute: (args) => Effect.succeed({ title: "echo", output: args.text.repeat(args.times ?? 1), metadata: {} })
})

export const SelfTruncating = Tool.define("self", {
  description: "Truncates its own output",
  parameters: z.object({}),
  execute: () => Effect.succeed({ title: "", output: "x".repeat(100), metadata: { truncated: false } })
})

export const NoTruncate = Tool.define("raw", {
  description: "Never truncated",
  parameters: z.object({}),
  truncation: false,
  execute: () => Effect.succeed({ title: "", output: "y".repeat(100), metadata: {} })
})

export const Tailing = Tool.define("tailing", {
  description: "Prefers the tail",
  parameters: z.object({}),
  truncation: { direction: "tail" },
  execute: () => Effect.succeed({ title: "", output: "z".repeat(100), metadata: {} })
})

export const Asking = Tool.define("asking", {
  description: "Asks before it acts",
  parameters: z.object({ target: z.string() }),
  execute: (args, ctx) =>
    ctx.ask({ permission: "asking", patterns: [args.target], always: ["*"] }).pipe(
      Effect.as({ title: "", output: `did ${args.target}`, metadata: {} })
    )
})

// Declares its requests (two permissions), asks them again while it runs (as built-in tools do),
// and may ask for something else at run time (as a custom tool does).
export let plannedRuns = 0
export const Planned = Tool.define("planned", {
  description: "Declares its requests",
  parameters: z.object({ files: z.array(z.string()), extra: z.string().optional() }),
  requests: (args) =>
    Effect.succeed([
      { permission: "edit", patterns: args.files, always: args.files },
      { permission: "planned", patterns: ["run"], always: ["run"] }
    ]),
  execute: (args, ctx) =>
    Effect.gen(function*() {
      yield* ctx.askAll([{ permission: "edit", patterns: args.files }, { permission: "planned", patterns: ["run"] }])
      yield* ctx.ask({ permission: "edit", patterns: [args.files[0]!] })
      if (args.extra !== undefined) yield* ctx.ask({ permission: "extra", patterns: [args.extra] })
      plannedRuns++
      return { title: "", output: args.files.join(","), metadata: {} }
    })
})

export const named = (id: string) =>
  Tool.define(id, { description: id, parameters: z.object({}), execute: () => Effect.succeed({ title: id, output: id, metadata: {} }) })

export const registryLayer = (
  definitions: ReadonlyArray<Tool.Definition<string, any, ToolRegistry.Dispatcher>>,
  options: ToolRegistry.Options = {},
  rules: Permission.Ruleset = Testing.allowAll
): Layer.Layer<Testing.Services | Truncate.Truncate, Workspace.WorkspaceRootError> =>
  // Asks wait for a reply: the tests answer them with ScriptedPermission.run.
  Testing.layer({ tools: definitions, registry: options, rules, unattended: "wait", services: FakeTruncate })

export const context = (options: Partial<Parameters<typeof Tool.makeContext>[0]> = {}) =>
  Tool.makeContext({ sessionID: "s1", callID: "c1", ...options })
