import { describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer, Path } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { SpillStorage } from "@agent-tools/core"
import { SpillStorageContract } from "@agent-tools/testing"

const Node = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** The file-system store in a fresh temp directory, removed with the test's scope. */
const inTempDir = (options: SpillStorage.Options) =>
  Layer.unwrap(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-spill-" }), "spill")
    return SpillStorage.layer({ dir, ...options })
  })).pipe(Layer.provide(Node))

describe("SpillStorage contract: file system", () => {
  for (const c of SpillStorageContract.cases(inTempDir)) it.effect(c.name, () => c.run)
})

describe("SpillStorage contract: memory", () => {
  for (const c of SpillStorageContract.cases((options) => SpillStorage.layerMemory(options))) it.effect(c.name, () => c.run)
})
