/**
 * Ends the processes that still hold a job's output file (Linux, `/proc/<pid>/fd`): a child that
 * left the job's process group (`setsid`, a double fork) keeps the stdout it inherited, so it is
 * found by it even though killing the group missed it. Inside a sandbox this is not needed: its
 * PID namespace ends every process with it.
 */
import * as Effect from "effect/Effect"
import { holders } from "../../bash/holders.ts"

/** SIGKILLs every process holding `file`. */
export const killHolders = Effect.fn("Jobs.killHolders")(function*(file: string) {
  for (const pid of yield* holders(file)) {
    yield* Effect.sync(() => {
      try {
        globalThis.process.kill(pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    })
  }
})
