/**
 * Whether any other process still has a file open, from `/proc/<pid>/fd` (Linux only). A command that
 * writes into a spill file leaves no pipe whose end says that nothing holds the output any more;
 * a background job still holding the extra pipe the runner watches may have sent its own output
 * elsewhere (`sleep 100 > /dev/null &`), and only then counts as holding the output when it has
 * the file open.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"

export const holdsFile = Effect.fn("Bash.holdsFile")(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const target = yield* fs.realPath(file).pipe(Effect.orElseSucceed(() => file))
  // This process reads the file itself.
  const self = yield* fs.readLink("/proc/self").pipe(Effect.orElseSucceed(() => ""))
  const pids = (yield* fs.readDirectory("/proc").pipe(Effect.orElseSucceed(() => []))).filter((n) => /^\d+$/.test(n) && n !== self)
  for (const pid of pids) {
    const fds = yield* fs.readDirectory(`/proc/${pid}/fd`).pipe(Effect.orElseSucceed((): Array<string> => []))
    for (const fd of fds) {
      const link = yield* fs.readLink(`/proc/${pid}/fd/${fd}`).pipe(Effect.orElseSucceed(() => ""))
      if (link === target) return true
    }
  }
  return false
})
