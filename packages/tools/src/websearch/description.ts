/** What the model reads about websearch, and the limits it promises. */
import { DEFAULT_NUM_RESULTS, MAX_NUM_RESULTS, SEARCH_TIMEOUT_SECONDS } from "../internal/limits.ts"

export const WEBSEARCH = `Searches the web (Exa) and returns the content of the most relevant pages.
- Provides up-to-date information for current events and recent data, beyond your knowledge cutoff.
- numResults sets how many results to return (default ${DEFAULT_NUM_RESULTS}, at most ${MAX_NUM_RESULTS}).
- livecrawl: 'fallback' (default) crawls live when no cached copy exists, 'preferred' crawls live first.
- type: 'auto' (default, balanced), 'fast' (quick results) or 'deep' (comprehensive).
- contextMaxCharacters bounds the context returned for the results.
- A search that takes longer than ${SEARCH_TIMEOUT_SECONDS} seconds fails.`
