/**
 * `pnpm demo`: a scripted agent session on the embedded defaults. It copies the sample project to
 * a temp dir, then calls the built-in tools through the registry the way a model would — list,
 * glob, grep, read, a fuzzy edit (asked and approved), a failing test run whose long output is
 * truncated and spilled, and a read of the spill with an offset — printing a transcript.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Fiber, FileSystem, Path } from "effect"
import { Permission, Tool, ToolRegistry } from "@agent-tools/core"
import { NodeAgentTools } from "@agent-tools/runtime"

const rule = (title: string) => console.log(`\n${"─".repeat(80)}\n${title}\n${"─".repeat(80)}`)

/** Prints a tool result, eliding its middle when long (the transcript, not the tool, cuts here). */
const show = (text: string, maxLines = 24) => {
  const lines = text.split("\n")
  const half = maxLines >> 1
  const shown = lines.length > maxLines
    ? [...lines.slice(0, half), `… (${lines.length - maxLines} more lines of this result not shown here)`, ...lines.slice(-half)]
    : lines
  console.log(shown.map((l) => `   │ ${l}`).join("\n"))
}

/** Stands in for the user: answers each permission ask by script and says what it decided. */
const respond = Effect.gen(function*() {
  const permission = yield* Permission.Permission
  const answered = new Set<string>()
  while (true) {
    for (const request of yield* permission.pending) {
      if (answered.has(request.id)) continue
      answered.add(request.id)
      // One prompt per call: it lists every request the call needs.
      const asked = request.requests.map((r) => `${r.permission} for ${r.patterns.join(", ")}`).join("; ")
      console.log(`   ? permission ${asked} → user answers "once"`)
      yield* permission.reply({ requestID: request.id, reply: "once" })
    }
    yield* Effect.sleep("10 millis")
  }
})

const session = (root: string) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry.ToolRegistry
    const responder = yield* Effect.forkChild(respond)
    let step = 0
    const call = Effect.fnUntraced(function*(tool: string, args: Record<string, unknown>) {
      rule(`${++step}. model calls ${tool} ${JSON.stringify(args)}`)
      const ctx = yield* Tool.makeContext({ sessionID: "demo", callID: `call_${step}`, tool })
      const result = yield* Effect.result(registry.execute(tool, args, ctx))
      if (result._tag === "Failure") {
        console.log(`   ✗ ${result.failure.message}`)
        return undefined
      }
      const { title, output, metadata } = result.success
      console.log(`   ✓ ${title}${metadata.truncated === true ? `  (truncated; full output: ${metadata.outputPath})` : ""}`)
      show(output)
      if (typeof metadata.diff === "string" && metadata.diff !== "") show(metadata.diff, 20)
      return result.success
    })

    console.log(`Workspace: ${root}\nTools: ${(yield* registry.ids).join(", ")}`)
    yield* call("list", {})
    yield* call("glob", { pattern: "**/*.js" })
    yield* call("grep", { pattern: "BUG|TODO" })
    yield* call("read", { filePath: "src/cart.js" })
    // The model misremembers the indentation (2 spaces, the file has 4): the edit still lands on
    // the one matching block, keeps the file's indentation, and reports the strategy it used.
    const edited = yield* call("edit", {
      filePath: "src/cart.js",
      oldString: "  // BUG: divides by 10 instead of 100\n  return amount - (amount * percent) / 10",
      newString: "  return amount - (amount * percent) / 100"
    })
    if (edited !== undefined) console.log(`   strategy: ${JSON.stringify(edited.metadata.strategy ?? edited.metadata)}`)
    const run = yield* call("bash", { command: "node test/cart.test.js", description: "Run the tests" })
    if (run !== undefined) console.log(`   exit code: ${JSON.stringify(run.metadata.exitCode ?? run.metadata.exit)}`)
    const spill = run?.metadata.outputPath
    if (typeof spill === "string") {
      yield* call("read", { filePath: spill, offset: 4998, limit: 6 })
    }
    yield* Fiber.interrupt(responder)
    rule("done: the fuzzy edit fixed the discount; the failing run's long log was spilled, its tail kept, and paged")
  })

const main = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const sample = path.join(path.dirname(new URL(import.meta.url).pathname), "sample-project")
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-demo-" })
  yield* fs.copy(sample, root)
  const realRoot = yield* fs.realPath(root)
  yield* session(realRoot).pipe(Effect.provide(NodeAgentTools.layer({ cwd: realRoot })))
})

main.pipe(Effect.scoped, Effect.provide(NodeServices.layer), NodeRuntime.runMain)
