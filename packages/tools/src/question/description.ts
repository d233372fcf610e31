/** What the model reads about the question tool, and the limits it promises. */
import { MAX_HEADER, MAX_LABEL } from "../internal/limits.ts"

export const QUESTION = `Ask the user questions while you work: to gather preferences or requirements, clarify ambiguous instructions, decide between implementation choices, or offer directions to take.

- Each question has a short header (at most ${MAX_HEADER} characters), the full question text and its options (a label of 1–5 words, at most ${MAX_LABEL} characters, and a description each).
- When custom answers are allowed (custom, default true) the user can type an answer of their own: do not add an "Other" or catch-all option.
- Set multiple: true to let the user pick more than one option.
- If you recommend an option, make it the first one and add "(Recommended)" at the end of its label.
- Answers come back as the labels picked (or the text typed), per question.`
