/** websearch: a web search through Exa (`web_search_exa`); listed only where `ExaConfig` is provided. */
import * as z from "zod"
import type { Tool } from "@agent-tools/core"
import { DEFAULT_NUM_RESULTS, MAX_NUM_RESULTS } from "../internal/limits.ts"
import { WEBSEARCH } from "./description.ts"
import * as Exa from "../internal/web/exa.ts"

export const parameters = z.lazy(() =>
  z.object({
    query: z.string().min(1).describe("Websearch query"),
    numResults: z.number().int().min(1).max(MAX_NUM_RESULTS).optional().describe(
      `Number of search results to return (default: ${DEFAULT_NUM_RESULTS})`
    ),
    livecrawl: z.enum(["fallback", "preferred"]).optional().describe(
      "Live crawl mode - 'fallback': use live crawling as backup if cached content unavailable, 'preferred': prioritize live crawling (default: 'fallback')"
    ),
    type: z.enum(["auto", "fast", "deep"]).optional().describe(
      "Search type - 'auto': balanced search (default), 'fast': quick results, 'deep': comprehensive search"
    ),
    contextMaxCharacters: z.number().int().positive().optional().describe(
      "Maximum characters for context string optimized for LLMs (default: 10000)"
    )
  })
)

type Args = z.output<typeof parameters>

export const NO_RESULTS = "No search results found. Please try a different query."

export const WebSearchTool: Tool.Definition<"websearch", typeof parameters, Exa.Services> = Exa.searchTool("websearch", {
  description: WEBSEARCH,
  parameters,
  span: "WebSearchTool.execute",
  exaTool: "web_search_exa",
  title: "Web search",
  noResults: NO_RESULTS,
  askMetadata: (args: Args) => ({ query: args.query, numResults: args.numResults, livecrawl: args.livecrawl, type: args.type }),
  arguments: (args: Args) => ({
    query: args.query,
    type: args.type ?? "auto",
    numResults: args.numResults ?? DEFAULT_NUM_RESULTS,
    livecrawl: args.livecrawl ?? "fallback",
    ...(args.contextMaxCharacters === undefined ? {} : { contextMaxCharacters: args.contextMaxCharacters })
  }),
  metadata: (args: Args) => ({ query: args.query, numResults: args.numResults ?? DEFAULT_NUM_RESULTS })
})
