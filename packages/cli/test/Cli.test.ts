import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect, FileSystem } from "effect"
import { readFileSync } from "node:fs"
import { SpillStorage } from "@agent-tools/core"
import { VERSION } from "@agent-tools/cli"
import { run, workspace } from "./harness.ts"

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, any>) =>
  it.live(name, () => body().pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>)

describe("agent-tools (in-process)", () => {
  describe("help and version", () => {
    live("no subcommand prints the help and exits 0", () =>
      Effect.gen(function*() {
        const r = yield* run([])
        assert.strictEqual(r.code, 0)
        assert.include(r.stdout, "SUBCOMMANDS")
        for (const name of ["tools", "call", "mcp", "explain", "spill"]) assert.match(r.stdout, new RegExp(`\\n  ${name} `))
      }))

    live("--help on every command, --version", () =>
      Effect.gen(function*() {
        for (const args of [["--help"], ["tools", "--help"], ["call", "--help"], ["mcp", "--help"], ["explain", "--help"], ["spill", "--help"], ["spill", "list", "--help"], ["spill", "cleanup", "-h"], ["trust", "--help"]]) {
          const r = yield* run(args)
          assert.strictEqual(r.code, 0, args.join(" "))
          assert.include(r.stdout, "USAGE", args.join(" "))
          assert.strictEqual(r.stderr, "")
        }
        const call = yield* run(["call", "--help"])
        for (const flag of ["--cwd DIR", "--config FILE", "--json", "--yes"]) assert.include(call.stdout, flag)
        const version = yield* run(["--version"])
        assert.strictEqual(version.stdout.trim(), `agent-tools v${VERSION}`)
      }))

    it("VERSION is the package's version", () => {
      const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
      assert.strictEqual(VERSION, pkg.version)
    })

    live("usage errors exit 2 with the message and help on stderr, nothing on stdout", () =>
      Effect.gen(function*() {
        for (const args of [["call"], ["call", "echo", "--bogus"], ["nope"], ["explain", "echo"], ["spill", "wipe"]]) {
          const r = yield* run(args)
          assert.strictEqual(r.code, 2, args.join(" "))
          assert.strictEqual(r.stdout, "", args.join(" "))
          assert.include(r.stderr, "USAGE", args.join(" "))
        }
      }))
  })

  describe("tools", () => {
    live("lists the tools with their signature and first description line", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["tools", "--cwd", ws.dir])
        assert.strictEqual(r.code, 0)
        assert.include(r.stdout, "echo(text, times?)\n    Echo the text back\n")
        assert.notInclude(r.stdout, "Second line")
        assert.include(r.stdout, "touch(file)")
      }))

    live("--json: [{name, description, inputSchema, annotations}]", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["tools", "--json", "--cwd", ws.dir])
        assert.strictEqual(r.code, 0)
        const tools = JSON.parse(r.stdout) as Array<Record<string, any>>
        const echo = tools.find((t) => t.name === "echo")!
        assert.deepStrictEqual(Object.keys(echo), ["name", "description", "inputSchema", "annotations"])
        assert.strictEqual(echo.description, "Echo the text back\nSecond line of the description")
        assert.strictEqual(echo.inputSchema.type, "object")
        assert.deepStrictEqual(echo.inputSchema.required, ["text"])
        assert.strictEqual(echo.inputSchema.properties.text.description, "what to echo")
      }))

    live("follows the config: disabled tools are gone", () =>
      Effect.gen(function*() {
        const ws = yield* workspace({ config: { tools: { directories: [".agent/tools"], disabled: ["fail"] } } })
        const names = (JSON.parse((yield* run(["tools", "--json", "--cwd", ws.dir])).stdout) as Array<{ name: string }>)
          .map((t) => t.name)
        assert.notInclude(names, "fail")
        assert.include(names, "echo")
      }))
  })

  describe("call", () => {
    live("prints the output; --json prints {title, output, metadata}", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const plain = yield* run(["call", "echo", `{"text":"hi","times":2}`, "--cwd", ws.dir])
        assert.deepStrictEqual(plain, { code: 0, stdout: "hihi\n", stderr: "" })
        const json = yield* run(["call", "echo", `{"text":"hi"}`, "--json", "--cwd", ws.dir])
        assert.strictEqual(json.code, 0)
        assert.deepStrictEqual(JSON.parse(json.stdout), { title: "echo", output: "hi", metadata: { length: 2, truncated: false } })
      }))

    live("attachments: a line each with type and size; --json carries them whole", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(12)])
        yield* Effect.promise(() => import("node:fs/promises").then((fs) => fs.writeFile(`${ws.dir}/pixel.png`, png)))
        const plain = yield* run(["call", "read", `{"filePath":"pixel.png"}`, "--cwd", ws.dir])
        assert.strictEqual(plain.code, 0, plain.stderr)
        assert.strictEqual(
          plain.stdout,
          `Image read successfully\n[attachment: image/png, 20 bytes, ${ws.dir}/pixel.png; --json includes its data]\n`
        )
        const json = JSON.parse((yield* run(["call", "read", `{"filePath":"pixel.png"}`, "--json", "--cwd", ws.dir])).stdout)
        assert.deepStrictEqual(json.attachments, [
          { type: "file", mime: "image/png", url: `data:image/png;base64,${png.toString("base64")}`, filename: `${ws.dir}/pixel.png` }
        ])
      }))

    live("reads the arguments from stdin with -", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["call", "echo", "-", "--cwd", ws.dir], { stdin: `{"text":"from stdin"}\n` })
        assert.deepStrictEqual(r, { code: 0, stdout: "from stdin\n", stderr: "" })
      }))

    live("exit 2: bad JSON, not an object, invalid arguments, unknown or disabled tool", () =>
      Effect.gen(function*() {
        const ws = yield* workspace({ config: { tools: { directories: [".agent/tools"], disabled: ["fail"] } } })
        const cases: Array<[ReadonlyArray<string>, string]> = [
          [["call", "echo", "{text:", "--cwd", ws.dir], "Invalid JSON in <json>"],
          [["call", "echo", "[1]", "--cwd", ws.dir], "must be a JSON object, got an array"],
          [["call", "echo", "--cwd", ws.dir], "- text: "],
          [["call", "echo", `{"text":3}`, "--cwd", ws.dir], "- text: "],
          [["call", "nope", "{}", "--cwd", ws.dir], `Unknown tool "nope"`],
          [["call", "fail", "{}", "--cwd", ws.dir], "disabled in the configuration"]
        ]
        for (const [args, message] of cases) {
          const r = yield* run(args)
          assert.strictEqual(r.code, 2, args.join(" "))
          assert.strictEqual(r.stdout, "")
          assert.include(r.stderr, message)
        }
        const empty = yield* run(["call", "echo", "-", "--cwd", ws.dir], { stdin: "  " })
        assert.strictEqual(empty.code, 2)
        assert.include(empty.stderr, "got nothing")
      }))

    live("exit 1: the tool failed, message on stderr", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["call", "fail", "--json", "--cwd", ws.dir])
        assert.strictEqual(r.code, 1)
        assert.strictEqual(r.stdout, "")
        assert.include(r.stderr, "boom: the tool failed")
      }))

    live("exit 2: a bad config names the key; a missing workspace", () =>
      Effect.gen(function*() {
        const ws = yield* workspace({ config: { truncation: { direction: "middle" } }, trusted: false })
        const r = yield* run(["call", "echo", `{"text":"x"}`, "--cwd", ws.dir])
        assert.strictEqual(r.code, 2)
        assert.include(r.stderr, `agent-tools.json: truncation.direction: expected head | tail | head+tail, got "middle"`)
        const other = yield* run(["call", "echo", `{"text":"x"}`, "--cwd", ws.dir, "--config", "missing.json"])
        assert.strictEqual(other.code, 2)
        assert.include(other.stderr, "missing.json: config file not found")
        const gone = yield* run(["tools", "--cwd", `${ws.dir}/nope`])
        assert.strictEqual(gone.code, 2)
        assert.include(gone.stderr, "does not exist")
      }))

    live("--config selects another file", () =>
      Effect.gen(function*() {
        const ws = yield* workspace({ files: { "strict.json": JSON.stringify({ tools: { directories: [".agent/tools"] }, permission: { edit: "allow" } }) } })
        const r = yield* run(["call", "touch", `{"file":"a.txt"}`, "--cwd", ws.dir, "--config", "strict.json"])
        assert.deepStrictEqual(r, { code: 0, stdout: "touched a.txt\n", stderr: "" })
      }))
  })

  describe("permissions", () => {
    live("no TTY: an ask is rejected with exit 3 and a hint; --yes approves it", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const rejected = yield* run(["call", "touch", `{"file":"a.txt"}`, "--cwd", ws.dir])
        assert.strictEqual(rejected.code, 3)
        assert.strictEqual(rejected.stdout, "")
        assert.include(rejected.stderr, `edit "a.txt" needs approval`)
        assert.include(rejected.stderr, "Pass --yes")
        const approved = yield* run(["call", "touch", `{"file":"a.txt"}`, "--yes", "--cwd", ws.dir])
        assert.deepStrictEqual(approved, { code: 0, stdout: "touched a.txt\n", stderr: "" })
      }))

    live("a deny rule denies even with --yes; a tool hidden by a deny rule exits 3", () =>
      Effect.gen(function*() {
        const ws = yield* workspace({
          config: { tools: { directories: [".agent/tools"] }, permission: { edit: { "secret/*": "deny" }, echo: "deny" } }
        })
        const denied = yield* run(["call", "touch", `{"file":"secret/key"}`, "--yes", "--cwd", ws.dir])
        assert.strictEqual(denied.code, 3)
        assert.include(denied.stderr, "denied by the rule")
        const noTty = yield* run(["call", "touch", `{"file":"secret/key"}`, "--cwd", ws.dir])
        assert.strictEqual(noTty.code, 3)
        assert.notInclude(noTty.stderr, "--yes", "--yes cannot lift a deny")
        const hidden = yield* run(["call", "echo", `{"text":"x"}`, "--cwd", ws.dir])
        assert.strictEqual(hidden.code, 3)
        assert.include(hidden.stderr, "a permission rule denies it")
      }))

    live("a tool that wraps the rejection in its own error still exits 3", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["call", "swallow", `{"file":"a"}`, "--cwd", ws.dir])
        assert.strictEqual(r.code, 3)
        assert.include(r.stderr, "could not edit a")
      }))

    live("TTY: shows the request with its diff and allows once", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["call", "touch", `{"file":"a.txt"}`, "--cwd", ws.dir], { tty: true, answers: ["o"] })
        assert.strictEqual(r.code, 0)
        assert.strictEqual(r.stdout, "touched a.txt\n")
        assert.include(r.stderr, "Permission needed: edit\n  pattern: a.txt\n  file: /ws/a.txt\n  diff:\n    --- a\n    +++ b\n    -old\n    +new")
        assert.include(r.stderr, "[o]nce, [a]lways, [r]eject")
      }))

    live("TTY: reject, end of input and a re-asked answer", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const args = ["call", "touch", `{"file":"a.txt"}`, "--cwd", ws.dir]
        assert.strictEqual((yield* run(args, { tty: true, answers: ["r"] })).code, 3)
        const eof = yield* run(args, { tty: true, answers: [] })
        assert.strictEqual(eof.code, 3)
        assert.include(eof.stderr, "end of input")
        const retried = yield* run(args, { tty: true, answers: ["maybe", "always"] })
        assert.strictEqual(retried.code, 0)
        assert.include(retried.stderr, "Please answer o (once), a (always) or r (reject)")
      }))

    live("TTY: requests the rules decide never prompt", () =>
      Effect.gen(function*() {
        const ws = yield* workspace({ config: { tools: { directories: [".agent/tools"] }, permission: { edit: "allow" } } })
        const r = yield* run(["call", "touch", `{"file":"a.txt"}`, "--cwd", ws.dir], { tty: true, answers: [] })
        assert.deepStrictEqual(r, { code: 0, stdout: "touched a.txt\n", stderr: "" })
      }))
  })

  describe("output", () => {
    live("live progress goes to stderr once, the result to stdout", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["call", "progress", "--cwd", ws.dir])
        assert.deepStrictEqual(r, { code: 0, stdout: "finished\n", stderr: "step 1\nstep 2\n" })
      }))

    live("a long output is truncated and spilled; spill list and cleanup see it", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["call", "long", "--json", "--cwd", ws.dir])
        assert.strictEqual(r.code, 0)
        const result = JSON.parse(r.stdout) as { output: string; metadata: { truncated: boolean; outputPath: string } }
        assert.isTrue(result.metadata.truncated)
        assert.isTrue(result.metadata.outputPath.startsWith(`${ws.spillDir}/`))
        const fs = yield* FileSystem.FileSystem
        assert.strictEqual((yield* fs.readFileString(result.metadata.outputPath)).split("\n").length, 3000)

        const list = yield* run(["spill", "list", "--json", "--cwd", ws.dir])
        assert.strictEqual(list.code, 0)
        const entries = JSON.parse(list.stdout) as Array<{ path: string; size: number; mtime: number }>
        assert.deepStrictEqual(entries.map((e) => e.path), [result.metadata.outputPath])
        assert.deepStrictEqual(Object.keys(entries[0]!), ["path", "size", "mtime"])
        const text = yield* run(["spill", "list", "--cwd", ws.dir])
        assert.include(text.stdout, `${result.metadata.outputPath}\t`)
        const cleanup = yield* run(["spill", "cleanup", "--json", "--cwd", ws.dir])
        assert.deepStrictEqual(JSON.parse(cleanup.stdout), { deleted: 0 })
        const plain = yield* run(["spill", "cleanup", "--cwd", ws.dir])
        assert.strictEqual(plain.stdout, "Deleted 0 spilled output(s) past retention\n")
        // Another workspace over the same spill.dir lists only its own spills.
        const other = yield* workspace({ config: { tools: { directories: [".agent/tools"] }, spill: { dir: ws.spillDir } } })
        assert.deepStrictEqual(JSON.parse((yield* run(["spill", "list", "--json", "--cwd", other.dir])).stdout), [])
      }))

    live("spill list on an empty store", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        const r = yield* run(["spill", "list", "--cwd", ws.dir])
        const own = `${ws.spillDir}/${yield* SpillStorage.workspaceDirectoryName(ws.dir)}`
        assert.deepStrictEqual(r, { code: 0, stdout: `No spilled outputs in ${own}\n`, stderr: "" })
        assert.deepStrictEqual(JSON.parse((yield* run(["spill", "list", "--json", "--cwd", ws.dir])).stdout), [])
      }))
  })

  describe("explain", () => {
    live("the decisions a call needs, as text and as JSON, without running it", () =>
      Effect.gen(function*() {
        const ws = yield* workspace({ config: { tools: { directories: [".agent/tools"] }, permission: { fail: "allow" } } })
        const json = yield* run(["explain", "fail", "{}", "--json", "--cwd", ws.dir])
        assert.strictEqual(json.code, 0)
        // A custom tool declares no requests (it may ask while it runs): nothing to decide up front.
        assert.deepStrictEqual(JSON.parse(json.stdout), { tool: "fail", action: "allow", source: "none", decisions: [] })
        const text = yield* run(["explain", "echo", `{"text":"x"}`, "--cwd", ws.dir])
        assert.strictEqual(text.code, 0)
        assert.strictEqual(
          text.stdout,
          `echo: allow (the tool declares no permission requests; it may still ask while it runs)\n`
        )
        // A rule that denies the whole tool is the decision, as a call would be refused.
        const denied = yield* workspace({ config: { tools: { directories: [".agent/tools"] }, permission: { echo: "deny" } } })
        const refused = yield* run(["explain", "echo", `{"text":"x"}`, "--cwd", denied.dir])
        assert.strictEqual(refused.code, 0)
        assert.strictEqual(
          refused.stdout,
          `echo: deny (a rule denies the tool)\n  deny echo "*": rule echo "*" → deny (configured)\n`
        )
      }))

    live("exit 2 for an unknown tool, bad JSON or invalid arguments", () =>
      Effect.gen(function*() {
        const ws = yield* workspace()
        for (const args of [["explain", "nope", "{}"], ["explain", "echo", "{"], ["explain", "echo", `{"times":1}`]]) {
          const r = yield* run([...args, "--cwd", ws.dir])
          assert.strictEqual(r.code, 2, args.join(" "))
          assert.strictEqual(r.stdout, "")
        }
      }))
  })
})
