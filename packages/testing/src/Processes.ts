/**
 * Real processes, for tests that check a call's processes are gone (abort, cancel, timeout): a
 * command that carries a unique marker (`sleep 3600.1234`) is found by its command line in
 * /proc (Linux), which also works when it runs in a sandbox's own pid namespace.
 */
import { readdirSync, readFileSync } from "node:fs"
import * as Effect from "effect/Effect"

/** A marker unlikely to match any other process: use it as `sleep ${marker}`. */
export const marker = (): string => `3600.${Math.floor(Math.random() * 1e9)}`

/** Pids of live processes (zombies excluded: PID 1 may never reap orphans) whose command line contains `text`. */
export const withMarker = (text: string): ReadonlyArray<number> =>
  readdirSync("/proc").filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid).filter((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      return cmdline.includes(text) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
    } catch {
      return false
    }
  }).map(Number)

const tick = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 20)))

/**
 * Polls `check` until it holds, on the real clock (also under `it.effect`'s TestClock); the
 * test's own timeout bounds the wait.
 */
export const waitUntil = (check: () => boolean): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (!check()) yield* tick
  })
