/**
 * Batch stats for glob's mtimes on libuv's thread pool: one `fs.stat` callback per path, a bounded
 * number in flight, no Effect per file (an Effect per stat cost more than the stat itself, and
 * spawned `stat` processes competed with rg for the CPUs).
 */
import { stat } from "node:fs"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import type { Ripgrep } from "@agent-tools/core"

/** Stats in flight at once: enough to keep the thread pool busy, few enough to stay fair. */
const IN_FLIGHT = 32

export const statBatch: Ripgrep.StatBatch = (cwd, paths) =>
  Effect.callback<ReadonlyArray<number | undefined>>((resume) => {
    const out = new Array<number | undefined>(paths.length)
    if (paths.length === 0) return resume(Effect.succeed(out))
    let next = 0
    let done = 0
    const launch = () => {
      const i = next++
      stat(join(cwd, paths[i]!), (error, info) => {
        out[i] = error === null && info.isFile() ? info.mtimeMs : undefined
        if (++done === paths.length) resume(Effect.succeed(out))
        else if (next < paths.length) launch()
      })
    }
    for (let k = 0; k < Math.min(IN_FLIGHT, paths.length); k++) launch()
  })
