import { assert, describe, it } from "@effect/vitest"
import { MetadataBound } from "@agent-tools/core"

const size = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

describe("MetadataBound.bound", () => {
  it("keeps metadata that fits as it is", () => {
    const metadata = { truncated: false, exit: 0, todos: [{ content: "a" }] }
    assert.strictEqual(MetadataBound.bound(metadata, 1000), metadata)
  })

  it("replaces the largest values by a marker naming the spill; small keys stay", () => {
    const big = Array.from({ length: 2000 }, (_, i) => ({ content: `todo ${i}`, status: "pending" }))
    const metadata = { title: "2000 todos", exit: 0, todos: big, truncated: true, outputPath: "/spill/tool_1" }
    const bounded = MetadataBound.bound(metadata, 1024)
    assert.isAtMost(size(bounded), 1024)
    assert.deepStrictEqual(Object.keys(bounded), ["title", "exit", "todos", "truncated", "outputPath"])
    assert.deepStrictEqual([bounded.title, bounded.exit, bounded.truncated, bounded.outputPath], ["2000 todos", 0, true, "/spill/tool_1"])
    assert.strictEqual(
      bounded.todos,
      `[left out: ${size(big)} bytes of metadata, over the 1024-byte limit of a result; the full output is in /spill/tool_1]`
    )
  })

  it("biggest first, only as many as needed; without a spill the marker says only what was left out", () => {
    const bounded = MetadataBound.bound({ a: "x".repeat(600), b: "y".repeat(300), c: "z".repeat(200) }, 700)
    assert.strictEqual(bounded.a, "[left out: 602 bytes of metadata, over the 700-byte limit of a result]")
    assert.strictEqual(bounded.b, "y".repeat(300))
    assert.strictEqual(bounded.c, "z".repeat(200))
  })

  it("many small values that still do not fit: the essentials and one marker", () => {
    const metadata: Record<string, unknown> = { truncated: true, outputPath: "/spill/tool_2" }
    for (let i = 0; i < 500; i++) metadata[`k${i}`] = i
    const bounded = MetadataBound.bound(metadata, 300)
    assert.isAtMost(size(bounded), 300)
    assert.deepStrictEqual(Object.keys(bounded), ["truncated", "outputPath", MetadataBound.LEFT_OUT_KEY])
  })

  it("a cycle or a bigint does not throw", () => {
    const cyclic: Record<string, unknown> = { n: 1n }
    cyclic.self = cyclic
    const bounded = MetadataBound.bound({ exit: 0, tree: cyclic }, 200)
    assert.strictEqual(bounded.exit, 0)
    assert.match(String(bounded.tree), /^\[left out: unserialisable metadata/)
  })
})
