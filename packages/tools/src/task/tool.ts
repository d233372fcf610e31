/**
 * task: runs a sub-agent through the runtime's `SubagentRunner` (the library has no model loop of
 * its own). The description lists the runner's agent types that no permission rule denies; a call
 * asks the `task` permission for its agent type; `task_id` resumes an earlier task. The answer
 * is bounded like any output. A call made `SubagentRunner.MAX_DEPTH` sub-agents deep is refused
 * (the depth is on the call's context), whatever tools the calling agent lists.
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { Permission, PermissionRules, SubagentRunner, Tool } from "@agent-tools/core"
import * as Descriptions from "./description.ts"

const parameters = z.lazy(() =>
  z.object({
    description: z.string().trim().min(1).describe("A short (3-5 words) description of the task"),
    prompt: z.string().trim().min(1).describe("The task for the agent to perform"),
    subagent_type: z.string().trim().min(1).describe("The type of specialized agent to use for this task"),
    task_id: z.string().trim().min(1).optional().describe(
      "This should only be set if you mean to resume a previous task (you can pass a prior task_id and the task will continue the same subagent session as before instead of creating a fresh one)"
    )
  })
)

type Args = z.output<typeof parameters>

export const TaskTool = Tool.define(
  "task",
  Effect.gen(function*() {
    const runner = yield* SubagentRunner.SubagentRunner
    const rules = (yield* Permission.Permission).rules
    const agents = runner.agents.filter((a) => PermissionRules.evaluate("task", a.name, rules).action !== "deny")
      .toSorted((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    const names = new Set(agents.map((a) => a.name))
    const unknown = (type: string) =>
      new Tool.ToolError({
        tool: "task",
        reason: "not-found",
        message: `Unknown agent type: ${type} is not a valid agent type. Available agent types: ${
          agents.map((a) => a.name).join(", ") || "none"
        }`
      })

    const tooDeep = (ctx: Tool.Context) => {
      const depth = ctx.depth ?? 0
      return depth < SubagentRunner.MAX_DEPTH ? undefined : new Tool.ToolError({
        tool: "task",
        reason: "denied",
        message: `A sub-agent cannot start another sub-agent here: this call is ${depth} sub-agents deep and at most ${SubagentRunner.MAX_DEPTH} may be nested. Do the task with your own tools instead.`
      })
    }

    /** Why the call is refused before anything is asked (too deep, an unknown type), or undefined. */
    const refusal = (args: Args, ctx: Tool.Context) => tooDeep(ctx) ?? (names.has(args.subagent_type) ? undefined : unknown(args.subagent_type))

    const requests = (args: Args, ctx: Tool.Context) => {
      const refused = refusal(args, ctx)
      return refused !== undefined ? Effect.fail(refused) : Effect.succeed([{
        permission: "task",
        patterns: [args.subagent_type],
        always: [args.subagent_type],
        metadata: { description: args.description, subagent_type: args.subagent_type }
      }])
    }

    return {
      description: Descriptions.task(agents),
      parameters,
      subagents: agents.map((a) => a.name),
      unavailable: runner.unavailable,
      requests,
      execute: Effect.fn("TaskTool.execute")(function*(args: Args, ctx: Tool.Context) {
        const refused = refusal(args, ctx)
        if (refused !== undefined) return yield* refused
        yield* ctx.metadata({ title: args.description, metadata: { subagent_type: args.subagent_type } })
        const outcome = yield* runner.run({
          depth: (ctx.depth ?? 0) + 1,
          sessionID: ctx.sessionID,
          callID: ctx.callID,
          taskID: args.task_id,
          agent: args.subagent_type,
          description: args.description,
          prompt: args.prompt,
          abort: ctx.abort
        }).pipe(Effect.mapError((e) =>
          new Tool.ToolError({ tool: "task", reason: "other", message: `The ${args.subagent_type} agent failed: ${e.message}`, cause: e })
        ))
        return {
          title: args.description,
          output: `task_id: ${outcome.taskID} (for resuming to continue this task if needed)\n\n<task_result>\n${outcome.output}\n</task_result>`,
          metadata: { ...outcome.metadata, task_id: outcome.taskID, subagent_type: args.subagent_type }
        }
      }),
      annotations: { readOnly: false, destructive: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
