import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Path } from "effect"
import { NodeServices } from "@effect/platform-node"
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { McpServerConfig } from "@agent-tools/mcp"
import { AgentConfig } from "@agent-tools/runtime"

const problemsOf = (input: unknown) =>
  Effect.flip(AgentConfig.decode(input)).pipe(Effect.map((e) => e.problems.map((p) => `${p.path}: ${p.reason}`)))

describe("AgentConfig.decode", () => {
  it.effect("accepts a full config", () =>
    Effect.gen(function*() {
      const input: AgentConfig.Input = {
        $schema: "./node_modules/@agent-tools/runtime/agent-tools.schema.json",
        permission: { edit: "ask", bash: { "*": "ask", "git status": "allow" }, external_directory: "deny" },
        truncation: {
          maxLines: 500,
          maxBytes: 20000,
          direction: "head+tail",
          strategy: "bytes",
          tools: { bash: { direction: "tail" }, read: { disabled: true }, mcp_api: { strategy: "json" } }
        },
        spill: { dir: "~/spill", retentionDays: 3 },
        tools: { disabled: ["webfetch"], directories: [".agent/tools"], plugins: ["my-plugin"] },
        sandbox: { mode: "required", network: "deny", extraWritable: ["~/.cache"], extraReadable: ["../shared"] }
      }
      assert.deepStrictEqual(yield* AgentConfig.decode(input), input)
      assert.deepStrictEqual(yield* AgentConfig.decode({ permission: "allow" }), { permission: "allow" })
      assert.deepStrictEqual(yield* AgentConfig.decode({}), {})
    }))

  it.effect("spill.s3: accepted whole, and each bad value named by its key", () =>
    Effect.gen(function*() {
      const s3 = { bucket: "team-spills", prefix: "agents/", endpoint: "http://127.0.0.1:9000", region: "eu-west-1", forcePathStyle: true }
      assert.deepStrictEqual(yield* AgentConfig.decode({ spill: { s3, retentionDays: 2 } }), { spill: { s3, retentionDays: 2 } })
      assert.deepStrictEqual(yield* problemsOf({ spill: { s3: {} } }), ["spill.s3.bucket: expected a string, got nothing"])
      assert.deepStrictEqual(yield* problemsOf({ spill: { s3: { bucket: "" } } }), [`spill.s3.bucket: expected a non-empty string, got ""`])
      assert.deepStrictEqual(yield* problemsOf({ spill: { s3: { bucket: "b", endpoint: "ftp://host" } } }), [
        `spill.s3.endpoint: expected an http:// or https:// URL, got "ftp://host"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ spill: { s3: { bucket: "b", forcePathStyle: "yes" } } }), [
        `spill.s3.forcePathStyle: expected true or false, got "yes"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ spill: { s3: { bucket: "b", secretKey: "x" } } }), [
        "spill.s3.secretKey: unknown key (expected one of bucket, prefix, endpoint, region, forcePathStyle)"
      ])
      assert.deepStrictEqual(yield* problemsOf({ spill: { dir: "/x", s3: { bucket: "b" } } }), [
        `spill.dir: expected no dir when s3 is set (spills then go to the bucket), got "/x"`
      ])
    }))

  it.effect("names the bad key, what was expected and what was found", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* problemsOf({ truncation: { direction: "middle" } }), [
        `truncation.direction: expected head | tail | head+tail, got "middle"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ sandbox: { mode: "strict" } }), [
        `sandbox.mode: expected auto | required | off, got "strict"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ sandbox: { network: "none" } }), [
        `sandbox.network: expected proxy | allow | deny, got "none"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ sandbox: { protectedPaths: ["ok/x", "../up", "/abs"] } }), [
        `sandbox.protectedPaths[1]: expected a path inside the workspace, relative to its root, got "../up"`,
        `sandbox.protectedPaths[2]: expected a path inside the workspace, relative to its root, got "/abs"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ truncation: { maxLines: 1.5 } }), [
        "truncation.maxLines: expected an integer, got 1.5"
      ])
      assert.deepStrictEqual(yield* problemsOf({ truncation: { maxBytes: 0 } }), [
        "truncation.maxBytes: expected a number >= 1, got 0"
      ])
      assert.deepStrictEqual(yield* problemsOf({ truncation: { tools: { bash: { direction: "up" } } } }), [
        `truncation.tools.bash.direction: expected head | tail | head+tail, got "up"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ truncation: { strategy: "middle-out" } }), [
        `truncation.strategy: expected lines | bytes | json, got "middle-out"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ truncation: { tools: { api: { strategy: "xml" } } } }), [
        `truncation.tools.api.strategy: expected lines | bytes | json, got "xml"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ spill: { retentionDays: -1 } }), [
        "spill.retentionDays: expected a number > 0, got -1"
      ])
      assert.deepStrictEqual(yield* problemsOf({ tools: { disabled: ["read", 3] } }), [
        "tools.disabled[1]: expected a string, got 3"
      ])
    }))

  it.effect("apply_patch.mode is atomic or sequential", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* AgentConfig.decode({ apply_patch: { mode: "sequential" } })).apply_patch, { mode: "sequential" })
      assert.deepStrictEqual(yield* problemsOf({ apply_patch: { mode: "lenient" } }), [
        `apply_patch.mode: expected atomic | sequential, got "lenient"`
      ])
    }))

  it.effect("skills.directories and experimental.batch_tool: bad values name the key", () =>
    Effect.gen(function*() {
      const ok = { skills: { directories: ["~/.claude/skills", "team/skills"] }, experimental: { batch_tool: true } }
      assert.deepStrictEqual(yield* AgentConfig.decode(ok), ok)
      assert.deepStrictEqual(yield* problemsOf({ skills: { directories: "skills" } }), [
        `skills.directories: expected an array, got "skills"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ skills: { directories: [""] } }), [
        `skills.directories[0]: expected a non-empty string, got ""`
      ])
      assert.deepStrictEqual(yield* problemsOf({ skills: { paths: [] } }), [
        "skills.paths: unknown key (expected one of directories)"
      ])
      assert.deepStrictEqual(yield* problemsOf({ experimental: { batch_tool: "yes" } }), [
        `experimental.batch_tool: expected true or false, got "yes"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ experimental: { batch: true } }), [
        "experimental.batch: unknown key (expected one of batch_tool, lsp_tool)"
      ])
    }))

  it.effect("lsp is true, false or an object; experimental.lsp_tool is true or false; bad values name the key", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* AgentConfig.decode({ lsp: true })).lsp, true)
      const full = { lsp: { enabled: true, diagnosticsTimeout: 5000 }, experimental: { lsp_tool: true } }
      assert.deepStrictEqual(yield* AgentConfig.decode(full), full)
      assert.deepStrictEqual(yield* problemsOf({ lsp: { diagnosticsTimeout: "5s" } }), [
        `lsp.diagnosticsTimeout: expected a number, got "5s"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ lsp: { diagnosticsTimeout: -1 } }), ["lsp.diagnosticsTimeout: expected a number >= 0, got -1"])
      assert.deepStrictEqual(yield* problemsOf({ lsp: { timeout: 1 } }), ["lsp.timeout: unknown key (expected one of enabled, diagnosticsTimeout, workspaceTypeScript)"])
      assert.deepStrictEqual(yield* problemsOf({ lsp: "yes" }), [`lsp: expected true or false or an object, got "yes"`])
      assert.deepStrictEqual(yield* problemsOf({ experimental: { lsp_tool: 1 } }), ["experimental.lsp_tool: expected true or false, got 1"])
    }))

  it.effect("webfetch.allowPrivateNetwork is true or false", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* AgentConfig.decode({ webfetch: { allowPrivateNetwork: true } })).webfetch, {
        allowPrivateNetwork: true
      })
      assert.deepStrictEqual(yield* problemsOf({ webfetch: { allowPrivateNetwork: "yes" } }), [
        `webfetch.allowPrivateNetwork: expected true or false, got "yes"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ webfetch: { allowLoopback: true } }), [
        "webfetch.allowLoopback: unknown key (expected one of allowPrivateNetwork)"
      ])
    }))

  it.effect("websearch: enabled needs a key; the endpoint is an http(s) URL", () =>
    Effect.gen(function*() {
      const full = { enabled: true, apiKeyEnv: "EXA_API_KEY", endpoint: "http://127.0.0.1:9/mcp" }
      assert.deepStrictEqual((yield* AgentConfig.decode({ websearch: full })).websearch, full)
      assert.deepStrictEqual((yield* AgentConfig.decode({ websearch: { enabled: false } })).websearch, { enabled: false })
      assert.deepStrictEqual(yield* problemsOf({ websearch: { enabled: true } }), [
        "websearch.enabled: expected false unless apiKey or apiKeyEnv is set, got true"
      ])
      assert.deepStrictEqual(yield* problemsOf({ websearch: { enabled: true, apiKey: "k", endpoint: "ftp://exa" } }), [
        `websearch.endpoint: expected an http:// or https:// URL, got "ftp://exa"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ websearch: { enabled: "on", apiKey: "k" } }), [
        `websearch.enabled: expected true or false, got "on"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ websearch: { apiKey: "" } }), [
        `websearch.apiKey: expected a non-empty string, got ""`
      ])
      assert.deepStrictEqual(yield* problemsOf({ websearch: { key: "k" } }), [
        "websearch.key: unknown key (expected one of enabled, apiKey, apiKeyEnv, endpoint)"
      ])
    }))

  it.effect("mcp: accepts local and remote servers and names the key of a bad one", () =>
    Effect.gen(function*() {
      const good: AgentConfig.Input = {
        mcp: {
          files: { type: "local", command: ["npx", "-y", "files-mcp"], environment: { A: "1" }, cwd: "tools", timeout: 5000 },
          docs: { type: "remote", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, enabled: false, timeout: { request: 1000 } }
        }
      }
      assert.deepStrictEqual(yield* AgentConfig.decode(good), good)
      const cases: ReadonlyArray<[unknown, string]> = [
        [{ files: { type: "local", command: [] } }, "mcp.files.command: expected at least 1 item(s), got []"],
        [{ files: { type: "stdio", command: ["x"] } }, `mcp.files.type: expected local | remote, got "stdio"`],
        [{ files: { command: ["x"] } }, "mcp.files.type: expected local | remote, got nothing"],
        [{ docs: { type: "remote", url: "ftp://x" } }, `mcp.docs.url: expected an http:// or https:// URL, got "ftp://x"`],
        [{ docs: { type: "remote", url: "https://x", command: ["x"] } }, "mcp.docs.command: unknown key"],
        [{ files: { type: "local", command: ["x"], timeout: -1 } }, "mcp.files.timeout: expected a number >= 1, got -1"],
        [{ files: { type: "local", command: ["x"], timeout: { start: 1 } } }, "mcp.files.timeout.start: unknown key"],
        [{ files: { type: "local", command: ["x"], enabled: "yes" } }, `mcp.files.enabled: expected true or false, got "yes"`],
        [[], "mcp: expected an object, got []"]
      ]
      for (const [mcp, problem] of cases) assert.deepStrictEqual(yield* problemsOf({ mcp }), [problem])
    }))

  it.effect("rejects unknown keys at every level, listing the known ones", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* problemsOf({ permissions: {} }), [
        "permissions: unknown key (expected one of permission, truncation, spill, tools, sandbox, jobs, apply_patch, skills, experimental, lsp, webfetch, websearch, mcp)"
      ])
      assert.deepStrictEqual(yield* problemsOf({ truncation: { lines: 10 } }), [
        "truncation.lines: unknown key (expected one of maxLines, maxBytes, direction, strategy, tools)"
      ])
      assert.deepStrictEqual(yield* problemsOf({ truncation: { tools: { bash: { tail: true } } } }), [
        "truncation.tools.bash.tail: unknown key (expected one of maxLines, maxBytes, direction, strategy, disabled)"
      ])
      assert.deepStrictEqual(yield* problemsOf({ spill: { directory: "/x" } }), [
        "spill.directory: unknown key (expected one of dir, retentionDays, maxBytes, maxTotalBytes, s3)"
      ])
    }))

  it.effect("reports permission values at the deepest key", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* problemsOf({ permission: { bash: { "git status": "maybe" } } }), [
        `permission.bash["git status"]: expected allow | ask | deny, got "maybe"`
      ])
      assert.deepStrictEqual(yield* problemsOf({ permission: { edit: 5 } }), [
        "permission.edit: expected allow | ask | deny or an object, got 5"
      ])
      assert.deepStrictEqual(yield* problemsOf({ permission: "sometimes" }), [
        `permission: expected allow | ask | deny or an object, got "sometimes"`
      ])
    }))

  it.effect("reports every problem, prefixed with the file", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        AgentConfig.decodeText(`{"truncation":{"direction":"middle"},"extra":1}`, "/ws/agent-tools.json")
      )
      assert.strictEqual(
        error.message,
        `/ws/agent-tools.json: truncation.direction: expected head | tail | head+tail, got "middle"\n` +
          "/ws/agent-tools.json: extra: unknown key (expected one of permission, truncation, spill, tools, sandbox, jobs, apply_patch, skills, experimental, lsp, webfetch, websearch, mcp)"
      )
      const json = yield* Effect.flip(AgentConfig.decodeText(`{"truncation": }`, "/ws/agent-tools.json"))
      assert.match(json.message, /^\/ws\/agent-tools\.json: invalid JSON: /)
    }))
})

