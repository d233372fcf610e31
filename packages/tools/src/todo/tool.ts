/**
 * todowrite and todoread: the session's todo list, kept in `TodoStore` under the call's session
 * id. todowrite replaces the whole list (validated: statuses, priorities, unique ids); todoread
 * returns it.
 */
import * as Effect from "effect/Effect"
import * as z from "zod"
import { TodoStore, Tool } from "@agent-tools/core"
import { TODOREAD, TODOWRITE } from "./description.ts"

const item = () =>
  z.object({
    content: z.string().trim().min(1).describe("Brief description of the task"),
    status: z.enum(TodoStore.STATUSES).describe("Current status of the task: pending, in_progress, completed, cancelled"),
    priority: z.enum(TodoStore.PRIORITIES).optional().describe("Priority level of the task: high, medium, low (default medium)"),
    id: z.string().trim().min(1).optional().describe("Unique identifier of the item (default: its position, from 1)")
  })

const parameters = z.lazy(() =>
  z.object({
    todos: z.array(item()).describe("The updated todo list").superRefine((todos, check) => {
      const seen = new Map<string, number>()
      todos.forEach((todo, i) => {
        const id = todo.id ?? String(i + 1)
        const first = seen.get(id)
        if (first !== undefined) {
          check.addIssue({ code: "custom", path: [i, "id"], message: `duplicate id "${id}" (also item ${first})` })
        } else seen.set(id, i)
      })
    })
  })
)

const render = (todos: ReadonlyArray<TodoStore.Todo>) => ({
  title: `${todos.filter((t) => t.status !== "completed" && t.status !== "cancelled").length} todos`,
  output: JSON.stringify(todos, null, 2),
  metadata: { todos }
})

const storeError = (tool: string) => (e: TodoStore.TodoStoreError) =>
  new Tool.ToolError({ tool, reason: "io", message: `The todo list could not be ${tool === "todowrite" ? "saved" : "read"}: ${e.message}`, cause: e })

export const TodoWriteTool = Tool.define(
  "todowrite",
  Effect.gen(function*() {
    const store = yield* TodoStore.TodoStore
    return {
      description: TODOWRITE,
      parameters,
      requests: () => Effect.succeed([{ permission: "todowrite", patterns: ["*"], always: ["*"] }]),
      execute: Effect.fn("TodoWriteTool.execute")(function*(args: z.output<typeof parameters>, ctx: Tool.Context) {
        const todos: ReadonlyArray<TodoStore.Todo> = args.todos.map((t, i) => ({
          id: t.id ?? String(i + 1),
          content: t.content,
          status: t.status,
          priority: t.priority ?? "medium"
        }))
        yield* store.set(ctx.sessionID, todos).pipe(Effect.mapError(storeError("todowrite")))
        return render(todos)
      }),
      annotations: { readOnly: false, destructive: false }
    } satisfies Tool.Def<typeof parameters>
  })
)

const noArguments = z.lazy(() => z.object({}))

export const TodoReadTool = Tool.define(
  "todoread",
  Effect.gen(function*() {
    const store = yield* TodoStore.TodoStore
    return {
      description: TODOREAD,
      parameters: noArguments,
      requests: () => Effect.succeed([{ permission: "todoread", patterns: ["*"], always: ["*"] }]),
      execute: Effect.fn("TodoReadTool.execute")(function*(_args: z.output<typeof noArguments>, ctx: Tool.Context) {
        return render(yield* store.get(ctx.sessionID).pipe(Effect.mapError(storeError("todoread"))))
      }),
      annotations: { readOnly: true }
    } satisfies Tool.Def<typeof noArguments>
  })
)
