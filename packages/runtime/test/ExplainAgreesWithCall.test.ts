/**
 * `explain` and a real call agree for every built-in tool: over the same inputs (inside the
 * workspace, outside it, through a symlink out, a spill file, denied and asked patterns) the call
 * is refused with no prompt exactly when explain says deny, asks one prompt holding exactly the
 * patterns explain says ask, and asks nothing when explain says allow. Both take the registry's
 * plan (validation, before hooks, the tool's own requests), so they cannot drift.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { ConfigProvider, Effect, Exit, FileSystem, Path } from "effect"
import { SpillStorage, Tool, ToolRegistry } from "@agent-tools/core"
import { Explain, NodeAgentTools } from "@agent-tools/runtime"
import { ScriptedPermission } from "@agent-tools/testing"
import { builtins } from "@agent-tools/tools"

interface Case {
  readonly tool: string
  readonly args: Record<string, unknown>
  /** What explain must say, so the cases keep covering deny, ask and allow. */
  readonly expect: "allow" | "ask" | "deny" | "error"
}

interface Dirs {
  readonly ws: string
  readonly out: string
  readonly spill: string
}

const patch = (...lines: Array<string>) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n")

const cases = (d: Dirs): ReadonlyArray<Case> => [
  // read
  { tool: "read", args: { filePath: "a.txt" }, expect: "allow" },
  { tool: "read", args: { filePath: `${d.ws}/a.txt` }, expect: "allow" },
  { tool: "read", args: { filePath: "secret/x.txt" }, expect: "deny" },
  { tool: "read", args: { filePath: `${d.ws}/secret/x.txt` }, expect: "deny" },
  { tool: "read", args: { filePath: `${d.out}/o.txt` }, expect: "ask" },
  { tool: "read", args: { filePath: "link/o.txt" }, expect: "ask" },
  { tool: "read", args: { filePath: d.spill }, expect: "allow" },
  { tool: "read", args: { filePath: `${d.out}/denied/d.txt` }, expect: "deny" },
  // write
  { tool: "write", args: { filePath: "new.txt", content: "n\n" }, expect: "ask" },
  { tool: "write", args: { filePath: "secret/y.txt", content: "y\n" }, expect: "deny" },
  { tool: "write", args: { filePath: `${d.out}/w.txt`, content: "w\n" }, expect: "ask" },
  { tool: "write", args: { filePath: d.spill, content: "w\n" }, expect: "ask" },
  { tool: "write", args: { filePath: "free/f.txt", content: "f\n" }, expect: "allow" },
  // edit
  { tool: "edit", args: { filePath: "a.txt", oldString: "hello", newString: "hi" }, expect: "ask" },
  { tool: "edit", args: { filePath: "secret/x.txt", oldString: "s", newString: "t" }, expect: "deny" },
  { tool: "edit", args: { filePath: "link/o.txt", oldString: "o", newString: "p" }, expect: "ask" },
  { tool: "edit", args: { filePath: `${d.out}/denied/d.txt`, oldString: "d", newString: "e" }, expect: "deny" },
  // multiedit
  { tool: "multiedit", args: { filePath: "b.txt", edits: [{ oldString: "b", newString: "c" }] }, expect: "ask" },
  { tool: "multiedit", args: { filePath: "secret/x.txt", edits: [{ oldString: "s", newString: "t" }] }, expect: "deny" },
  { tool: "multiedit", args: { filePath: `${d.out}/o.txt`, edits: [{ oldString: "o", newString: "p" }] }, expect: "ask" },
  // apply_patch
  { tool: "apply_patch", args: { patchText: patch("*** Add File: added.txt", "+x") }, expect: "ask" },
  {
    tool: "apply_patch",
    args: { patchText: patch("*** Add File: ok.txt", "+x", "*** Add File: secret/z.txt", "+z") },
    expect: "deny"
  },
  { tool: "apply_patch", args: { patchText: patch(`*** Add File: ${d.out}/p.txt`, "+p") }, expect: "ask" },
  { tool: "apply_patch", args: { patchText: patch("*** Add File: free/g.txt", "+g") }, expect: "allow" },
  { tool: "apply_patch", args: { patchText: "not a patch" }, expect: "error" },
  // grep
  { tool: "grep", args: { pattern: "hello" }, expect: "allow" },
  { tool: "grep", args: { pattern: "forbidden" }, expect: "deny" },
  { tool: "grep", args: { pattern: "askme" }, expect: "ask" },
  { tool: "grep", args: { pattern: "o", path: d.out }, expect: "ask" },
  { tool: "grep", args: { pattern: "o", path: "link" }, expect: "ask" },
  { tool: "grep", args: { pattern: "line", path: d.spill }, expect: "allow" },
  { tool: "grep", args: { pattern: "o", path: "missing" }, expect: "error" },
  // glob
  { tool: "glob", args: { pattern: "*.txt" }, expect: "allow" },
  { tool: "glob", args: { pattern: "*.secret" }, expect: "deny" },
  { tool: "glob", args: { pattern: "**/*.md" }, expect: "ask" },
  { tool: "glob", args: { pattern: `${d.out}/*.txt` }, expect: "ask" },
  { tool: "glob", args: { pattern: "*.txt", path: `${d.out}/denied` }, expect: "deny" },
  // list
  { tool: "list", args: {}, expect: "allow" },
  { tool: "list", args: { path: "secret" }, expect: "deny" },
  { tool: "list", args: { path: d.out }, expect: "ask" },
  { tool: "list", args: { path: "link" }, expect: "ask" },
  // bash
  { tool: "bash", args: { command: "git status", description: "d" }, expect: "allow" },
  { tool: "bash", args: { command: "touch t.txt", description: "d" }, expect: "ask" },
  { tool: "bash", args: { command: "rm -rf sub", description: "d" }, expect: "deny" },
  { tool: "bash", args: { command: "touch u.txt; rm -rf sub", description: "d" }, expect: "deny" },
  { tool: "bash", args: { command: "cat ../out/o.txt", description: "d" }, expect: "ask" },
  { tool: "bash", args: { command: "echo x > link/f.txt && ls", description: "d" }, expect: "ask" },
  { tool: "bash", args: { command: "cat secret/x.txt", description: "d" }, expect: "ask" },
  { tool: "bash", args: { command: "echo hi > secret/x.txt", description: "d" }, expect: "deny" },
  { tool: "bash", args: { command: "ls", workdir: d.out, description: "d" }, expect: "ask" },
  { tool: "bash", args: { command: `cat ${d.spill}`, description: "d" }, expect: "ask" },
  { tool: "bash", args: { command: "ls", description: "d", run_in_background: true }, expect: "allow" },
  { tool: "bash", args: { command: "rm -rf sub", description: "d", run_in_background: true }, expect: "deny" },
  // The job tools ask nothing of their own (input to a shell or interpreter job is asked as code when written).
  { tool: "bash_output", args: { id: "job-99" }, expect: "allow" },
  { tool: "bash_kill", args: { id: "job-99" }, expect: "allow" },
  // session and agent tools
  { tool: "todowrite", args: { todos: [{ content: "t", status: "pending" }] }, expect: "allow" },
  { tool: "todoread", args: {}, expect: "allow" },
  { tool: "skill", args: { name: "docs" }, expect: "allow" },
  { tool: "skill", args: { name: "asked" }, expect: "ask" },
  { tool: "skill", args: { name: "missing" }, expect: "error" },
  { tool: "invalid", args: { tool: "x", error: "y" }, expect: "allow" },
  // Not offered here (no question responder, no sub-agent runner, batch and lsp off): both fail alike.
  { tool: "question", args: { questions: [{ question: "q?", header: "h", options: [] }] }, expect: "error" },
  { tool: "task", args: { description: "d", prompt: "p", subagent_type: "general" }, expect: "error" },
  { tool: "batch", args: { tool_calls: [{ tool: "read", parameters: { filePath: "a.txt" } }] }, expect: "error" },
  { tool: "lsp", args: { operation: "hover", filePath: "a.ts", line: 1, character: 1 }, expect: "error" },
  // webfetch (loopback URLs: the address policy refuses them after the permission check, offline)
  { tool: "webfetch", args: { url: "http://127.0.0.1:1/allowed/page" }, expect: "allow" },
  { tool: "webfetch", args: { url: "http://127.0.0.1:1/other" }, expect: "ask" },
  { tool: "webfetch", args: { url: "http://127.0.0.1:1/denied/page" }, expect: "deny" },
  { tool: "webfetch", args: { url: "ftp://127.0.0.1/file" }, expect: "error" }
]

