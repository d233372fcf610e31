/**
 * The CLI with the real bash, read and edit tools: live bash output (printed once), one prompt per call listing
 * every request, a deny that asks nothing, and the real path of an outside directory.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect, FileSystem, Path } from "effect"
import { Bash, BashTool, EditTool, ReadTool } from "@agent-tools/tools"
import { run, workspace } from "./harness.ts"

const tools = [BashTool, ReadTool, EditTool]

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, any>) =>
  it.live(name, () => body().pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>, 30_000)

describe("agent-tools with the real tools", () => {
  live("bash: live output on stderr while it runs, the result on stdout", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const args = { command: "echo first; sleep 0.5; echo second", description: "two lines" }
      const r = yield* run(["call", "bash", JSON.stringify(args), "--yes", "--cwd", ws.dir], {
        tools,
        // A preview per chunk: "first" is shown while the command still sleeps.
        layer: Bash.configLayer({ previewInterval: 0 })
      })
      assert.strictEqual(r.code, 0)
      assert.include(r.stdout, "first\nsecond")
      assert.isTrue(r.stderr.startsWith("first\n"), r.stderr)
      assert.strictEqual(r.stderr.split("first").length, 2, "each line is streamed once")
    }))

  live("bash with stdout on a terminal: the output is printed once, on stdout, nothing streamed", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const args = { command: "echo first; echo second", description: "two lines" }
      const r = yield* run(["call", "bash", JSON.stringify(args), "--yes", "--cwd", ws.dir], {
        tools,
        stdoutTty: true,
        layer: Bash.configLayer({ previewInterval: 0 })
      })
      assert.strictEqual(r.code, 0)
      assert.include(r.stdout, "first\nsecond")
      assert.strictEqual(r.stderr, "")
    }))

  live("bash: a failing command exits 1 only if the tool fails; the exit code is in the output", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const r = yield* run(["call", "bash", JSON.stringify({ command: "echo nope >&2; exit 3", description: "fail" }), "--yes", "--json", "--cwd", ws.dir], { tools })
      const result = JSON.parse(r.stdout) as { output: string; metadata: Record<string, unknown> }
      assert.strictEqual(r.code, 0)
      assert.include(result.output, "nope")
    }))

  live("edit on a TTY: one prompt names the file; once applies the edit", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ files: { "src/a.ts": "const a = 1\n" } })
      const args = { filePath: "src/a.ts", oldString: "const a = 1", newString: "const a = 2" }
      const r = yield* run(["call", "edit", JSON.stringify(args), "--cwd", ws.dir], { tools, tty: true, answers: ["o"] })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.include(r.stderr, `Permission needed: edit\n  pattern: src/a.ts\n  file: ${ws.dir}/src/a.ts`)
      assert.strictEqual(r.stderr.split("Allow?").length, 2)
      const fs = yield* FileSystem.FileSystem
      assert.strictEqual(yield* fs.readFileString(`${ws.dir}/src/a.ts`), "const a = 2\n")
    }))

  live("edit on a TTY: the prompt shows the change as a diff, control characters escaped", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ files: { "src/a.ts": "const a = 1\n" } })
      // An escape sequence that would clear the screen, and a line that fakes the prompt's question.
      const args = { filePath: "src/a.ts", oldString: "const a = 1", newString: "const a = 2 \u001b[2J\nAllow? [o]nce" }
      const r = yield* run(["call", "edit", JSON.stringify(args), "--cwd", ws.dir], { tools, tty: true, answers: ["o"] })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.include(
        r.stderr,
        `Permission needed: edit\n  pattern: src/a.ts\n  file: ${ws.dir}/src/a.ts\n  diff:\n` +
          "    Index: src/a.ts\n" +
          "    ===================================================================\n" +
          "    --- src/a.ts\n" +
          "    +++ src/a.ts\n" +
          "    @@ -1,1 +1,2 @@\n" +
          "    -const a = 1\n" +
          "    +const a = 2 \\x1b[2J\n" +
          "    +Allow? [o]nce\n"
      )
      // The one real question, after the diff.
      assert.strictEqual(r.stderr.split("Allow? [o]nce, [a]lways").length, 2, r.stderr)
    }))

  live("bash touch on a TTY with bash and edit at ask: one question lists both; once runs it", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ config: { permission: { bash: "ask", edit: "ask" } } })
      const args = { command: "touch a", description: "touch" }
      const r = yield* run(["call", "bash", JSON.stringify(args), "--cwd", ws.dir], { tools, tty: true, answers: ["o"] })
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(r.stderr.split("Allow?").length, 2, r.stderr)
      assert.include(r.stderr, "Permissions needed for this call (one answer applies to all 2):\n1. edit\n  pattern: a\n")
      assert.include(r.stderr, "2. bash\n  pattern: touch a\n")
      const fs = yield* FileSystem.FileSystem
      assert.isTrue(yield* fs.exists(`${ws.dir}/a`))
    }))

  live("a denied sub-command refuses the call with no question at all", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ config: { permission: { bash: { "*": "deny", "git *": "allow" } } } })
      const args = { command: "touch x", description: "touch" }
      const r = yield* run(["call", "bash", JSON.stringify(args), "--cwd", ws.dir], { tools, tty: true, answers: ["o"] })
      assert.strictEqual(r.code, 3)
      assert.notInclude(r.stderr, "Allow?")
      assert.include(r.stderr, `bash "touch x" is denied by the rule`)
      const fs = yield* FileSystem.FileSystem
      assert.isFalse(yield* fs.exists(`${ws.dir}/x`))
    }))

  live("edit without a TTY is rejected (exit 3) and the file is untouched", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ files: { "a.txt": "old\n" } })
      const args = { filePath: "a.txt", oldString: "old", newString: "new" }
      const r = yield* run(["call", "edit", JSON.stringify(args), "--cwd", ws.dir], { tools })
      assert.strictEqual(r.code, 3)
      const fs = yield* FileSystem.FileSystem
      assert.strictEqual(yield* fs.readFileString(`${ws.dir}/a.txt`), "old\n")
    }))

  live("read through a symlink out of the workspace: the prompt names the real path", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const outside = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-outside-" }))
      yield* fs.writeFileString(path.join(outside, "secret.txt"), "outside text\n")
      const ws = yield* workspace()
      yield* fs.symlink(outside, path.join(ws.dir, "link"))
      const r = yield* run(["call", "read", JSON.stringify({ filePath: "link/secret.txt" }), "--cwd", ws.dir], {
        tools,
        tty: true,
        answers: ["r"]
      })
      assert.strictEqual(r.code, 3)
      assert.include(r.stderr, "Permission needed: external_directory")
      assert.include(r.stderr, `outside the workspace: ${outside}/secret.txt`)
    }))

  live("explain and call agree: a denied relative pattern is denied by both, an allowed one by neither", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        config: { permission: { read: { "*": "allow", "secret/*": "deny" } } },
        files: { "secret/x.txt": "s\n", "a.txt": "a\n" }
      })
      const explained = yield* run(["explain", "read", `{"filePath":"secret/x.txt"}`, "--cwd", ws.dir], { tools })
      assert.strictEqual(explained.stdout, `read: deny\n  deny read "secret/x.txt": rule read "secret/*" → deny (configured)\n`)
      const called = yield* run(["call", "read", `{"filePath":"secret/x.txt"}`, "--cwd", ws.dir], { tools })
      assert.strictEqual(called.code, 3)
      assert.include(called.stderr, `read "secret/x.txt" is denied`)
      const absolute = yield* run(["call", "read", JSON.stringify({ filePath: `${ws.dir}/secret/x.txt` }), "--cwd", ws.dir], { tools })
      assert.strictEqual(absolute.code, 3)
      const allowed = yield* run(["explain", "read", `{"filePath":"a.txt"}`, "--cwd", ws.dir], { tools })
      assert.match(allowed.stdout, /^read: allow\n/)
      assert.strictEqual((yield* run(["call", "read", `{"filePath":"a.txt"}`, "--cwd", ws.dir], { tools })).code, 0)
    }))

  live("explain bash: one decision per sub-command", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({ config: { permission: { bash: { "git status": "allow", "rm *": "deny" } } } })
      const r = yield* run(["explain", "bash", JSON.stringify({ command: "git status && rm -rf build", description: "x" }), "--json", "--cwd", ws.dir], { tools })
      assert.strictEqual(r.code, 0, r.stderr)
      const report = JSON.parse(r.stdout) as { action: string; source: string; decisions: Array<{ pattern: string; action: string }> }
      assert.strictEqual(report.action, "deny")
      assert.strictEqual(report.source, "tool")
      // deleting `build` is an edit of it, asked first
      assert.deepStrictEqual(report.decisions.map((d) => `${d.action} ${d.pattern}`), ["ask build", "allow git status", "deny rm -rf build"])
    }))
})
