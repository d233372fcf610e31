/**
 * Pure mapping between registry tools and MCP shapes: the tool list entry (JSON Schema,
 * annotations), the call result (text content + `structuredContent: { title, metadata }`) and the
 * error result (`isError: true` with the message, and `structuredContent: { error: { type, reason } }`
 * for code to match on).
 */
import { MetadataBound, type Tool } from "@agent-tools/core"
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"

/**
 * The contract's hints for the built-in tools, used when a tool does not annotate itself:
 * readOnlyHint for read/grep/glob/list/todoread, destructiveHint for the editing tools and bash.
 */
export const CONTRACT_ANNOTATIONS: Readonly<Record<string, Tool.Annotations>> = {
  read: { readOnly: true },
  grep: { readOnly: true },
  glob: { readOnly: true },
  list: { readOnly: true },
  todoread: { readOnly: true },
  write: { destructive: true },
  edit: { destructive: true },
  multiedit: { destructive: true },
  apply_patch: { destructive: true },
  bash: { destructive: true },
  bash_output: { destructive: true },
  bash_kill: { destructive: true }
}

/** Tools that reach outside the workspace (MCP openWorldHint), when a tool does not say so itself. */
const OPEN_WORLD = new Set(["bash", "bash_output", "webfetch", "websearch", "codesearch"])

/** Display names of the built-ins whose id does not read as one. */
const TITLES: Readonly<Record<string, string>> = {
  apply_patch: "Apply patch",
  bash_kill: "Kill background job",
  bash_output: "Background job output",
  multiedit: "Multi-edit",
  todoread: "Read todos",
  todowrite: "Write todos",
  webfetch: "Web fetch"
}

/** A display name for a client's UI: the table's, else the id with `_`/`-` as spaces, capitalised. */
export const titleOf = (id: string): string => {
  const named = TITLES[id]
  if (named !== undefined) return named
  const words = id.replace(/[_-]+/g, " ").trim()
  return words === "" ? id : words[0]!.toUpperCase() + words.slice(1)
}

export interface Hints {
  readonly title: string
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

/**
 * Every hint is always sent: MCP's defaults (readOnly false, destructive true, openWorld true)
 * would otherwise mark harmless tools like todowrite as destructive and every tool as reaching
 * outside. Read-only tools are idempotent.
 */
export const hintsOf = (tool: Pick<Tool.Built, "id" | "annotations">): Hints => {
  const fallback = CONTRACT_ANNOTATIONS[tool.id] ?? {}
  const readOnly = tool.annotations.readOnly ?? fallback.readOnly ?? false
  const destructive = !readOnly && (tool.annotations.destructive ?? fallback.destructive ?? false)
  return {
    title: titleOf(tool.id),
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: readOnly,
    openWorldHint: tool.annotations.openWorld ?? OPEN_WORLD.has(tool.id)
  }
}

/** The MCP tool entry, or the reason the tool cannot be listed (MCP needs an object root schema). */
export const toMcpTool = (
  tool: Pick<Tool.Built, "id" | "description" | "jsonSchema" | "annotations">,
  name: string
): McpTool | string => {
  const { $schema: _ignored, ...schema } = tool.jsonSchema
  if (schema.type !== "object") {
    return `tool "${tool.id}" is not exposed over MCP: its parameters must be a JSON Schema object (got type ${
      JSON.stringify(schema.type)
    })`
  }
  return {
    name,
    title: titleOf(tool.id),
    description: tool.description,
    inputSchema: schema as McpTool["inputSchema"],
    annotations: hintsOf(tool)
  }
}

const bigints = (_key: string, v: unknown) => typeof v === "bigint" ? v.toString() : v

/** Metadata as plain JSON: bigints become strings; on a cycle, repeated objects are dropped. */
export const jsonSafe = (value: Record<string, unknown>): Record<string, unknown> => {
  let text: string
  try {
    text = JSON.stringify(value, bigints)
  } catch {
    const seen = new WeakSet<object>()
    text = JSON.stringify(value, (key, v: unknown) => {
      if (typeof v === "object" && v !== null) {
        if (seen.has(v)) return undefined
        seen.add(v)
      }
      return bigints(key, v)
    })
  }
  return JSON.parse(text) as Record<string, unknown>
}

type Content = CallToolResult["content"][number]

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s

/** Attachments travel as MCP image or embedded-resource blocks, never as base64 in the text. */
const attachmentContent = (attachment: Tool.Attachment): Content | undefined => {
  const match = DATA_URL.exec(attachment.url)
  if (match === null) return undefined
  const mimeType = match[1] ?? attachment.mime
  const data = match[2] ?? ""
  if (mimeType.startsWith("image/")) return { type: "image", data, mimeType }
  return {
    type: "resource",
    resource: { uri: `attachment:///${encodeURIComponent(attachment.filename ?? "file")}`, mimeType, blob: data }
  }
}

/**
 * The MCP result of a tool result. `maxBytes` (the tool's truncation limit, as for the text)
 * bounds the metadata sent in `structuredContent` (`MetadataBound`): it is not cut with the text.
 */
export const toCallToolResult = (result: Tool.Result, maxBytes?: number): CallToolResult => {
  const attachments = (result.attachments ?? []).flatMap((a) => attachmentContent(a) ?? [])
  const metadata = jsonSafe(result.metadata)
  return {
    content: [{ type: "text", text: result.output }, ...attachments],
    structuredContent: { title: result.title, metadata: maxBytes === undefined ? metadata : MetadataBound.bound(metadata, maxBytes) }
  }
}

/**
 * What code can match on in a failed call's result, under `structuredContent.error`: `type` the
 * error's tag (`ToolError`, `PermissionRejectedError`, `PermissionDeniedError`,
 * `ToolUnavailableError`, `InvalidArgumentsError`) and `reason` where the error has one (a
 * `ToolError`'s reason, e.g. `not-found` or `stale`; a `ToolUnavailableError`'s, e.g. `denied`).
 */
export interface ErrorData {
  readonly type: string
  readonly reason?: string | undefined
}

/** The error data of a failure (see `ErrorData`). */
export const errorData = (failure: { readonly _tag: string; readonly reason?: unknown }): ErrorData =>
  typeof failure.reason === "string" ? { type: failure._tag, reason: failure.reason } : { type: failure._tag }

/** The MCP result of a failed call: the message for the model, the error data for code. */
export const errorResult = (failure: { readonly _tag: string; readonly message: string; readonly reason?: unknown }): CallToolResult => ({
  content: [{ type: "text", text: failure.message }],
  structuredContent: { error: { ...errorData(failure) } },
  isError: true
})