describe("AgentConfig.load", () => {
  const inTempDir = <A, E>(f: (dir: string, fs: FileSystem.FileSystem, path: Path.Path) => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "agent-config-" })
      return yield* f(dir, fs, path)
    }).pipe(Effect.provide(NodeServices.layer))

  it.effect("reads agent-tools.json from the workspace when present", () =>
    inTempDir((dir, fs, path) =>
      Effect.gen(function*() {
        const none = yield* AgentConfig.load({ cwd: dir })
        assert.deepStrictEqual(none, { config: {}, file: undefined })
        const file = path.join(dir, "agent-tools.json")
        yield* fs.writeFileString(file, JSON.stringify({ permission: { edit: "allow" } }))
        assert.deepStrictEqual(yield* AgentConfig.load({ cwd: dir }), { config: { permission: { edit: "allow" } }, file })
      })
    ))

  it.effect("an explicit file must exist; an object is validated like a file", () =>
    inTempDir((dir, fs, path) =>
      Effect.gen(function*() {
        const missing = yield* Effect.flip(AgentConfig.load({ cwd: dir, config: "nope.json" }))
        assert.strictEqual(missing.message, `${path.join(dir, "nope.json")}: config file not found`)
        yield* fs.writeFileString(path.join(dir, "other.json"), `{"tools":{"disabled":["bash"]}}`)
        const other = yield* AgentConfig.load({ cwd: dir, config: "other.json" })
        assert.deepStrictEqual(other.config, { tools: { disabled: ["bash"] } })
        const bad = yield* Effect.flip(AgentConfig.load({ cwd: dir, config: { spill: { dir: 3 } } as never }))
        assert.strictEqual(bad.message, "spill.dir: expected a string, got 3")
      })
    ))
})

