/**
 * The embedded defaults a workspace gets before its own `agent-tools.json`.
 */
import type { PermissionRules } from "@agent-tools/core"

/**
 * Permission defaults, evaluated before the config's rules (the last matching rule wins, so any
 * config key overrides them). Looking is free, changing asks: read/grep/glob/list, the todo
 * list, loading skills and asking the language servers (lsp) are allowed, except `.env` files; a sub-agent (task) is allowed because
 * each of its own calls is checked; edits, shell commands, paths outside the workspace, the hosts
 * a sandboxed command connects to (network) and anything unknown ask. Spill files stay readable
 * without a prompt: Workspace treats this
 * workspace's spill directory as readable (never writable); other workspaces' spills are outside.
 */
export const permission: PermissionRules.Config = {
  "*": "ask",
  read: { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow" },
  grep: "allow",
  glob: "allow",
  list: "allow",
  todoread: "allow",
  todowrite: "allow",
  skill: "allow",
  lsp: "allow",
  task: "allow",
  edit: "ask",
  bash: "ask",
  external_directory: "ask",
  // Each host a sandboxed command connects to through the network proxy.
  network: "ask"
}
