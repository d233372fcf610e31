/**
 * Tools that live outside the process and are known only once something connects to them (the
 * tools of an MCP server). A registry holds sources beside its tools and loads a source when its
 * tools are needed: every listing of the tools, and a call or lookup of an id the source claims.
 * Loading twice is cheap for a source that is already connected; a source that cannot load is
 * reported as a warning and its tools are left out, never failing the listing or other calls.
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as Schema from "effect/Schema"
import type * as Tool from "./Tool.ts"

export class ToolSourceError extends Schema.TaggedError<ToolSourceError>()("ToolSourceError", {
  source: Schema.String,
  message: Schema.String
}) {}

export interface ToolSource {
  /** Names the source in warnings, e.g. `MCP server "github"`. */
  readonly name: string
  /** Whether a tool id may be one of this source's: a call of an unknown id loads the sources claiming it. */
  readonly claims: (id: string) => boolean
  /** The source's tools, connecting first when needed. */
  readonly tools: Effect.Effect<ReadonlyArray<Tool.Built>, ToolSourceError>
  /**
   * Emits when the source's tools changed on its own (an MCP server's `tools/list_changed`): the
   * registry loads it again and announces the change on `ToolRegistry.changes`.
   */
  readonly changes?: Stream.Stream<void> | undefined
}
