/** codesearch: code and API context through Exa (`get_code_context_exa`); listed only where `ExaConfig` is provided. */
import * as z from "zod"
import type { Tool } from "@agent-tools/core"
import { DEFAULT_TOKENS, MAX_TOKENS, MIN_TOKENS } from "../internal/limits.ts"
import { CODESEARCH } from "./description.ts"
import * as Exa from "../internal/web/exa.ts"

export const parameters = z.lazy(() =>
  z.object({
    query: z.string().min(1).describe(
      "Search query to find relevant context for APIs, Libraries, and SDKs. For example, 'React useState hook examples', 'Python pandas dataframe filtering', 'Express.js middleware', 'Next js partial prerendering configuration'"
    ),
    tokensNum: z.number().int().min(MIN_TOKENS).max(MAX_TOKENS).default(DEFAULT_TOKENS).describe(
      `Number of tokens to return (${MIN_TOKENS}-${MAX_TOKENS}). Default is ${DEFAULT_TOKENS} tokens. Adjust this value based on how much context you need - use lower values for focused queries and higher values for comprehensive documentation.`
    )
  })
)

type Args = z.output<typeof parameters>

export const NO_RESULTS =
  "No code snippets or documentation found. Please try a different query, be more specific about the library or programming concept, or check the spelling of framework names."

export const CodeSearchTool: Tool.Definition<"codesearch", typeof parameters, Exa.Services> = Exa.searchTool("codesearch", {
  description: CODESEARCH,
  parameters,
  span: "CodeSearchTool.execute",
  exaTool: "get_code_context_exa",
  title: "Code search",
  noResults: NO_RESULTS,
  askMetadata: (args: Args) => ({ query: args.query, tokensNum: args.tokensNum }),
  arguments: (args: Args) => ({ query: args.query, tokensNum: args.tokensNum }),
  metadata: (args: Args) => ({ query: args.query, tokensNum: args.tokensNum })
})
