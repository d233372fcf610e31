/**
 * Runs the search tools over a small fixture with every Ripgrep backend: the rg binary (where
 * installed) and the portable layer, on the real file system and on the in-memory one. The
 * fixture has a workspace (`root`) and a directory outside it (`outside`); mtimes are set
 * explicitly so "newest first" is deterministic.
 */
import { Effect, FileSystem, Layer, Path, Stream } from "effect"
import * as PlatformError from "effect/PlatformError"
import { NodeServices } from "@effect/platform-node"
import { MemoryFileSystem } from "@agent-tools/testing"
import { Ripgrep, RipgrepBinary, RipgrepPortable, SpillStorage, Tool, Workspace } from "@agent-tools/core"
import { spawnSync } from "node:child_process"

export const hasRg = spawnSync("rg", ["--version"]).status === 0

type Platform = FileSystem.FileSystem | Path.Path
export interface Backend {
  readonly name: string
  readonly enabled: boolean
  readonly memory: boolean
  readonly platform: Layer.Layer<Platform>
  readonly ripgrep: Layer.Layer<Ripgrep.Ripgrep, unknown, Platform>
}

export const backends: ReadonlyArray<Backend> = [
  {
    name: "rg",
    enabled: hasRg,
    memory: false,
    platform: NodeServices.layer,
    ripgrep: RipgrepBinary.layer().pipe(Layer.provide(NodeServices.layer))
  },
  { name: "portable/node", enabled: true, memory: false, platform: NodeServices.layer, ripgrep: RipgrepPortable.layer() },
  {
    name: "portable/memory",
    enabled: true,
    memory: true,
    platform: Layer.mergeAll(MemoryFileSystem.layer({ directories: ["/tmp"] }), Path.layer),
    ripgrep: RipgrepPortable.layer()
  }
]

export interface Fixture {
  /** Workspace-relative path → content. */
  readonly files: Record<string, string>
  /** Workspace-relative path → mtime in seconds after 2024-01-01 (others: 0). */
  readonly mtimes?: Record<string, number> | undefined
  /** Outside-relative path → content. */
  readonly outside?: Record<string, string> | undefined
  /** Paths (workspace-relative) whose `stat`/`readFile` fail with PermissionDenied. */
  readonly unreadable?: ReadonlyArray<string> | undefined
  /** Paths (workspace-relative) that `Ripgrep.mtimes` leaves out, as if they vanished. */
  readonly vanished?: ReadonlyArray<string> | undefined
}

const T0 = Date.UTC(2024, 0, 1) / 1000

/** `ctx.ask` records what was asked and allows it. */
export const makeContext = (asks: Array<Tool.AskInput>): Tool.Context => ({
  sessionID: "session",
  messageID: "message",
  callID: "call",
  agent: "build",
  abort: new AbortController().signal,
  extra: {},
  metadata: () => Effect.void,
  ask: (input) => Effect.sync(() => void asks.push(input)),
  askAll: (inputs) => Effect.sync(() => void asks.push(...inputs))
})

export interface Env {
  readonly root: string
  readonly outside: string
  readonly asks: Array<Tool.AskInput>
  readonly call: (
    tool: Tool.Definition<string, any, any>,
    args: unknown
  ) => Effect.Effect<Tool.Result, Tool.ExecuteError>
}

const denying = (bad: (path: string) => boolean) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs) => {
      const denied = (method: string, p: string) =>
        PlatformError.systemError({ _tag: "PermissionDenied", module: "FileSystem", method, pathOrDescriptor: p })
      return {
        ...fs,
        stat: (p: string) => (bad(p) ? Effect.fail(denied("stat", p)) : fs.stat(p)),
        readFile: (p: string) => (bad(p) ? Effect.fail(denied("readFile", p)) : fs.readFile(p))
      }
    })
  )

/** Writes the fixture, then runs `body` with the tools' services over it. */
export const withFixture = <A, E>(backend: Backend, fixture: Fixture, body: (env: Env) => Effect.Effect<A, E, any>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const base = yield* fs.makeTempDirectoryScoped({ prefix: "search-tools-" })
    const root = path.join(base, "ws")
    const outside = path.join(base, "outside")
    const write = Effect.fnUntraced(function*(dir: string, files: Record<string, string>) {
      yield* fs.makeDirectory(dir, { recursive: true })
      for (const [rel, content] of Object.entries(files)) {
        const file = path.join(dir, rel)
        yield* fs.makeDirectory(path.dirname(file), { recursive: true })
        yield* fs.writeFileString(file, content)
      }
    })
    yield* write(root, fixture.files)
    yield* write(outside, fixture.outside ?? {})
    for (const rel of Object.keys(fixture.files)) {
      const mtime = T0 + (fixture.mtimes?.[rel] ?? 0)
      yield* fs.utimes(path.join(root, rel), mtime, mtime)
    }
    const unreadable = new Set((fixture.unreadable ?? []).map((rel) => path.join(root, rel)))
    const asks: Array<Tool.AskInput> = []
    const ctx = makeContext(asks)
    const call: Env["call"] = (tool, args) =>
      Effect.gen(function*() {
        const def = yield* tool.init
        return yield* def.execute(def.parameters.parse(args), ctx)
      }) as Effect.Effect<Tool.Result, Tool.ExecuteError>
    const vanished = new Set((fixture.vanished ?? []).map((rel) => path.join(root, rel)))
    const ripgrep = vanished.size === 0 ? backend.ripgrep : Layer.effect(
      Ripgrep.Ripgrep,
      Effect.map(Ripgrep.Ripgrep, (rg) =>
        Ripgrep.Ripgrep.of({
          ...rg,
          mtimes: (cwd, paths) => Stream.filter(rg.mtimes(cwd, paths), (m) => !vanished.has(path.join(cwd, m.path)))
        }))
    ).pipe(Layer.provide(backend.ripgrep))
    // grep needs the spill store for `s3://`-style spill paths; these tests search files only.
    const services = Layer.mergeAll(Workspace.layer({ root }), ripgrep, SpillStorage.layerMemory()).pipe(
      Layer.provideMerge(unreadable.size === 0 ? Layer.empty : denying((p) => unreadable.has(p))),
      Layer.provideMerge(Layer.succeed(FileSystem.FileSystem, fs)),
      Layer.provideMerge(Layer.succeed(Path.Path, path))
    )
    return yield* body({ root, outside, asks, call }).pipe(Effect.provide(services as Layer.Layer<any, any, never>))
  }).pipe(Effect.scoped, Effect.provide(backend.platform)) as Effect.Effect<A, E | Tool.ExecuteError>
