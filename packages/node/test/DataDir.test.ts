import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { DataDir } from "@agent-tools/node"

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))

describe("DataDir", () => {
  it("selects the platform's data directory", () => {
    assert.strictEqual(DataDir.select("linux", {}, "/home/ann"), "/home/ann/.local/share/agent-tools")
    assert.strictEqual(DataDir.select("linux", { XDG_DATA_HOME: "/data/" }, "/home/ann"), "/data/agent-tools")
    // XDG: a relative XDG_DATA_HOME is invalid and ignored.
    assert.strictEqual(DataDir.select("linux", { XDG_DATA_HOME: "rel/data" }, "/home/ann"), "/home/ann/.local/share/agent-tools")
    assert.strictEqual(DataDir.select("freebsd", { XDG_DATA_HOME: "/x" }, "/home/ann"), "/x/agent-tools")
    assert.strictEqual(
      DataDir.select("darwin", { XDG_DATA_HOME: "/ignored" }, "/Users/ann"),
      "/Users/ann/Library/Application Support/agent-tools"
    )
    assert.strictEqual(
      DataDir.select("win32", { LOCALAPPDATA: "C:\\Users\\ann\\AppData\\Local" }, "C:\\Users\\ann"),
      "C:\\Users\\ann\\AppData\\Local\\agent-tools"
    )
    assert.strictEqual(DataDir.select("win32", {}, "C:\\Users\\ann"), "C:\\Users\\ann\\AppData\\Local\\agent-tools")
  })

  it.effect("reads XDG_DATA_HOME and HOME through Config (Linux)", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* DataDir.spillDir("linux"), "/xdg/agent-tools/tool-output")
      assert.strictEqual(yield* DataDir.home("linux"), "/home/ann")
    }).pipe(withEnv({ XDG_DATA_HOME: "/xdg", HOME: "/home/ann" })))

  it.effect("falls back to ~/.local/share without XDG_DATA_HOME", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* DataDir.spillDir("linux"), "/home/bob/.local/share/agent-tools/tool-output")
    }).pipe(withEnv({ HOME: "/home/bob" })))

  it.effect("uses ~/Library/Application Support on macOS", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* DataDir.dataDir("darwin"), "/Users/cy/Library/Application Support/agent-tools")
    }).pipe(withEnv({ HOME: "/Users/cy", XDG_DATA_HOME: "/xdg" })))

  it.effect("uses LOCALAPPDATA, else USERPROFILE, on Windows", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* DataDir.spillDir("win32"), "D:\\Local\\agent-tools\\tool-output")
    }).pipe(withEnv({ LOCALAPPDATA: "D:\\Local", USERPROFILE: "C:\\Users\\di" })))

  it.effect("Windows without LOCALAPPDATA", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* DataDir.dataDir("win32"), "C:\\Users\\di\\AppData\\Local\\agent-tools")
    }).pipe(withEnv({ USERPROFILE: "C:\\Users\\di" })))

  it("selects the platform's config directory", () => {
    assert.strictEqual(DataDir.selectConfig("linux", {}, "/home/ann"), "/home/ann/.config/agent-tools")
    assert.strictEqual(DataDir.selectConfig("linux", { XDG_CONFIG_HOME: "/cfg/" }, "/home/ann"), "/cfg/agent-tools")
    // XDG: a relative XDG_CONFIG_HOME is invalid and ignored.
    assert.strictEqual(DataDir.selectConfig("linux", { XDG_CONFIG_HOME: "cfg" }, "/home/ann"), "/home/ann/.config/agent-tools")
    // Command-line tools on macOS follow XDG for their config.
    assert.strictEqual(DataDir.selectConfig("darwin", {}, "/Users/ann"), "/Users/ann/.config/agent-tools")
    assert.strictEqual(DataDir.selectConfig("darwin", { XDG_CONFIG_HOME: "/cfg" }, "/Users/ann"), "/cfg/agent-tools")
    assert.strictEqual(
      DataDir.selectConfig("win32", { APPDATA: "D:\\Roaming" }, "C:\\Users\\ann"),
      "D:\\Roaming\\agent-tools"
    )
    assert.strictEqual(DataDir.selectConfig("win32", {}, "C:\\Users\\ann"), "C:\\Users\\ann\\AppData\\Roaming\\agent-tools")
  })

  it.effect("reads XDG_CONFIG_HOME and HOME through Config", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* DataDir.configDir("linux"), "/home/bob/.config/agent-tools")
    }).pipe(withEnv({ HOME: "/home/bob" })))
})
