/**
 * skill: loads one of the skills found at start (see `skills.ts`). The description lists the
 * skills no permission rule denies; a call asks the `skill` permission with the skill's name and
 * returns its instructions, its folder and a sample of the files beside it.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { pathToFileURL } from "node:url"
import * as z from "zod"
import { Permission, PermissionRules, Tool, Workspace } from "@agent-tools/core"
import * as Descriptions from "./descriptions.ts"
import * as Skills from "./skills.ts"

const parameters = z.object({
  name: z.string().trim().min(1).describe("The name of the skill from available_skills")
})

export const SkillTool = Tool.define(
  "skill",
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const { root } = yield* Workspace.Workspace
    const { directories } = yield* Skills.SkillConfig
    const rules = (yield* Permission.Permission).rules
    const found = yield* Skills.discover(root, directories)
    const skills = found.filter((s) => PermissionRules.evaluate("skill", s.name, rules).action !== "deny")
    const byName = new Map(skills.map((s) => [s.name, s]))

    const lookup = (name: string) => {
      const skill = byName.get(name)
      return skill !== undefined ? Effect.succeed(skill) : Effect.fail(
        new Tool.ToolError({
          tool: "skill",
          message: `Skill "${name}" not found. Available skills: ${skills.map((s) => s.name).join(", ") || "none"}`
        })
      )
    }

    const execute = Effect.fn("SkillTool.execute")(function*(args: z.output<typeof parameters>) {
      const skill = yield* lookup(args.name)
      const text = yield* fs.readFileString(skill.file).pipe(
        Effect.mapError((e) => new Tool.ToolError({ tool: "skill", message: `Skill "${skill.name}" could not be read: ${e.message}` }))
      )
      const body = Skills.frontMatter(text)?.body ?? text
      const files = yield* Skills.sampleFiles(skill.dir, Descriptions.SKILL_FILES_LIMIT).pipe(
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provideService(Path.Path, path)
      )
      const output = [
        `<skill_content name="${skill.name}">`,
        `# Skill: ${skill.name}`,
        "",
        body.trim(),
        "",
        `Base directory for this skill: ${pathToFileURL(skill.dir).href}`,
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
        "Note: file list is sampled.",
        "",
        "<skill_files>",
        ...files.map((f) => `<file>${f}</file>`),
        "</skill_files>",
        "</skill_content>"
      ].join("\n")
      return { title: `Loaded skill: ${skill.name}`, output, metadata: { name: skill.name, dir: skill.dir } }
    })

    return {
      description: Descriptions.skill(skills),
      parameters,
      requests: (args: z.output<typeof parameters>) =>
        Effect.map(lookup(args.name), (s) => [{ permission: "skill", patterns: [s.name], always: [s.name], metadata: { dir: s.dir } }]),
      execute,
      annotations: { readOnly: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
