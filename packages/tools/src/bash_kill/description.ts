/** The text the model sees for the bash_kill tool. */
export const DESCRIPTION =
  `Ends a background job (bash with run_in_background) and every process it started. Returns the output it printed since the last read and how it ended.

Jobs also end on their own when the session ends. Use this for a server or watcher you no longer need, or a program that hangs.`
