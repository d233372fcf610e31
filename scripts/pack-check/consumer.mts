// A TypeScript consumer of every published package, type-checked with `skipLibCheck: false`: the
// public declarations must compile as a stranger's project sees them, third-party types included.
// (@agent-tools/ai-sdk is left out: the AI SDK's own declarations import `json-schema` types it
// does not depend on, which fails any project using `ai` with `skipLibCheck: false`.)
import * as Cli from "@agent-tools/cli"
import * as Core from "@agent-tools/core"
import * as Mcp from "@agent-tools/mcp"
import * as McpClient from "@agent-tools/mcp/client"
import * as Node from "@agent-tools/node"
import * as SpillS3 from "@agent-tools/spill-s3"
import * as Testing from "@agent-tools/testing"
import * as Tools from "@agent-tools/tools"

export type Everything = [typeof Cli, typeof Core, typeof Mcp, typeof McpClient, typeof Node, typeof SpillS3, typeof Testing, typeof Tools]

export const bash: Core.Tool.Definition<"bash", typeof Tools.Bash.parameters, any> = Tools.BashTool
