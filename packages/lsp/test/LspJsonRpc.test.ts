/** LSP's framing: messages split across chunks, several in one chunk, and a bad header skipped. */
import { assert, describe, it } from "@effect/vitest"
import { Deframer, frame } from "../src/JsonRpc.ts"

const bytes = (s: string) => new TextEncoder().encode(s)

describe("LSP framing", () => {
  it("reassembles a message cut anywhere, and splits a chunk holding several", () => {
    const one = frame({ jsonrpc: "2.0", id: 1, result: { text: "héllo" } })
    const two = frame({ jsonrpc: "2.0", method: "textDocument/publishDiagnostics", params: { uri: "file:///a.ts", diagnostics: [] } })
    const all = new Uint8Array([...one, ...two])
    for (let cut = 1; cut < all.length; cut += 7) {
      const deframer = new Deframer()
      const got = [...deframer.push(all.subarray(0, cut)), ...deframer.push(all.subarray(cut))]
      assert.deepStrictEqual(got.map((m) => m.id ?? m.method), [1, "textDocument/publishDiagnostics"])
    }
    assert.deepStrictEqual(new Deframer().push(one)[0]?.result, { text: "héllo" })
  })

  it("skips a header without a length and a body that is not JSON, and carries on", () => {
    const deframer = new Deframer()
    const got = deframer.push(new Uint8Array([
      ...bytes("X-Junk: 1\r\n\r\n"),
      ...bytes("Content-Length: 3\r\n\r\n{{{"),
      ...frame({ jsonrpc: "2.0", id: 7, result: null })
    ]))
    assert.deepStrictEqual(got, [{ jsonrpc: "2.0", id: 7, result: null }])
  })
})
