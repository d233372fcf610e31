import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { hintsOf, jsonSafe, titleOf, toCallToolResult, toMcpTool } from "../src/Mapping.ts"
import { type Tool, ToolNames } from "@agent-tools/core"
import { builtins, searchTools, Web } from "@agent-tools/tools"

const { assign, hash8, isValid } = ToolNames

describe("ToolNames", () => {
  it("keeps valid ids and gives every other id a provider-safe, unique, reversible name", () => {
    const long = "x".repeat(70)
    const ids = ["read", "apply_patch", "my.tool", "my_tool", "9lives", "", long, `${long}y`, "Server Name/tool"]
    const { toName, toId } = assign(ids)
    assert.deepStrictEqual(Object.fromEntries(toName), {
      read: "read",
      apply_patch: "apply_patch",
      my_tool: "my_tool",
      // "my_tool" is taken by a valid id, so the sanitized "my.tool" carries its hash
      "my.tool": `my_tool_${hash8("my.tool")}`,
      "9lives": "_9lives",
      "": "_",
      [long]: `${"x".repeat(55)}_${hash8(long)}`,
      [`${long}y`]: `${"x".repeat(55)}_${hash8(`${long}y`)}`,
      "Server Name/tool": "Server_Name_tool"
    })
    for (const [id, name] of toName) {
      assert.isTrue(isValid(name), name)
      assert.strictEqual(toId.get(name), id)
    }
  })

  it("is stable: the same ids in another order get the same names", () => {
    const a = assign(["b.c", "a/b", "ok"])
    const b = assign(["ok", "a/b", "b.c"])
    assert.deepStrictEqual([...a.toName].sort(), [...b.toName].sort())
  })
})

describe("Mapping", () => {
  const hints = (title: string, readOnly: boolean, destructive: boolean, openWorld = false) => ({
    title,
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: readOnly,
    openWorldHint: openWorld
  })

  it("sends every hint and a title: the tool's own, else the contract's table for the built-ins", () => {
    assert.deepStrictEqual(hintsOf({ id: "read", annotations: {} }), hints("Read", true, false))
    assert.deepStrictEqual(hintsOf({ id: "edit", annotations: {} }), hints("Edit", false, true))
    assert.deepStrictEqual(hintsOf({ id: "bash", annotations: {} }), hints("Bash", false, true, true))
    assert.deepStrictEqual(hintsOf({ id: "todowrite", annotations: {} }), hints("Write todos", false, false))
    assert.deepStrictEqual(hintsOf({ id: "apply_patch", annotations: {} }), hints("Apply patch", false, true))
    assert.deepStrictEqual(
      hintsOf({ id: "my_custom-tool", annotations: { readOnly: true, destructive: true } }),
      hints("My custom tool", true, false)
    )
  })

  it("the web tools are read-only and open-world; a tool's own openWorld wins", () => {
    const web: ReadonlyArray<Tool.Definition<string, any, any>> = [...builtins.filter((d) => d.id === "webfetch"), ...searchTools]
    for (const definition of web) {
      const unused = HttpClient.make(() => Effect.die("unused"))
      const init = definition.init.pipe(
        Effect.provideService(Web.WebFetchClient, unused),
        Effect.provideService(HttpClient.HttpClient, unused),
        Effect.provideService(Web.ExaConfig, { endpoint: "http://unused", apiKey: Redacted.make("unused") })
      ) as Effect.Effect<Tool.Def>
      const built = Effect.runSync(Effect.map(init, (def) => ({ id: definition.id, annotations: def.annotations ?? {} })))
      assert.deepStrictEqual(hintsOf(built), hints(titleOf(definition.id), true, false, true), definition.id)
    }
    assert.strictEqual(hintsOf({ id: "webfetch", annotations: {} }).openWorldHint, true)
    assert.strictEqual(hintsOf({ id: "bash", annotations: { openWorld: false } }).openWorldHint, false)
    assert.strictEqual(hintsOf({ id: "custom", annotations: { openWorld: true } }).openWorldHint, true)
  })

  it("lists only object-rooted schemas, without $schema", () => {
    const tool = {
      id: "t",
      description: "d",
      annotations: {},
      jsonSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} }
    }
    assert.deepStrictEqual(toMcpTool(tool, "t"), {
      name: "t",
      title: "T",
      description: "d",
      inputSchema: { type: "object", properties: {} },
      annotations: { title: "T", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
    })
    assert.strictEqual(
      toMcpTool({ ...tool, jsonSchema: { type: "string" } }, "t"),
      `tool "t" is not exposed over MCP: its parameters must be a JSON Schema object (got type "string")`
    )
  })

  it("puts attachments in image and resource blocks, not in the text", () => {
    const result = toCallToolResult({
      title: "shot",
      output: "see attachments",
      metadata: { size: 10n },
      attachments: [
        { type: "file", mime: "image/png", url: "data:image/png;base64,iVBORw0K", filename: "a.png" },
        { type: "file", mime: "application/pdf", url: "data:application/pdf;base64,JVBERi0=", filename: "doc 1.pdf" }
      ]
    })
    assert.deepStrictEqual(result, {
      content: [
        { type: "text", text: "see attachments" },
        { type: "image", data: "iVBORw0K", mimeType: "image/png" },
        { type: "resource", resource: { uri: "attachment:///doc%201.pdf", mimeType: "application/pdf", blob: "JVBERi0=" } }
      ],
      structuredContent: { title: "shot", metadata: { size: "10" } }
    })
  })

  it("makes metadata plain JSON even with a cycle", () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    assert.deepStrictEqual(jsonSafe({ cyclic, n: 2n, skip: undefined }), { cyclic: { a: 1 }, n: "2" })
  })
})
