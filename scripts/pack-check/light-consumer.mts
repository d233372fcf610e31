// A TypeScript consumer of @agent-tools/runtime installed without its optional packages (MCP
// client, S3 store, language servers), type-checked with `skipLibCheck: false`: the runtime's
// declarations must not need them.
import * as Core from "@agent-tools/core"
import * as Node from "@agent-tools/node"
import * as Runtime from "@agent-tools/runtime"
import * as Tools from "@agent-tools/tools"

export type Everything = [typeof Core, typeof Node, typeof Runtime, typeof Tools]

export const layer = Runtime.NodeAgentTools.layer({ cwd: ".", config: { lsp: true } })
