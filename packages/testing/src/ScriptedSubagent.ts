/**
 * A scripted sub-agent runner for tests of the task tool and of runtimes: `layer(options)`
 * provides `SubagentRunner` with the given agent types; each run is answered by the script
 * (a function of the request and of the prompts the task had before it, or a list of answers used
 * in order) and recorded. A task keeps its prompts, so a run with its `taskID` continues it; an
 * unknown `taskID` starts a new task, as a runtime would.
 *
 * @example
 * ```ts
 * const Runner = ScriptedSubagent.layer({ agents: [{ name: "explore", description: "Finds code" }], script: ["found it"] })
 * // task {description, prompt, subagent_type: "explore"} → "task_id: task_1 …<task_result>\nfound it\n</task_result>"
 * const [run] = yield* (yield* ScriptedSubagent.Recorder).runs
 * ```
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SubagentRunner } from "@agent-tools/core"

export type Reply = string | { readonly fail: string }

export type Script =
  | ((request: SubagentRunner.Request, history: ReadonlyArray<string>) => Reply)
  | ReadonlyArray<Reply>

export interface Run {
  readonly request: SubagentRunner.Request
  readonly taskID: string
  /** Whether the run continued an earlier task. */
  readonly resumed: boolean
}

export class Recorder extends Context.Service<Recorder, {
  /** Every run so far, oldest first. */
  readonly runs: Effect.Effect<ReadonlyArray<Run>>
}>()("@agent-tools/testing/ScriptedSubagent/Recorder") {}

export interface Options {
  readonly agents: ReadonlyArray<SubagentRunner.Agent>
  readonly script: Script
  /** Why the runner is unavailable (default: it is available). */
  readonly unavailable?: string | undefined
}

export const layer = (options: Options): Layer.Layer<SubagentRunner.SubagentRunner | Recorder> =>
  Layer.effectContext(Effect.sync(() => {
    const runs: Array<Run> = []
    const tasks = new Map<string, Array<string>>()
    let index = 0
    const run = (request: SubagentRunner.Request) =>
      Effect.suspend(() => {
        const resumed = request.taskID !== undefined && tasks.has(request.taskID)
        const taskID = resumed ? request.taskID! : `task_${tasks.size + 1}`
        const history = tasks.get(taskID) ?? []
        const reply: Reply | undefined = typeof options.script === "function"
          ? options.script(request, history)
          : options.script[index++]
        tasks.set(taskID, [...history, request.prompt])
        runs.push({ request, taskID, resumed })
        if (reply === undefined) {
          return Effect.fail(new SubagentRunner.SubagentError({ message: "ScriptedSubagent: no scripted reply left" }))
        }
        return typeof reply === "string"
          ? Effect.succeed({ taskID, output: reply })
          : Effect.fail(new SubagentRunner.SubagentError({ message: reply.fail }))
      })
    return Context.make(
      SubagentRunner.SubagentRunner,
      SubagentRunner.SubagentRunner.of({ unavailable: Effect.succeed(options.unavailable), agents: options.agents, run })
    ).pipe(Context.add(Recorder, Recorder.of({ runs: Effect.sync(() => [...runs]) })))
  }))
