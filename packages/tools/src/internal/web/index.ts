/**
 * The web tools and their parts.
 *
 * - `WebFetchTool` (`{url, format?, timeout?}`): needs a `WebFetchClient`, an HTTP client that
 *   follows no redirects and refuses the addresses `classify` names (checked at connect time);
 *   `@agent-tools/node` provides one, `fromHttpClient` wraps any client (tests).
 * - `WebSearchTool`, `CodeSearchTool`: Exa's search over its MCP endpoint; they need `ExaConfig`
 *   (endpoint, API key) and an `HttpClient`, and are offered only where search is enabled.
 */
export { BlockedAddressError, classify, refusal } from "../../webfetch/address.ts"
export type { AddressKind } from "../../webfetch/address.ts"
export { fromHttpClient, WebFetchClient } from "../../webfetch/client.ts"
export { CodeSearchTool } from "../../codesearch/tool.ts"
export { CODESEARCH } from "../../codesearch/description.ts"
export {
  DEFAULT_NUM_RESULTS,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_TOKENS,
  MAX_ERROR_BODY_BYTES,
  MAX_NUM_RESULTS,
  MAX_REDIRECTS,
  MAX_RESPONSE_BYTES,
  MAX_TIMEOUT_SECONDS,
  MAX_TOKENS,
  MIN_TOKENS,
  SEARCH_TIMEOUT_SECONDS
} from "../limits.ts"
export { WEBFETCH } from "../../webfetch/description.ts"
export { WEBSEARCH } from "../../websearch/description.ts"
export { DEFAULT_ENDPOINT, ExaConfig } from "./exa.ts"
export type { ExaSettings } from "./exa.ts"
export { WebFetchTool } from "../../webfetch/tool.ts"
export { WebSearchTool } from "../../websearch/tool.ts"
