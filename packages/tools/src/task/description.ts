/**
 * What the model reads about the agent tools: sub-agents (task), several calls at once (batch),
 * skills, and the target of unusable calls (invalid). Limits are interpolated from their one
 * declaration.
 */
import type { SubagentRunner } from "@agent-tools/core"

/** Most calls one batch runs; the rest are refused. */
export const BATCH_LIMIT = 25
/** How many calls of a batch run at the same time. */
export const BATCH_CONCURRENCY = 8
/** Tools a batch may not call. */
export const BATCH_DISALLOWED: ReadonlyArray<string> = ["batch"]
/** Most files of a skill's folder listed with its content. */
export const SKILL_FILES_LIMIT = 10

const TASK_INTRO = `Launch a new agent to handle a complex, multistep task autonomously.

When to use it:
- A task that needs many searches or reads whose details you do not need to keep (explore a codebase, find where something is done)
- Work that fits one of the agent types below

When not to use it:
- Reading a specific file path: use read; looking for a class or symbol: use grep or glob
- A task inside 2–3 known files: do it yourself

Usage notes:
1. Launch several agents concurrently when you can: several task calls in one message.
2. The agent's final message comes back to you, not to the user: tell the user what matters.
3. Each call starts a fresh agent unless you pass task_id: then the same sub-agent session continues with its earlier context. The result starts with the task_id to use.
4. Give the agent a complete, self-contained prompt, and say exactly what information it should return.`

/** The task tool's description, with the runner's agent types. */
export const task = (agents: ReadonlyArray<SubagentRunner.Agent>): string =>
  `${TASK_INTRO}\n\nAvailable agent types and the tools they have access to:\n${
    agents.length === 0
      ? "(none)"
      : agents.map((a) => `- ${a.name}: ${a.description === "" ? "This subagent should only be called manually by the user." : a.description}`)
        .join("\n")
  }`

export const BATCH = `Executes multiple independent tool calls concurrently to reduce latency.

- 1–${BATCH_LIMIT} tool calls per batch; calls beyond ${BATCH_LIMIT} are refused
- Up to ${BATCH_CONCURRENCY} calls run at once; start order is not guaranteed, results come back in the order of the calls
- Each call is checked as if made on its own: its permissions, validation and output limits apply
- Partial failures do not stop the other tool calls
- Do NOT use the batch tool within another batch tool (disallowed: ${BATCH_DISALLOWED.join(", ")})

Good uses: reading several files, several grep/glob searches, several independent bash commands.
Do not batch calls that depend on each other's results: make them one after the other.

Payload: {"tool_calls": [{"tool": "read", "parameters": {"filePath": "src/index.ts"}}, {"tool": "grep", "parameters": {"pattern": "TODO"}}]}`

export const INVALID = "Do not use"

const SKILL_INTRO = `Load a specialized skill that provides domain-specific instructions and workflows.

When you recognize that a task matches one of the available skills listed below, use this tool to load the full skill instructions.
The skill will inject detailed instructions, workflows, and access to bundled resources (scripts, references, templates) into the conversation context.
Tool output includes a \`<skill_content name="...">\` block with the loaded content.

Invoke this tool to load a skill when a task matches one of the available skills listed below:`

/** The skill tool's description, listing the skills (sorted by name). */
export const skill = (skills: ReadonlyArray<{ readonly name: string; readonly description: string }>): string =>
  skills.length === 0
    ? "Load a specialized skill that provides domain-specific instructions and workflows. No skills are currently available."
    : `${SKILL_INTRO}\n\n## Available Skills\n${skills.map((s) => `- **${s.name}**: ${s.description}`).join("\n")}`
