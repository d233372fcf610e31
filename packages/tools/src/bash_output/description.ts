/** The text the model sees for the bash_output tool. */
export const describe = (v: { readonly maxWait: number; readonly defaultWait: number }): string =>
  `Reads what a background job (bash with run_in_background) printed since the last read, and its status (running, exited with its code, or killed and why).

Usage notes:
- \`id\` is the job id bash returned. Only new output is returned; a job's whole output is kept in a file (its path is in the result) that read and grep can page.
- \`input\` is written to the job's stdin first: end a line with "\\n" ("\\r" on a terminal). On a terminal job (tty) it is typed as keys: "\\u0003" is Ctrl-C, "\\u001b[A" the up arrow. Input to a shell or an interpreter (python, node…) is code and is checked like a bash command.
- \`wait_ms\` waits for new output or the exit when there is none yet (default ${v.defaultWait} ms, at most ${v.maxWait} ms). Use it after sending input, or to wait for a server to come up.
- \`filter\` is a regular expression: only the new lines it matches are returned (the others are consumed all the same).
- On a terminal job, \`cols\`/\`rows\` resize the terminal and \`screen: true\` adds the rendered screen (for full-screen programs).`
