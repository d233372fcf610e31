/**
 * The built-in tool definitions, in the order they are offered to the model
 * (the order of the design's tool contract, then skill, lsp and the hidden invalid). A runtime builds
 * them all with `ToolRegistry.layer(builtins, options)`; question, task, batch and lsp are offered
 * only where a responder, a sub-agent runner, the batch flag and the lsp flag with language servers make them usable.
 */
import type { Tool } from "@agent-tools/core"
import { BatchTool } from "./batch/tool.ts"
import { InvalidTool } from "./invalid/tool.ts"
import { SkillTool } from "./skill/tool.ts"
import { TaskTool } from "./task/tool.ts"
import { BashTool } from "./bash/tool.ts"
import { BashKillTool } from "./bash_kill/tool.ts"
import { BashOutputTool } from "./bash_output/tool.ts"
import { EditTool } from "./edit/tool.ts"
import { MultiEditTool } from "./multiedit/tool.ts"
import { ReadTool } from "./read/tool.ts"
import { WriteTool } from "./write/tool.ts"
import { LspTool } from "./lsp/tool.ts"
import { ApplyPatchTool } from "./apply_patch/tool.ts"
import { GlobTool } from "./glob/tool.ts"
import { GrepTool } from "./grep/tool.ts"
import { ListTool } from "./list/tool.ts"
import { QuestionTool } from "./question/tool.ts"
import { TodoReadTool, TodoWriteTool } from "./todo/tool.ts"
import { CodeSearchTool } from "./codesearch/tool.ts"
import { WebFetchTool } from "./webfetch/tool.ts"
import { WebSearchTool } from "./websearch/tool.ts"

type RequirementsOf<T> = T extends Tool.Definition<string, any, infer R> ? R : never

/** The services the built-in tools need, beyond the registry's own. */
export type Requirements = RequirementsOf<
  | typeof BashTool
  | typeof BashOutputTool
  | typeof BashKillTool
  | typeof ReadTool
  | typeof GlobTool
  | typeof GrepTool
  | typeof ListTool
  | typeof EditTool
  | typeof MultiEditTool
  | typeof WriteTool
  | typeof ApplyPatchTool
  | typeof WebFetchTool
  | typeof TodoWriteTool
  | typeof TodoReadTool
  | typeof QuestionTool
  | typeof TaskTool
  | typeof BatchTool
  | typeof SkillTool
  | typeof LspTool
  | typeof InvalidTool
>

export const builtins: ReadonlyArray<Tool.Definition<string, any, Requirements>> = [
  ReadTool,
  WriteTool,
  EditTool,
  MultiEditTool,
  ApplyPatchTool,
  GrepTool,
  GlobTool,
  ListTool,
  BashTool,
  BashOutputTool,
  BashKillTool,
  WebFetchTool,
  TodoWriteTool,
  TodoReadTool,
  QuestionTool,
  TaskTool,
  BatchTool,
  SkillTool,
  LspTool,
  InvalidTool
]

/** The services the search tools need (an Exa endpoint and key, and an HTTP client). */
export type SearchRequirements = RequirementsOf<typeof WebSearchTool | typeof CodeSearchTool>

/** websearch and codesearch: offered only where search is enabled (they need `ExaConfig`). */
export const searchTools: ReadonlyArray<Tool.Definition<string, any, SearchRequirements>> = [WebSearchTool, CodeSearchTool]
