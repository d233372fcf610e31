import { assert, describe, it } from "@effect/vitest"
import { giveBack, takeBuffer } from "../../src/internal/buffers.ts"

describe("read buffers", () => {
  it("a large buffer made here comes back for a request it fits, once", () => {
    const first = takeBuffer(200_000)
    assert.isAtLeast(first.length, 200_000)
    giveBack(first.subarray(0, 10))
    const again = takeBuffer(150_000)
    assert.strictEqual(again.buffer, first.buffer)
    assert.notStrictEqual(takeBuffer(150_000).buffer, first.buffer) // taken: not handed out twice
  })

  it("never a buffer made elsewhere, a small one, or one more than twice the request", () => {
    const foreign = new Uint8Array(300_000)
    giveBack(foreign)
    assert.notStrictEqual(takeBuffer(200_000).buffer, foreign.buffer)
    const small = takeBuffer(1_000)
    giveBack(small)
    assert.notStrictEqual(takeBuffer(1_000).buffer, small.buffer)
    const large = takeBuffer(500_000)
    giveBack(large)
    assert.notStrictEqual(takeBuffer(100_000).buffer, large.buffer)
    assert.strictEqual(takeBuffer(400_000).buffer, large.buffer)
  })

  it("several spares are kept (an edit has its read, its new file and its check's read in hand), never one twice", () => {
    const held = [takeBuffer(700_000), takeBuffer(700_000), takeBuffer(700_000)]
    for (const b of held) giveBack(b)
    giveBack(held[0]!) // handed back twice: still one spare
    const again = [takeBuffer(700_000), takeBuffer(700_000), takeBuffer(700_000), takeBuffer(700_000)]
    const reused = again.filter((b) => held.some((h) => h.buffer === b.buffer))
    assert.strictEqual(reused.length, 3)
    assert.strictEqual(new Set(again.map((b) => b.buffer)).size, 4)
  })
})
