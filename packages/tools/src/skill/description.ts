/** What the model reads about the skill tool, listing the skills. */

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
