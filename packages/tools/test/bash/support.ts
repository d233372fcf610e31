/** Shared layers for the bash analysis tests: an in-memory workspace at /ws, home at /home/u. */
import { Effect, Layer, Path } from "effect"
import { Events, Permission, Workspace } from "@agent-tools/core"
import { MemoryFileSystem } from "@agent-tools/testing"
import * as Bash from "../../src/bash/index.ts"

export const files: MemoryFileSystem.Init = {
  files: {
    "/ws/src/a.ts": "export {}\n",
    "/ws/a.txt": "a\n",
    "/ws/list.txt": "x\n",
    "/etc/hosts": "127.0.0.1 localhost\n",
    "/etc/passwd": "root:x:0:0\n",
    "/home/u/.bashrc": "# rc\n",
    "/outside/secret": "s\n"
  },
  directories: ["/tmp", "/ws/sub", "/ws/build"],
  symlinks: { "/ws/link": "/outside" }
}

/** Parser, Workspace (/ws), Permission with `rules`, home /home/u, on a memory file system. */
export const analysisLayer = (rules: Permission.Ruleset = []) =>
  Layer.mergeAll(
    Workspace.layer({ root: "/ws" }),
    Permission.layer({ rules }),
    Bash.parserLayer,
    Bash.configLayer({ home: "/home/u" })
  ).pipe(Layer.provideMerge(Layer.mergeAll(MemoryFileSystem.layer(files), Path.layer, Events.layerNoop)))

export type Asked = ReadonlyArray<readonly [permission: string, patterns: ReadonlyArray<string>]>

/** The requests a command would make, as `[permission, patterns]` pairs in asking order. */
export const asked = (command: string, cwd?: string) =>
  Effect.map(Bash.explain(command, { cwd }), (e): Asked => e.requests.map((r) => [r.permission, [...r.patterns]] as const))

/** The `[unanalysed] …` pattern asked for a command the analysis cannot see through. */
export const U = (command: string) => Bash.unanalysedPattern(command)

/** Rules from `{pattern: action}` for one permission (bash patterns widened like the config). */
export const rules = (permission: string, table: Record<string, Permission.Action>): Permission.Ruleset =>
  Object.entries(table).map(([pattern, action]) => ({ permission, pattern, action }))
