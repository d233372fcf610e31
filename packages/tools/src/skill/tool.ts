/**
 * skill: loads one of the skills found at start (see `skills.ts`). The description lists the
 * skills no permission rule denies; a call asks the `skill` permission with the skill's name and
 * returns its instructions, its folder and a sample of the files beside it. The SKILL.md is read
 * by its real path, resolved again at each call: when that lies outside the skill's (real) skills
 * directory (a symbolic link out), the call also asks what `read` of that path asks
 * (`external_directory` when outside the workspace, then `read`), in the same prompt.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { pathToFileURL } from "node:url"
import * as z from "zod"
import { Permission, PermissionRules, Tool, Workspace } from "@agent-tools/core"
import { displayPath } from "../internal/file/common.ts"
import { fsErrorReason } from "../internal/file/files.ts"
import { locate, withExternal } from "../internal/shared/access.ts"
import { SKILL_FILES_LIMIT } from "../internal/limits.ts"
import * as Descriptions from "./description.ts"
import * as Skills from "./skills.ts"

const parameters = z.lazy(() =>
  z.object({
    name: z.string().trim().min(1).describe("The name of the skill from available_skills")
  })
)

export const SkillTool = Tool.define(
  "skill",
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const workspace = yield* Workspace.Workspace
    const { directories } = yield* Skills.SkillConfig
    const rules = (yield* Permission.Permission).rules
    const found = yield* Skills.discover(workspace.root, directories, workspace.contains)
    const skills = found.filter((s) => PermissionRules.evaluate("skill", s.name, rules).action !== "deny")
    const byName = new Map(skills.map((s) => [s.name, s]))

    const lookup = (name: string) => {
      const skill = byName.get(name)
      return skill !== undefined ? Effect.succeed(skill) : Effect.fail(
        new Tool.ToolError({
          tool: "skill",
          reason: "not-found",
          message: `Skill "${name}" not found. Available skills: ${skills.map((s) => s.name).join(", ") || "none"}`
        })
      )
    }

    /** The skill, the real path of its SKILL.md now, and the call's permission requests. */
    const prepare = Effect.fnUntraced(function*(args: z.output<typeof parameters>) {
      const skill = yield* lookup(args.name)
      const resolved = yield* locate("skill", skill.file)
      const own: Tool.AskInput = { permission: "skill", patterns: [skill.name], always: [skill.name], metadata: { dir: skill.dir } }
      if (Skills.isHome(skill.home, resolved.real, path.sep)) return { skill, real: resolved.real, requests: [own] }
      const read: Tool.AskInput = {
        permission: "read",
        patterns: [yield* displayPath(resolved)],
        always: ["*"],
        metadata: { filepath: resolved.real }
      }
      return { skill, real: resolved.real, requests: [...withExternal(resolved, { access: "read" }, read), own] }
    }, Effect.provideService(Workspace.Workspace, workspace), Effect.provideService(Path.Path, path))

    // The run takes over what the call's plan prepared (a run without a plan prepares its own).
    type Prepared = Effect.Success<ReturnType<typeof prepare>>
    const execute = Effect.fn("SkillTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context, planned?: Prepared) {
      const { skill, real, requests } = planned ?? (yield* prepare(args))
      yield* ctx.askAll(requests)
      const text = yield* fs.readFileString(real).pipe(
        Effect.mapError((e) =>
          new Tool.ToolError({ tool: "skill", reason: fsErrorReason(e), message: `Skill "${skill.name}" could not be read: ${e.message}`, cause: e })
        )
      )
      const body = Skills.frontMatter(text)?.body ?? text
      const files = yield* Skills.sampleFiles(skill.dir, SKILL_FILES_LIMIT).pipe(
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
      plan: (args: z.output<typeof parameters>) => Effect.map(prepare(args), (p) => ({ requests: p.requests, state: p })),
      execute,
      annotations: { readOnly: true }
    } satisfies Tool.Def<typeof parameters, Tool.Metadata, Prepared>
  })
)
