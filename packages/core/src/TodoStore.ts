/**
 * Where each session's todo list lives (the todowrite and todoread tools). In memory by default;
 * a runtime that keeps sessions across processes swaps in its own store (a database, a file).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

export const STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const
export const PRIORITIES = ["high", "medium", "low"] as const

export type Status = (typeof STATUSES)[number]
export type Priority = (typeof PRIORITIES)[number]

export interface Todo {
  readonly id: string
  readonly content: string
  readonly status: Status
  readonly priority: Priority
}

export class TodoStoreError extends Schema.TaggedError<TodoStoreError>()("TodoStoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export class TodoStore extends Context.Service<TodoStore, {
  /** The session's list, in order; empty when it has none. */
  readonly get: (sessionID: string) => Effect.Effect<ReadonlyArray<Todo>, TodoStoreError>
  /** Replaces the session's whole list. */
  readonly set: (sessionID: string, todos: ReadonlyArray<Todo>) => Effect.Effect<void, TodoStoreError>
}>()("@agent-tools/core/TodoStore") {}

/** One list per session, for the life of the layer. */
export const layerMemory: Layer.Layer<TodoStore> = Layer.sync(TodoStore, () => {
  const lists = new Map<string, ReadonlyArray<Todo>>()
  return TodoStore.of({
    get: (sessionID) => Effect.sync(() => lists.get(sessionID) ?? []),
    set: (sessionID, todos) => Effect.sync(() => void lists.set(sessionID, [...todos]))
  })
})
