/**
 * The rg-binary layer specifically: binary resolution (configured path → PATH → cache → download
 * → typed error), the default layer's choice, and prompt termination of rg (checked by pid).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, FileSystem, Layer, Logger, Path, References, Stream } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { NodeServices } from "@effect/platform-node"
import { Ripgrep, RipgrepBinary } from "@agent-tools/core"
import { spawnSync } from "node:child_process"

const rgPath = spawnSync("sh", ["-c", "command -v rg"]).stdout?.toString().trim() ?? ""
const hasRg = rgPath !== ""

const env = (vars: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnv({ env: vars }))

/** A spawner that records the pid of every rg search (`--json`) or listing (`--files`) it starts. */
const tracking = () => {
  const pids: Array<number> = []
  const isSearch = (command: ChildProcess.Command) =>
    command._tag === "StandardCommand" && command.args.some((a) => a === "--json" || a === "--files")
  const layer = Layer.effect(
    ChildProcessSpawner.ChildProcessSpawner,
    Effect.map(ChildProcessSpawner.ChildProcessSpawner, (inner) =>
      ChildProcessSpawner.make((command) =>
        Effect.tap(inner.spawn(command), (handle) => Effect.sync(() => void (isSearch(command) && pids.push(handle.pid))))))
  ).pipe(Layer.provide(NodeServices.layer))
  return { pids, layer: Layer.merge(NodeServices.layer, layer) } // the later layer wins
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "rg-bin-" }))

