/**
 * The ids an MCP server's tools get: `<server>_<tool>`, provider-safe, at most 64 characters, the
 * same on every run, and claimed by the server's prefix even when shortened.
 */
import { assert, describe, it } from "@effect/vitest"
import { ToolNames } from "@agent-tools/core"
import { McpClient, McpServers } from "@agent-tools/mcp"

describe("MCP tool ids", () => {
  it("keep valid names, sanitise others and cut long ones with a stable hash", () => {
    const long = `get_${"console_message_".repeat(5)}end`
    const ids = McpClient.idsOf("chrome", ["navigate", "take screenshot", long, `${long}2`])
    assert.strictEqual(ids.get("navigate"), "chrome_navigate")
    assert.strictEqual(ids.get("take screenshot"), "chrome_take_screenshot")
    const cut = [ids.get(long)!, ids.get(`${long}2`)!]
    for (const id of cut) {
      assert.strictEqual(id.length, 64)
      assert.isTrue(ToolNames.isValid(id))
      assert.isTrue(id.startsWith("chrome_get_console_message_"))
    }
    assert.notStrictEqual(cut[0], cut[1])
    assert.deepStrictEqual(McpClient.idsOf("chrome", [long]).get(long), cut[0])
  })

  it("server prefixes are provider-safe and distinct; ids are claimed by their server's prefix", () => {
    const prefixes = McpServers.prefixes(["github", "My Server", "My_Server", "x".repeat(70)])
    assert.strictEqual(prefixes.get("github"), "github")
    assert.strictEqual(prefixes.get("My_Server"), "My_Server")
    assert.strictEqual(prefixes.get("My Server"), `My_Server_${ToolNames.hash8("My Server")}`)
    const longPrefix = prefixes.get("x".repeat(70))!
    assert.strictEqual(longPrefix.length, 64)
    const stem = McpServers.stemOf(longPrefix)
    const toolId = McpClient.idsOf(longPrefix, ["tool"]).get("tool")!
    assert.isTrue(toolId.toLowerCase().startsWith(stem))
    assert.strictEqual(McpServers.stemOf("github"), "github_")
  })
})
