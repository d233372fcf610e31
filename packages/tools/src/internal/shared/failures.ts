/**
 * Errors of core services as tool errors: the reason code can match on, the service's message for
 * the model, and the service's error kept as the cause.
 */
import { type SpillStorage, Tool } from "@agent-tools/core"

/** A spill that cannot be read: gone (`not-found`), not this store's (`denied`), or an I/O failure. */
export const spillFailure = (tool: string, e: SpillStorage.SpillError): Tool.ToolError =>
  new Tool.ToolError({
    tool,
    reason: e.reason === "missing" ? "not-found" : e.reason === "foreign" ? "denied" : "io",
    message: e.message,
    cause: e
  })
