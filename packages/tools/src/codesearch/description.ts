/** What the model reads about codesearch, and the limits it promises. */
import { DEFAULT_TOKENS, MAX_TOKENS, MIN_TOKENS, SEARCH_TIMEOUT_SECONDS } from "../internal/limits.ts"

export const CODESEARCH = `Searches code and documentation (Exa Code API): the freshest context for libraries, SDKs and APIs. Use it for any programming question.
- tokensNum sets how much context to return: ${MIN_TOKENS}-${MAX_TOKENS} tokens (default ${DEFAULT_TOKENS}). Lower for a focused question, higher for comprehensive documentation.
- Covers frameworks, libraries, APIs and patterns, e.g. "React useState hook", "pandas dataframe filtering", "Express middleware".
- A search that takes longer than ${SEARCH_TIMEOUT_SECONDS} seconds fails.`
