/**
 * Ends the processes that still hold a job's output file (Linux, `/proc/<pid>/fd`): a child that
 * left the job's process group (`setsid`, a double fork) keeps the stdout it inherited, so it is
 * found by it even though killing the group missed it. Inside a sandbox this is not needed: its
 * PID namespace ends every process with it.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"

/** The pids (other than this process) that have `file` open. */
export const holders = Effect.fn("Jobs.holders")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const target = yield* fs.realPath(file).pipe(Effect.orElseSucceed(() => file))
  const self = String(globalThis.process.pid)
  const pids = (yield* fs.readDirectory("/proc").pipe(Effect.orElseSucceed(() => []))).filter((n) => /^\d+$/.test(n) && n !== self)
  const found: Array<number> = []
  for (const pid of pids) {
    const fds = yield* fs.readDirectory(`/proc/${pid}/fd`).pipe(Effect.orElseSucceed((): Array<string> => []))
    for (const fd of fds) {
      const link = yield* fs.readLink(`/proc/${pid}/fd/${fd}`).pipe(Effect.orElseSucceed(() => ""))
      if (link === target) {
        found.push(Number(pid))
        break
      }
    }
  }
  return found
})

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