const config = (d: Dirs) => ({
  permission: {
    read: { "*": "allow", "secret/*": "deny" },
    edit: { "*": "ask", "secret/*": "deny", "free/*": "allow" },
    grep: { "*": "allow", forbidden: "deny", askme: "ask" },
    glob: { "*": "allow", "*.secret": "deny", "**/*.md": "ask" },
    list: { "*": "allow", [`${d.ws}/secret`]: "deny" },
    external_directory: { "*": "ask", [`${d.out}/denied/*`]: "deny", [`${d.out}/denied`]: "deny" },
    bash: { "*": "ask", "git status": "allow", "ls": "allow", "rm *": "deny" },
    skill: { "*": "allow", asked: "ask" },
    webfetch: { "*": "ask", "http://127.0.0.1:1/allowed/*": "allow", "http://127.0.0.1:1/denied/*": "deny" }
  }
})

const setUp = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const base = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-agree-" }))
  const ws = path.join(base, "ws")
  const out = path.join(base, "out")
  const files: Record<string, string> = {
    "ws/a.txt": "hello\n",
    "ws/b.txt": "b\n",
    "ws/secret/x.txt": "s\n",
    "ws/sub/c.txt": "c\n",
    "ws/docs/r.md": "# r\n",
    "ws/free/keep.txt": "k\n",
    "ws/.agent-tools/skills/docs/SKILL.md": "---\nname: docs\ndescription: Write docs\n---\nDocs.\n",
    "ws/.agent-tools/skills/asked/SKILL.md": "---\nname: asked\ndescription: Asks first\n---\nAsked.\n",
    "out/o.txt": "o\n",
    "out/denied/d.txt": "d\n"
  }
  for (const [name, content] of Object.entries(files)) {
    yield* fs.makeDirectory(path.dirname(path.join(base, name)), { recursive: true })
    yield* fs.writeFileString(path.join(base, name), content)
  }
  yield* fs.symlink(out, path.join(ws, "link"))
  return { base, ws, out, spillDir: path.join(base, "spill") }
})

