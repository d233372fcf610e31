/** What the model reads about the task tool (sub-agents). */
import type { SubagentRunner } from "@agent-tools/core"

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
