/**
 * Which other processes have a file open, from `/proc/<pid>/fd` (Linux only). A command that
 * writes into a spill file leaves no pipe whose end says that nothing holds the output any more;
 * a background job still holding the extra pipe the runner watches may have sent its own output
 * elsewhere (`sleep 100 > /dev/null &`), and only then counts as holding the output when it has
 * the file open. A child that left a job's process group (`setsid`, a double fork) is found the
 * same way, by the output file it inherited.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"

/**
 * The pids other than this process that have `file` open, or a file named by the real path of
 * `file` followed by one of `suffixes` (a FIFO beside it: `/proc` shows a removed one as
 * "<path> (deleted)"); the search stops after `limit` of them.
 */
export const holders = Effect.fn("Bash.holders")(function*(file: string, limit = Infinity, suffixes: ReadonlyArray<string> = []) {
  const fs = yield* FileSystem.FileSystem
  const real = yield* fs.realPath(file).pipe(Effect.orElseSucceed(() => file))
  const targets = new Set([real, ...suffixes.map((s) => real + s)])
  // This process reads the file itself (`/proc/self` links to its pid).
  const self = yield* fs.readLink("/proc/self").pipe(Effect.orElseSucceed(() => ""))
  const pids = (yield* fs.readDirectory("/proc").pipe(Effect.orElseSucceed(() => []))).filter((n) => /^\d+$/.test(n) && n !== self)
  const found: Array<number> = []
  for (const pid of pids) {
    if (found.length >= limit) break
    const fds = yield* fs.readDirectory(`/proc/${pid}/fd`).pipe(Effect.orElseSucceed((): Array<string> => []))
    for (const fd of fds) {
      const link = yield* fs.readLink(`/proc/${pid}/fd/${fd}`).pipe(Effect.orElseSucceed(() => ""))
      if (targets.has(link)) {
        found.push(Number(pid))
        break
      }
    }
  }
  return found
})

/** Whether any other process has `file` open (or a file named by it and one of `suffixes`). */
export const holdsFile = (file: string, suffixes: ReadonlyArray<string> = []) =>
  Effect.map(holders(file, 1, suffixes), (found) => found.length > 0)