const pairsOf = (items: ReadonlyArray<{ readonly permission: string; readonly patterns: ReadonlyArray<string> }>) =>
  items.flatMap((i) => i.patterns.map((p) => `${i.permission} ${p}`)).sort()

/** Explains, then calls with a responder that answers every prompt "once", in a fresh session. */
const compare = (c: Case, session: string) =>
  Effect.gen(function*() {
    const label = `${c.tool} ${JSON.stringify(c.args)}`
    const explained = yield* Effect.exit(Explain.explain(c.tool, c.args, { sessionID: session }))
    const responder = yield* ScriptedPermission.run(() => "once")
    const registry = yield* ToolRegistry.ToolRegistry
    const ctx = yield* Tool.makeContext({ sessionID: session, tool: c.tool })
    const called = yield* Effect.exit(registry.execute(c.tool, c.args, ctx))
    const prompts = (yield* responder.asked).map((a) => a.request)

    if (Exit.isFailure(explained)) {
      assert.strictEqual(c.expect, "error", `${label}: explain failed: ${String(explained.cause)}`)
      assert.isTrue(Exit.isFailure(called), `${label}: explain failed but the call succeeded`)
      const message = (e: Exit.Exit<unknown, unknown>) =>
        Exit.isFailure(e) ? String((e.cause.reasons[0] as { error?: { message?: string } })?.error?.message) : ""
      assert.strictEqual(message(called), message(explained), `${label}: the same error`)
      assert.deepStrictEqual(prompts, [], `${label}: nothing asked`)
      return
    }
    const report = explained.value
    assert.strictEqual(report.action, c.expect, `${label}: explain says ${Explain.render(report)}`)
    assert.strictEqual(report.source, "tool", label)
    const asks = report.decisions.filter((d) => d.action === "ask").map((d) => `${d.permission} ${d.pattern}`).sort()
    const all = new Set(report.decisions.map((d) => `${d.permission} ${d.pattern}`))
    const refusal = Exit.isFailure(called)
      ? (called.cause.reasons[0] as { error?: { _tag?: string } } | undefined)?.error?._tag
      : undefined
    switch (report.action) {
      case "deny":
        assert.strictEqual(refusal, "PermissionDeniedError", `${label}: the call is denied`)
        assert.deepStrictEqual(prompts, [], `${label}: a deny asks nothing`)
        break
      case "ask": {
        assert.strictEqual(prompts.length, 1, `${label}: one prompt`)
        const asked = pairsOf(prompts[0]!.requests)
        for (const pair of asked) assert.isTrue(all.has(pair), `${label}: the call asked ${pair}, which explain did not list`)
        assert.deepStrictEqual(asked.filter((p) => asks.includes(p)), asks, `${label}: every ask explain listed was in the prompt`)
        assert.notStrictEqual(refusal, "PermissionDeniedError", label)
        assert.notStrictEqual(refusal, "PermissionRejectedError", label)
        break
      }
      case "allow":
        assert.deepStrictEqual(prompts, [], `${label}: nothing asked`)
        assert.notStrictEqual(refusal, "PermissionDeniedError", label)
        assert.notStrictEqual(refusal, "PermissionRejectedError", label)
        break
    }
  }).pipe(Effect.scoped)

