import { assert, describe, it } from "@effect/vitest"
import { EnvelopeScanner, scan } from "../src/MessageEnvelope.ts"

const bytes = (text: string) => new TextEncoder().encode(text)
const whole = (text: string) => scan([bytes(text)])
/** Fed one byte at a time: every state must survive a chunk edge. */
const byteByByte = (text: string) => {
  const scanner = new EnvelopeScanner()
  for (const b of bytes(text)) scanner.feed(Uint8Array.of(b))
  return scanner.envelope
}

const cases: ReadonlyArray<readonly [string, string, { readonly id: string | number | undefined; readonly hasMethod: boolean }]> = [
  ["a request with a number id", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`, { id: 7, hasMethod: true }],
  ["a string id", `{"jsonrpc":"2.0","id":"req-1","method":"x"}`, { id: "req-1", hasMethod: true }],
  ["the id after the params", `{"jsonrpc":"2.0","method":"x","params":{"a":[1,{"b":"c"}]},"id":-12.5e1}`, { id: -125, hasMethod: true }],
  ["ids and methods nested in params are not the message's", `{"params":{"id":1,"method":"y","s":"\\"id\\":2"},"jsonrpc":"2.0"}`, { id: undefined, hasMethod: false }],
  ["a string value that looks like a key", `{"x":"\\",\\"id\\":3","id":4}`, { id: 4, hasMethod: false }],
  ["an escaped key", `{"\\u0069d":"esc","method":"m"}`, { id: "esc", hasMethod: true }],
  ["an escaped id string", `{"id":"a\\"b\\u00e9"}`, { id: "a\"bé", hasMethod: false }],
  ["whitespace everywhere", ` { "id" : 42 , "method" : "m" } `, { id: 42, hasMethod: true }],
  ["a response (no method)", `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`, { id: 3, hasMethod: false }],
  ["a notification (no id)", `{"jsonrpc":"2.0","method":"notifications/x","params":{}}`, { id: undefined, hasMethod: true }],
  ["a null id", `{"id":null,"method":"m"}`, { id: undefined, hasMethod: true }],
  ["an object id", `{"id":{"x":1},"method":"m"}`, { id: undefined, hasMethod: true }],
  ["a boolean id", `{"id":true,"method":"m"}`, { id: undefined, hasMethod: true }],
  ["a batch", `[{"id":1,"method":"m"}]`, { id: undefined, hasMethod: false }],
  ["not an object", `"id"`, { id: undefined, hasMethod: false }],
  ["cut off in the middle of the params", `{"id":9,"method":"m","params":{"text":"abc`, { id: 9, hasMethod: true }],
  ["an id too long to answer by", `{"id":"${"x".repeat(2000)}","method":"m"}`, { id: undefined, hasMethod: true }],
  ["UTF-8 in strings", `{"params":{"t":"日本 🙂 \\u2028"},"id":"日"}`, { id: "日", hasMethod: false }]
]

describe("MessageEnvelope", () => {
  for (const [name, text, expected] of cases) {
    it(name, () => {
      assert.deepStrictEqual(whole(text), expected)
      assert.deepStrictEqual(byteByByte(text), expected)
    })
  }

  it("a 12 MB message with its id at the end, in 64 KiB chunks", () => {
    const text = `{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"content":"${"a\\\"{[".repeat(3_000_000)}"}},"id":99}`
    const all = bytes(text)
    const chunks = Array.from({ length: Math.ceil(all.length / 65_536) }, (_, i) => all.subarray(i * 65_536, (i + 1) * 65_536))
    assert.deepStrictEqual(scan(chunks), { id: 99, hasMethod: true })
  })
})