describe("RipgrepBinary.resolve", () => {
  it.live("nothing found: a typed error listing every step and how to install rg", () =>
    Effect.gen(function*() {
      const cache = yield* tempDir
      const error = yield* Effect.flip(RipgrepBinary.resolve({ path: "/nonexistent/rg", cacheDir: cache }).pipe(Effect.provide(env({ PATH: cache }))))
      assert.strictEqual(error._tag, "RipgrepNotFoundError")
      assert.deepStrictEqual(error.tried, [
        "configured path /nonexistent/rg: no such file",
        "rg on PATH: not found in 1 directories",
        `cached download ${cache}/rg: not present`,
        `download: not available in this build (offline; no HTTP client in core); place rg at ${cache}`
      ])
      assert.include(error.message, "ripgrep (rg) was not found.")
      assert.include(error.message, "apt install ripgrep")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live.skipIf(!hasRg)("a broken configured path falls through to rg on PATH", () =>
    Effect.gen(function*() {
      const cache = yield* tempDir
      const binary = yield* RipgrepBinary.resolve({ path: "/nonexistent/rg", cacheDir: cache }).pipe(
        Effect.provide(env({ PATH: `/nonexistent-dir:${rgPath.slice(0, rgPath.lastIndexOf("/"))}` }))
      )
      assert.strictEqual(binary.path, rgPath)
      assert.match(binary.version, /^\d+\.\d+\.\d+$/)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live.skipIf(!hasRg)("a configured path that is not ripgrep is rejected; a cached binary is used", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const cache = yield* tempDir
      yield* fs.symlink(rgPath, `${cache}/rg`)
      const binary = yield* RipgrepBinary.resolve({ path: "/bin/echo", cacheDir: cache }).pipe(Effect.provide(env({ PATH: "" })))
      assert.strictEqual(binary.path, `${cache}/rg`)
      const error = yield* Effect.flip(RipgrepBinary.resolve({ path: "/bin/echo", download: false }).pipe(Effect.provide(env({ PATH: "" }))))
      assert.match(error.tried[0] ?? "", /^configured path \/bin\/echo: not ripgrep \(--version printed ".*"\)$/)
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("Ripgrep.layer (default)", () => {
  const backendOf = (options: Ripgrep.LayerOptions) =>
    Effect.flatMap(Ripgrep.Ripgrep, (rg) => Effect.map(rg.info, (info) => info.backend)).pipe(Effect.provide(Ripgrep.layer(options)))

  it.live.skipIf(!hasRg)("uses rg when it is found", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* backendOf({}), "rg")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("falls back to the portable layer without rg; backend 'rg' fails instead", () =>
    Effect.gen(function*() {
      const cache = yield* tempDir
      assert.strictEqual(yield* backendOf({ cacheDir: cache }).pipe(Effect.provide(env({ PATH: cache }))), "portable")
      const error = yield* Effect.flip(backendOf({ cacheDir: cache, backend: "rg" }).pipe(Effect.provide(env({ PATH: cache }))))
      assert.strictEqual(error._tag, "RipgrepNotFoundError")
      assert.strictEqual(yield* backendOf({ backend: "portable" }), "portable")
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("Ripgrep.layer logs", () => {
  it.live("without rg: nothing logged when built, one warning when the first search runs", () =>
    Effect.gen(function*() {
      const cache = yield* tempDir
      const logs: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => void logs.push(`${logLevel}: ${String(message)}`))
      yield* Effect.gen(function*() {
        const rg = yield* Ripgrep.Ripgrep
        assert.deepStrictEqual(logs, [])
        for (let i = 0; i < 2; i++) yield* Stream.runDrain(rg.search({ cwd: cache, pattern: "x" }))
        assert.strictEqual(logs[0], "Debug: Ripgrep: rg not found, using the portable search (TypeScript, JavaScript regular expressions)")
        yield* Stream.runDrain(rg.files({ cwd: cache }))
        const warnings = logs.filter((l) => l.startsWith("Warn: "))
        assert.strictEqual(warnings.length, 1)
        assert.match(warnings[0]!, /^Warn: Ripgrep: rg not found, using the portable search \(TypeScript, JavaScript regular expressions\), which is slower\. /)
      }).pipe(
        Effect.provide(Ripgrep.layer({ cacheDir: cache })),
        Effect.provide(env({ PATH: cache })),
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "Debug")
      )
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe.skipIf(!hasRg)("rg is stopped promptly (checked by pid)", () => {
  const manyMatches = Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* tempDir
    yield* fs.writeFileString(path.join(dir, "big.txt"), "match here\n".repeat(1_000_000))
    yield* fs.writeFileString(path.join(dir, "big2.txt"), "match here\n".repeat(1_000_000))
    return dir
  }).pipe(Effect.provide(NodeServices.layer))

  const withRg = <A, E>(f: (rg: Ripgrep.Service, cwd: string) => Effect.Effect<A, E>) => {
    const { pids, layer } = tracking()
    return Effect.gen(function*() {
      const cwd = yield* manyMatches
      const rg = yield* Ripgrep.Ripgrep
      const result = yield* f(rg, cwd)
      return { result, pids }
    }).pipe(Effect.provide(RipgrepBinary.layer().pipe(Layer.provideMerge(layer))))
  }

  it.live("search with 2M matches and limit 100: the first 100, and rg is gone", () =>
    Effect.gen(function*() {
      const { pids, result } = yield* withRg((rg, cwd) => Stream.runCollect(rg.search({ cwd, pattern: "match", limit: 100 })))
      assert.strictEqual(result.length, 100)
      assert.isTrue(result.every((m) => m._tag === "Match" && m.text === "match here"))
      assert.strictEqual(pids.length, 1)
      assert.deepStrictEqual(pids.filter(isAlive), [])
    }), 60_000)

  it.live("Stream.take on the consumer side, and interrupting a slow consumer, kill rg too", () =>
    Effect.gen(function*() {
      const taken = yield* withRg((rg, cwd) => Stream.runCollect(Stream.take(rg.search({ cwd, pattern: "match" }), 5)))
      assert.strictEqual(taken.result.length, 5)
      assert.strictEqual(taken.pids.length, 1)
      assert.deepStrictEqual(taken.pids.filter(isAlive), [])
      const interrupted = yield* withRg((rg, cwd) =>
        rg.search({ cwd, pattern: "match" }).pipe(
          Stream.runForEach(() => Effect.sleep("10 millis")),
          Effect.timeoutOption("300 millis")
        ))
      assert.strictEqual(interrupted.result._tag, "None")
      assert.strictEqual(interrupted.pids.length, 1)
      assert.deepStrictEqual(interrupted.pids.filter(isAlive), [])
    }), 60_000)

  it.live("files with a limit stops rg --files", () =>
    Effect.gen(function*() {
      const { pids, result } = yield* withRg((rg, cwd) => Stream.runCollect(rg.files({ cwd, limit: 1 })))
      assert.strictEqual(result.length, 1)
      assert.strictEqual(pids.length, 1)
      assert.deepStrictEqual(pids.filter(isAlive), [])
    }), 60_000)
})
