/**
 * One sample call per contract tool, in an order that works on the test workspace (read before
 * edit, todowrite before todoread, the background job started before bash_output and bash_kill). `expect` is a string the output must contain; `outcome: "any"`
 * marks tools whose success needs a responder this test does not have (question, task): for them
 * the test checks a well-formed result, not success.
 */
export interface Sample {
  readonly args: Record<string, unknown>
  readonly expect?: string | undefined
  readonly outcome?: "ok" | "any" | undefined
}

export const WORKSPACE_FILES: Record<string, string> = {
  "a.txt": "hello\nworld\n",
  "src/util.ts": "export const answer = 42\n",
  ".agent-tools/skills/demo/SKILL.md": "---\nname: demo\ndescription: A demo skill\n---\nThe demo instructions.\n"
}

export const samples = (webfetchUrl: string): ReadonlyArray<readonly [string, Sample]> => [
  ["read", { args: { filePath: "a.txt" }, expect: "hello" }],
  ["list", { args: {}, expect: "a.txt" }],
  ["glob", { args: { pattern: "**/*.ts" }, expect: "util.ts" }],
  ["grep", { args: { pattern: "answer" }, expect: "util.ts" }],
  ["edit", { args: { filePath: "a.txt", oldString: "world", newString: "there" } }],
  ["multiedit", { args: { filePath: "a.txt", edits: [{ oldString: "there", newString: "mcp" }] } }],
  ["write", { args: { filePath: "notes/new.txt", content: "a new file\n" } }],
  ["apply_patch", { args: { patchText: "*** Begin Patch\n*** Add File: patched.txt\n+patched\n*** End Patch" } }],
  ["bash", {
    args: { command: "echo mcp-bash-ok; cat", description: "Print a marker, then echo input", run_in_background: true },
    expect: "mcp-bash-ok"
  }],
  // A job of the connection's session: still running for the next call, which reads it, then killed.
  ["bash_output", { args: { id: "job-1", input: "more\n", wait_ms: 5_000 }, expect: "more" }],
  ["bash_kill", { args: { id: "job-1" }, expect: "Killed job-1" }],
  ["webfetch", { args: { url: webfetchUrl, format: "text" }, expect: "served to webfetch" }],
  ["todowrite", {
    args: { todos: [{ id: "1", content: "ship the MCP server", status: "in_progress", priority: "high" }] }
  }],
  ["todoread", { args: {}, expect: "ship the MCP server" }],
  ["batch", { args: { tool_calls: [{ tool: "read", parameters: { filePath: "a.txt" } }] }, expect: "hello" }],
  ["question", { args: { questions: [{ question: "Proceed?", header: "Proceed", options: [] }] }, outcome: "any" }],
  ["task", { args: { description: "Explore", prompt: "List files", subagent_type: "general" }, outcome: "any" }],
  ["skill", { args: { name: "demo" }, expect: "The demo instructions." }]
]
