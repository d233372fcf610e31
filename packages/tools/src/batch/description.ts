/** What the model reads about the batch tool, and the limits it promises. */
import { BATCH_CONCURRENCY, BATCH_DISALLOWED, BATCH_LIMIT } from "../internal/limits.ts"

export const BATCH = `Executes multiple independent tool calls concurrently to reduce latency.

- 1–${BATCH_LIMIT} tool calls per batch; calls beyond ${BATCH_LIMIT} are refused
- Up to ${BATCH_CONCURRENCY} calls run at once; start order is not guaranteed, results come back in the order of the calls
- Each call is checked as if made on its own: its permissions, validation and output limits apply
- Partial failures do not stop the other tool calls
- Do NOT use the batch tool within another batch tool (disallowed: ${BATCH_DISALLOWED.join(", ")})

Good uses: reading several files, several grep/glob searches, several independent bash commands.
Do not batch calls that depend on each other's results: make them one after the other.

Payload: {"tool_calls": [{"tool": "read", "parameters": {"filePath": "src/index.ts"}}, {"tool": "grep", "parameters": {"pattern": "TODO"}}]}`
