/**
 * The permission prompt as an MCP elicitation (the contract): a form with one enum field
 * `decision` of `once | always | reject`. Accept with once/always allows; accept with reject,
 * decline or cancel rejects. The message shows what the tool supplied through `DisplayText`
 * (control and bidi characters escaped; a multi-line command or diff set off by a gutter), so no
 * part of it can reorder the text or pass for a line of the message itself.
 */
import { DisplayText, type Permission } from "@agent-tools/core"
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js"

export const DECISIONS = ["once", "always", "reject"] as const

export const requestedSchema: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    decision: {
      type: "string",
      title: "Decision",
      description: "once: allow this call; always: allow the same for the rest of this session; reject: refuse",
      enum: [...DECISIONS]
    }
  },
  required: ["decision"]
}


const field = (metadata: Record<string, unknown> | undefined, key: string): string | undefined => {
  const value = metadata?.[key]
  return typeof value === "string" && value !== "" ? value : undefined
}

/** Continuation lines of a multi-line value start with this, so they cannot pass for lines of the message. */
const GUTTER = "  | "

const patterns = (item: Permission.Item) => item.patterns.map(DisplayText.line).join(", ")

const itemLines = (item: Permission.Item, lines: Array<string>) => {
  const filepath = field(item.metadata, "filepath")
  if (filepath !== undefined) lines.push(`Path: ${DisplayText.line(filepath)}`)
  const display = item.display
  // What the tool's plan says the prompt shows comes first; the metadata stands in without it.
  const command = display?.kind === "command" ? display.command : display === undefined ? field(item.metadata, "command") : undefined
  if (command !== undefined) {
    lines.push(command.includes("\n") ? `Command:\n${GUTTER}${DisplayText.block(command.replace(/\r?\n$/, ""), GUTTER)}` : `Command: ${DisplayText.line(command)}`)
  }
  if (display?.kind === "command") for (const note of display.notes) lines.push(`Note: ${DisplayText.line(note)}`)
  const description = field(item.metadata, "description")
  if (description !== undefined) lines.push(`Description: ${DisplayText.line(description)}`)
  const diff = display?.kind === "diff" ? display.diff : field(item.metadata, "diff")
  if (diff !== undefined) lines.push("", `${GUTTER}${DisplayText.block(DisplayText.clip(diff.trimEnd()), GUTTER)}`)
}

/**
 * What the user reads: who asks, for what, the real path and the diff when the tool gave them;
 * a call that needs several permissions lists each, and the one answer applies to all.
 */
export const message = (request: Permission.Request): string => {
  const tool = DisplayText.line(request.tool?.name ?? request.permission)
  const items = request.requests.length === 0 ? [request] : request.requests
  const lines: Array<string> = []
  if (items.length === 1) {
    const item = items[0]!
    lines.push(`The ${tool} tool asks for permission "${DisplayText.line(item.permission)}": ${patterns(item)}`)
    itemLines(item, lines)
  } else {
    lines.push(`The ${tool} tool asks for ${items.length} permissions (one answer applies to all):`)
    items.forEach((item, i) => {
      lines.push("", `${i + 1}. "${DisplayText.line(item.permission)}": ${patterns(item)}`)
      itemLines(item, lines)
    })
  }
  const always = items.flatMap((item) => item.always ?? item.patterns)
  lines.push("", `once: allow this call · always: allow ${always.map(DisplayText.line).join(", ")} for this session · reject: refuse`)
  return lines.join("\n")
}

export const params = (request: Permission.Request): ElicitRequestFormParams => ({
  mode: "form",
  message: message(request),
  requestedSchema
})

export interface Answer {
  readonly reply: Permission.Reply
  readonly message?: string | undefined
}

/** The Permission reply for an elicitation result. */
export const answerOf = (result: ElicitResult): Answer => {
  if (result.action === "decline") return { reply: "reject" }
  if (result.action === "cancel") return { reply: "reject", message: "The permission prompt was dismissed." }
  const decision = result.content?.decision
  if (decision === "once" || decision === "always") return { reply: decision }
  return { reply: "reject" }
}
