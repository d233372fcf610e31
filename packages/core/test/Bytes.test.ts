import { assert, describe, it } from "@effect/vitest"
import { Bytes } from "@agent-tools/core"

describe("Bytes.concat", () => {
  it("joins the chunks in order into a new buffer, whatever their number", () => {
    const a = Uint8Array.of(1, 2), b = Uint8Array.of(), c = Uint8Array.of(3)
    assert.deepStrictEqual([...Bytes.concat([a, b, c])], [1, 2, 3])
    assert.deepStrictEqual([...Bytes.concat([])], [])
    const one = Bytes.concat([a])
    assert.notStrictEqual(one, a, "a single chunk is copied too")
    one[0] = 9
    assert.strictEqual(a[0], 1)
  })

  it("takes views at their offset and uses the size the caller counted", () => {
    const backing = Uint8Array.of(0, 1, 2, 3, 4, 5)
    assert.deepStrictEqual([...Bytes.concat([backing.subarray(4), backing.subarray(1, 3)], 4)], [4, 5, 1, 2])
  })
})
