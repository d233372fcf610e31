/** What the model reads about the todo list (todowrite and todoread). */

export const TODOWRITE = `Create and manage a structured task list for your current session. It helps you track progress, organize complex tasks and show the user how the work is going.

Each call replaces the whole list: send every item, with its current status.
- content: a brief description of the task
- status: pending, in_progress, completed or cancelled
- priority: high, medium or low (default medium)
- id: a stable id for the item (default: its position in the list); ids must be unique

When to use it:
- A task with 3 or more distinct steps, or one that needs careful planning
- The user gives several tasks (a numbered or comma-separated list), or asks for a todo list
- New instructions arrive: capture them as todos
- When you start a task, mark it in_progress (ideally one at a time); mark it completed as soon as it is done, and add the follow-up tasks you discover

When not to use it:
- A single, straightforward task, or one done in fewer than 3 trivial steps
- A purely conversational or informational request

Only mark a task completed when it is fully done: not when tests fail, the work is partial or you hit an error you could not resolve. Cancel tasks that are no longer relevant.`

export const TODOREAD = `Read the current todo list of this session (as the todowrite tool last set it).
Use it at the start of a conversation, before starting new work, when unsure what to do next, or after finishing a task, to see what is left. It takes no arguments and returns the items with their status, priority and id.`