describe("explain agrees with call", () => {
  it.live("every built-in tool, inside, outside, through a symlink, a spill, denied and asked", () =>
    Effect.gen(function*() {
      const env = yield* setUp
      const layer = NodeAgentTools.layerWithoutPlatform({
        cwd: env.ws,
        tools: builtins,
        config: { ...config({ ws: env.ws, out: env.out, spill: "" }), spill: { dir: env.spillDir } } as never,
        fileTime: { disabled: true },
        platform: "linux"
      })
      yield* Effect.gen(function*() {
        const spill = yield* SpillStorage.SpillStorage
        const spillPath = yield* spill.write("line 1\nline 2\n")
        const list = cases({ ws: env.ws, out: env.out, spill: spillPath })
        const covered = new Set(list.map((c) => c.tool))
        assert.deepStrictEqual([...covered].sort(), builtins.map((t) => t.id).sort(), "every built-in tool is covered")
        let n = 0
        for (const c of list) yield* compare(c, `agree-${n++}`)
      }).pipe(Effect.provide(layer))
    }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/t", PATH: "/usr/bin:/bin" } })))
    ), 120_000)
})

describe("explain agrees with call when a before hook rewrites the arguments", () => {
  it.live("the hook moves a write into a denied directory: explain and the call both deny it", () =>
    Effect.gen(function*() {
      const env = yield* setUp
      const layer = NodeAgentTools.layerWithoutPlatform({
        cwd: env.ws,
        tools: builtins,
        config: config({ ws: env.ws, out: env.out, spill: "" }) as never,
        fileTime: { disabled: true },
        platform: "linux",
        registry: {
          hooks: [{
            name: "redirect",
            before: ({ tool, args }) =>
              tool === "write" ? { args: { ...(args as Record<string, unknown>), filePath: "secret/moved.txt" } } : undefined
          }]
        }
      })
      yield* Effect.gen(function*() {
        const args = { filePath: "free/plain.txt", content: "x\n" }
        const report = yield* Explain.explain("write", args, { sessionID: "hooked" })
        assert.strictEqual(
          Explain.render(report),
          'write: deny\n  deny edit "secret/moved.txt": rule edit "secret/*" → deny (configured)'
        )
        yield* compare({ tool: "write", args, expect: "deny" }, "hooked-call")
        const fs = yield* FileSystem.FileSystem
        assert.isFalse(yield* fs.exists(`${env.ws}/secret/moved.txt`))
        assert.isFalse(yield* fs.exists(`${env.ws}/free/plain.txt`))
      }).pipe(Effect.provide(layer))
    }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { HOME: "/home/t", PATH: "/usr/bin:/bin" } })))
    ), 120_000)
})
