/**
 * lsp: code navigation through the runtime's language servers (the `Lsp` service): definition,
 * references, hover and the document's symbols. Experimental: offered only when `LspToolConfig`
 * enables it and a real `Lsp` is provided.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Path from "effect/Path"
import * as z from "zod"
import { Lsp, Tool, Workspace } from "@agent-tools/core"
import { locate, withExternal } from "../internal/shared/access.ts"
import { LSP, OPERATIONS } from "./description.ts"

export interface LspToolConfig {
  readonly enabled: boolean
}

/** Whether the lsp tool is offered (off unless the runtime turns it on). */
export const LspToolConfig = Context.Reference<LspToolConfig>("@agent-tools/tools/LspToolConfig", {
  defaultValue: () => ({ enabled: false })
})

export const DISABLED = "it is experimental and off: set experimental.lsp_tool to true in agent-tools.json to enable it"
export const NO_SERVERS = "no language servers run here: set lsp to true in agent-tools.json to enable them"

const parameters = z.lazy(() =>
  z.object({
    operation: z.enum(OPERATIONS).describe("The LSP operation to perform"),
    filePath: z.string().describe("The path of the file (absolute, or relative to the workspace root)"),
    line: z.number().int().min(1).describe("The line number (1-based, as shown in editors)"),
    character: z.number().int().min(1).describe("The character offset (1-based, as shown in editors)")
  })
)

// LSP's SymbolKind numbers, 1-based.
const SYMBOL_KINDS = [
  "File", "Module", "Namespace", "Package", "Class", "Method", "Property", "Field", "Constructor", "Enum",
  "Interface", "Function", "Variable", "Constant", "String", "Number", "Boolean", "Array", "Object", "Key",
  "Null", "EnumMember", "Struct", "Event", "Operator", "TypeParameter"
]

const kindName = (kind: number) => SYMBOL_KINDS[kind - 1] ?? `Kind${kind}`

const symbolLines = (symbols: ReadonlyArray<Lsp.DocumentSymbol>, depth: number): Array<string> =>
  symbols.flatMap((s) => [
    `${"  ".repeat(depth)}${kindName(s.kind)} ${s.name}${s.detail === undefined ? "" : ` ${s.detail}`} (line ${s.range.start.line + 1})`,
    ...symbolLines(s.children, depth + 1)
  ])

export const LspTool = Tool.define(
  "lsp",
  Effect.gen(function*() {
    const config = yield* LspToolConfig
    const lsp = yield* Lsp.Lsp
    const services = yield* Effect.context<Workspace.Workspace | Path.Path>()

    const prepare = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      const resolved = yield* locate("lsp", args.filePath)
      const shown = yield* show(resolved.real)
      const requests = withExternal(resolved, { access: "read", kind: "file" }, {
        permission: "lsp",
        patterns: [shown],
        always: ["*"],
        metadata: { filepath: resolved.real, operation: args.operation }
      })
      return { real: resolved.real, shown, requests }
    }, Effect.provideContext(services))

    /** A path as the model sees paths: relative inside the workspace. */
    const show = Effect.fnUntraced(function*(file: string) {
      const path = yield* Path.Path
      const rel = path.relative((yield* Workspace.Workspace).root, file)
      return rel === "" || rel.startsWith("..") || path.isAbsolute(rel) ? file : rel.split(path.sep).join("/")
    }, Effect.provideContext(services))

    /** `path:line:character` lines, 1-based, in path and position order (servers answer in any order). */
    const located = (locations: ReadonlyArray<Lsp.Location>) =>
      Effect.forEach(
        locations.toSorted((a, b) =>
          a.path < b.path ? -1 : a.path > b.path ? 1 : a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character
        ),
        (l) => Effect.map(show(l.path), (p) => `${p}:${l.range.start.line + 1}:${l.range.start.character + 1}`)
      )

    // The run takes over what the call's plan prepared (a run without a plan prepares its own).
    type Prepared = Effect.Success<ReturnType<typeof prepare>>
    const execute = Effect.fn("LspTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context, planned?: Prepared) {
      const { real, shown, requests } = planned ?? (yield* prepare(args))
      yield* ctx.askAll(requests)
      const position = { line: args.line - 1, character: args.character - 1 }
      const answer = Effect.gen(function*() {
        switch (args.operation) {
          case "goToDefinition":
            return (yield* located(yield* lsp.definition(real, position))).join("\n")
          case "findReferences":
            return (yield* located(yield* lsp.references(real, position))).join("\n")
          case "hover":
            return (yield* lsp.hover(real, position)) ?? ""
          case "documentSymbol":
            return symbolLines(yield* lsp.documentSymbols(real), 0).join("\n")
        }
      })
      const output = yield* answer.pipe(Effect.mapError((e) => new Tool.ToolError({ tool: "lsp", reason: e.reason === "NoServer" ? "unavailable" : "io", message: e.message, cause: e })))
      return {
        title: `${args.operation} ${shown}:${args.line}:${args.character}`,
        output: output === "" ? `No results found for ${args.operation}` : output,
        metadata: { operation: args.operation }
      }
    })

    return {
      description: LSP,
      parameters,
      annotations: { readOnly: true },
      unavailable: Effect.sync(() => !config.enabled ? DISABLED : !lsp.enabled ? NO_SERVERS : undefined),
      plan: (args: z.output<typeof parameters>) => Effect.map(prepare(args), (p) => ({ requests: p.requests, state: p })),
      execute
    } satisfies Tool.Def<typeof parameters, Tool.Metadata, Prepared>
  })
)
