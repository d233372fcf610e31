/**
 * What the model reads about the session tools: the todo list and questions to the user.
 */

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

/** Longest question header, in characters. */
export const MAX_HEADER = 30

/** Longest option label, in characters: a label is a few words the user picks from a list. */
export const MAX_LABEL = 60

export const QUESTION = `Ask the user questions while you work: to gather preferences or requirements, clarify ambiguous instructions, decide between implementation choices, or offer directions to take.

- Each question has a short header (at most ${MAX_HEADER} characters), the full question text and its options (a label of 1–5 words, at most ${MAX_LABEL} characters, and a description each).
- When custom answers are allowed (custom, default true) the user can type an answer of their own: do not add an "Other" or catch-all option.
- Set multiple: true to let the user pick more than one option.
- If you recommend an option, make it the first one and add "(Recommended)" at the end of its label.
- Answers come back as the labels picked (or the text typed), per question.`
