/** A job's read as a tool result: only the end of a long read is decoded, with the same result. */
import { assert, describe, it } from "@effect/vitest"
import type { Jobs } from "@agent-tools/core"
import { lastWithin, report } from "../../src/internal/jobs/report.ts"

const job = { id: "job-1", tty: false, sandboxed: false } as Jobs.Job
const read = (text: string): Jobs.Read => ({
  bytes: new TextEncoder().encode(text),
  omittedBytes: 0,
  status: { _tag: "running" },
  totalBytes: 0,
  outputPath: undefined
})

describe("report", () => {
  it("a long read shows the same end as decoding all of it, whatever character the cut falls in", () => {
    // Lines of one-, two- and three-byte characters, so the cut lands inside a character too.
    const text = Array.from({ length: 20_000 }, (_, i) => `${i} ä ${"€".repeat(i % 7)} z\n`).join("")
    for (let maxBytes = 1000; maxBytes < 1012; maxBytes++) {
      const limits = { maxLines: 2000, maxBytes, direction: "tail" } as const
      const r = report(job, read(text), { limits })
      const expected = lastWithin(text, limits.maxLines, limits.maxBytes).text
      assert.strictEqual(r.metadata.output, expected)
      assert.isTrue(r.metadata.truncated)
    }
  })

  it("a read within the limits is shown whole", () => {
    const r = report(job, read("one ä\ntwo €\n"), { limits: { maxLines: 10, maxBytes: 100, direction: "tail" } })
    assert.strictEqual(r.metadata.output, "one ä\ntwo €\n")
    assert.isFalse(r.metadata.truncated)
  })

  it("a filter still sees every line of the read", () => {
    const text = Array.from({ length: 5_000 }, (_, i) => (i === 3 ? "MATCH early\n" : `line ${i}\n`)).join("")
    const r = report(job, read(text), { limits: { maxLines: 10, maxBytes: 100, direction: "tail" }, filter: /MATCH/ })
    assert.strictEqual(r.metadata.output, "MATCH early\n")
  })
})
