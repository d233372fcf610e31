/**
 * The language servers' errors appended to the file tools' outputs, with a scripted Lsp: which
 * files are touched (and waited on), and the exact text (errors only, 20 per file, 5 other files).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Path } from "effect"
import { MemoryFileSystem, Testing } from "@agent-tools/testing"
import { Lsp } from "@agent-tools/core"
import { ApplyPatchTool, EditTool, MultiEditTool, ReadTool, WriteTool } from "@agent-tools/tools"
import { call, callPatch } from "./harness.ts"

const at = (line: number, character: number, message: string, severity: Lsp.Severity = 1): Lsp.Diagnostic => ({
  range: { start: { line, character }, end: { line, character: character + 1 } },
  severity,
  message
})

/** A scripted Lsp: records touches, answers with fixed diagnostics. */
const scripted = (diagnostics: ReadonlyMap<string, ReadonlyArray<Lsp.Diagnostic>>) => {
  const touched: Array<string> = []
  const service: Lsp.Service = {
    ...Lsp.noop,
    enabled: true,
    touchFile: (path, wait) => Effect.sync(() => void touched.push(`${path}${wait ? " (wait)" : ""}`)),
    diagnostics: Effect.succeed(diagnostics)
  }
  return { touched, layer: Layer.succeed(Lsp.Lsp, service) }
}

const workspace = (lsp: Layer.Layer<never>) =>
  Testing.layer({
    tools: [ReadTool, WriteTool, EditTool, MultiEditTool, ApplyPatchTool],
    platform: Layer.mergeAll(MemoryFileSystem.layer({ "/ws/a.ts": "let a = 1\n", "/ws/b.ts": "let b = 2\n", "/ws/gone.ts": "x\n" }), Path.layer),
    services: lsp
  })

describe("LSP errors after a file change", () => {
  const many = Array.from({ length: 25 }, (_, i) => at(i, 4, `error ${i + 1}`))
  const others = Array.from({ length: 7 }, (_, i) => [`/ws/o${i + 1}.ts`, [at(0, 0, `broken ${i + 1}`)]] as const)
  const fake = scripted(new Map<string, ReadonlyArray<Lsp.Diagnostic>>([
    ["/ws/clean.ts", [at(0, 0, "only a warning", 2)]],
    ["/ws/a.ts", [at(0, 0, "a hint", 4), ...many]],
    ...others,
    ["/outside/x.ts", [at(2, 1, "outside")]]
  ]))

  it.effect("edit: the file's errors (20, then a count; warnings left out), then at most 5 other files", () =>
    Effect.gen(function*() {
      yield* call("read", { filePath: "a.ts" })
      const result = yield* call("edit", { filePath: "a.ts", oldString: "1", newString: "2" })
      // The read hands the file over without waiting; the edit waits for its diagnostics.
      assert.deepStrictEqual(fake.touched, ["/ws/a.ts", "/ws/a.ts (wait)"])
      const listed = many.slice(0, 20).map((d, i) => `ERROR [${i + 1}:5] ${d.message}`).join("\n")
      const other = (i: number) => `\n\nLSP errors detected in other files:\n<diagnostics file="o${i}.ts">\nERROR [1:1] broken ${i}\n</diagnostics>`
      assert.strictEqual(
        result.output,
        `Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n<diagnostics file="a.ts">\n${listed}\n... and 5 more\n</diagnostics>` +
          [1, 2, 3, 4, 5].map(other).join("")
      )
    }).pipe(Effect.provide(workspace(fake.layer))))

  it.effect("apply_patch: each changed file by its path; a deleted file is not touched", () => {
    const errors = scripted(new Map([["/ws/b.ts", [at(0, 4, "b is broken")]], ["/ws/a.ts", []]]))
    return Effect.gen(function*() {
      const patch = "*** Begin Patch\n*** Update File: b.ts\n@@\n-let b = 2\n+let b = 3\n*** Add File: c.ts\n+let c = 1\n*** Delete File: gone.ts\n*** End Patch"
      const result = yield* callPatch({ patchText: patch })
      assert.deepStrictEqual(errors.touched.toSorted(), ["/ws/b.ts (wait)", "/ws/c.ts (wait)"])
      assert.strictEqual(
        result.output,
        "Success. Updated the following files:\nA c.ts\nM b.ts\nD gone.ts\n\nLSP errors detected in b.ts, please fix:\n<diagnostics file=\"b.ts\">\nERROR [1:5] b is broken\n</diagnostics>"
      )
    }).pipe(Effect.provide(workspace(errors.layer)))
  })

  it.effect("write and multiedit: only errors are reported; none means the output is unchanged", () => {
    const clean = scripted(new Map([["/ws/a.ts", [at(0, 0, "unused", 2)]]]))
    return Effect.gen(function*() {
      assert.strictEqual((yield* call("write", { filePath: "n.ts", content: "let n = 1\n" })).output, "Created n.ts (+1 −0 lines).")
      yield* call("read", { filePath: "a.ts" })
      assert.strictEqual(
        (yield* call("multiedit", { filePath: "a.ts", edits: [{ oldString: "1", newString: "3" }] })).output,
        "Applied 1 edit to a.ts."
      )
      assert.deepStrictEqual(clean.touched, ["/ws/n.ts (wait)", "/ws/a.ts", "/ws/a.ts (wait)"])
    }).pipe(Effect.provide(workspace(clean.layer)))
  })
})
