/**
 * The mtimes of many files from the system's own tools, where the layer has no stat thread: GNU
 * `stat --printf %.9Y` fed by `xargs -0`, both found by absolute, trusted path (never in a
 * directory the workspace owns), and used only after a check that they give sub-second times.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ChildProcess, type ChildProcessSpawner } from "effect/process"
import { cleanPath } from "./internal/ripgrep/output.ts"
import type * as Ripgrep from "./Ripgrep.ts"
import { KILL, optionalConfig } from "./RipgrepResolve.ts"
import * as TrustedProgram from "./TrustedProgram.ts"

/** `1795317241.520942078<TAB>./src/a.ts` (GNU stat `%.9Y\t%n`) → an `Mtime`. */
export const parseStatRecord = (record: string): Ripgrep.Mtime | undefined => {
  const tab = record.indexOf("\t")
  if (tab <= 0) return undefined
  const seconds = Number.parseFloat(record.slice(0, tab))
  return Number.isFinite(seconds) ? { path: cleanPath(record.slice(tab + 1)), mtime: Math.floor(seconds * 1000) } : undefined
}

export interface NativeTools {
  readonly stat: string
  readonly xargs: string
}

/** `stat` and `xargs` by absolute, trusted path (like rg, never from a directory the workspace owns). */
export const nativeTools = Effect.fnUntraced(function*(untrusted: ReadonlyArray<string>) {
  const pathVar = (yield* optionalConfig("PATH")) ?? ""
  const options = { path: pathVar.split(":"), untrusted }
  const stat = yield* Effect.option(TrustedProgram.find(["stat"], options))
  const xargs = yield* Effect.option(TrustedProgram.find(["xargs"], options))
  return Option.isSome(stat) && Option.isSome(xargs) ? { stat: stat.value, xargs: xargs.value } : undefined
})

/** Whether a GNU `stat` with sub-second `%.9Y` and an `xargs -0` are available. */
export const detectNativeStat = (spawner: ChildProcessSpawner.ChildProcessSpawner["Service"], tools: NativeTools) =>
  spawner.string(ChildProcess.make(tools.stat, ["--printf", "%.9Y", "/"], { stdin: "ignore", stderr: "ignore", ...KILL })).pipe(
    Effect.flatMap((out) =>
      /^\d+\.\d{9}$/.test(out.trim())
        ? spawner.exitCode(ChildProcess.make(tools.xargs, ["-0", "true"], { stdin: "ignore", stdout: "ignore", stderr: "ignore", ...KILL }))
          .pipe(Effect.map((code) => code === 0))
        : Effect.succeed(false)
    ),
    Effect.timeoutOption("5 seconds"),
    Effect.map((r) => r._tag === "Some" && r.value),
    Effect.orElseSucceed(() => false)
  )
