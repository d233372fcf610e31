/** Helpers for the real-process tests: a runner layer on Node, and checking that pids are gone. */
import { readFileSync } from "node:fs"
import { NodeServices } from "@effect/platform-node"
import { Effect, FileSystem, Layer } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import { Events, type Sandbox, SpillStorage, Truncate } from "@agent-tools/core"
import * as Bash from "../../src/bash/index.ts"

export const bashShell: Bash.Shell = { path: "/bin/bash", name: "bash", kind: "posix" }

/** The Node spawner, Truncate over a memory spill store (kept visible for reading spills back). */
export const runnerLayer = Layer.mergeAll(
  NodeServices.layer,
  Truncate.layer().pipe(Layer.provideMerge(SpillStorage.layerMemory({ maxBytes: 64 * 1024 * 1024 })))
).pipe(Layer.provide(Events.layerNoop))

/** The same, over a file-system spill store with direct spills: commands write into the spill file. */
export const directRunnerLayer = Layer.mergeAll(
  NodeServices.layer,
  Truncate.layer().pipe(Layer.provideMerge(Layer.unwrap(
    FileSystem.FileSystem.use((fs) => fs.makeTempDirectoryScoped({ prefix: "agent-tools-runner-" })).pipe(
      Effect.map((dir) => SpillStorage.layer({ dir, direct: true, maxBytes: 64 * 1024 * 1024 }))
    )
  )))
).pipe(Layer.provide(Events.layerNoop), Layer.provide(NodeServices.layer))

export const run = (
  command: string,
  options: Partial<Bash.RunOptions> = {}
): Effect.Effect<
  Bash.RunResult,
  Bash.SpawnError | Sandbox.SandboxError,
  ChildProcessSpawner.ChildProcessSpawner | Truncate.Truncate | FileSystem.FileSystem
> =>
  Bash.run({
    command,
    cwd: process.cwd(),
    shell: bashShell,
    platform: process.platform,
    env: Bash.NON_INTERACTIVE_ENV,
    timeout: 20_000,
    grace: 500,
    drain: 250,
    truncation: { tool: "bash", direction: "head+tail" },
    ...options
  })

/** Alive and not a zombie (PID 1 here may never reap orphans). */
export const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** Waits (bounded) for the pids to be gone; returns those still alive. */
export const survivors = (pids: ReadonlyArray<number>, withinMs = 1_000) =>
  Effect.gen(function*() {
    const until = Date.now() + withinMs
    while (Date.now() < until && pids.some(alive)) yield* Effect.sleep("20 millis")
    return pids.filter(alive)
  })

/** `pid 123` lines printed by a test script. */
export const pidsIn = (text: string): Array<number> => [...text.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]))

export const kill = (pids: ReadonlyArray<number>) => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // already gone
    }
  }
}