describe("agent-tools.schema.json", () => {
  const file = fileURLToPath(new URL("../agent-tools.schema.json", import.meta.url))

  it("equals the schema generated from the zod config schema (UPDATE_SCHEMA=1 rewrites it)", () => {
    const generated = AgentConfig.jsonSchemaText()
    if (process.env.UPDATE_SCHEMA === "1") writeFileSync(file, generated)
    assert.strictEqual(readFileSync(file, "utf8"), generated)
  })

  it("is a closed object schema with the contract's keys", () => {
    const schema = JSON.parse(readFileSync(file, "utf8")) as { properties: Record<string, unknown>; additionalProperties: boolean }
    assert.deepStrictEqual(Object.keys(schema.properties), ["$schema", "permission", "truncation", "spill", "tools", "sandbox", "jobs", "apply_patch", "skills", "experimental", "lsp", "webfetch", "websearch", "mcp"])
    assert.isFalse(schema.additionalProperties)
  })

  it("states the MCP client's default timeouts", () => {
    const schema = JSON.stringify(AgentConfig.jsonSchema())
    assert.include(schema, `(default ${McpServerConfig.DEFAULT_STARTUP_MS})`)
    assert.include(schema, `(default ${McpServerConfig.DEFAULT_REQUEST_MS})`)
  })
})
