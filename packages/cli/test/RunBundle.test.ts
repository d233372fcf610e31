/**
 * bin/run-bundle.js: the bundled CLI run as a script with a V8 code cache on disk. A small
 * CommonJS bundle of the test's own, run in child processes as the executable runs bin.cjs.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterEach, assert, beforeEach, describe, it } from "@effect/vitest"

const RUN_BUNDLE = pathToFileURL(fileURLToPath(new URL("../bin/run-bundle.js", import.meta.url))).href

/** Prints what the executable's bundle sees, after an `import()` of a built-in and a package. */
const BUNDLE = `const add = (a, b) => a + b
import("node:os").then(async (os) => {
  const { z } = await import("zod")
  console.log(JSON.stringify({
    sum: add(40, 2),
    args: process.argv.slice(2),
    file: __filename,
    url: typeof require("node:url").pathToFileURL,
    os: typeof os.cpus,
    zod: z.string().parse("ok")
  }))
})
`

let dir: string
let cache: string
beforeEach(() => {
  // The cli package's node_modules beside the bundle: its `import("zod")` resolves as the executable's would.
  dir = mkdtempSync(join(tmpdir(), "agent-tools-run-bundle-"))
  symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(dir, "node_modules"), "dir")
  cache = join(dir, "cache")
  writeFileSync(join(dir, "bin.cjs"), BUNDLE)
  writeFileSync(
    join(dir, "launch.mjs"),
    `import { runBundle } from ${JSON.stringify(RUN_BUNDLE)}\n` +
      `runBundle(${JSON.stringify(join(dir, "bin.cjs"))}, process.env.CACHE || undefined, process.env.COMMAND ?? "")\n`
  )
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const run = (command: string, args: ReadonlyArray<string> = []) => {
  const result = spawnSync(process.execPath, [join(dir, "launch.mjs"), command, ...args], {
    encoding: "utf8",
    env: { ...process.env, CACHE: cache, COMMAND: command }
  })
  assert.strictEqual(result.status, 0, result.stderr)
  // No warning of Node's about the loader `import()` uses.
  assert.strictEqual(result.stderr, "")
  return JSON.parse(result.stdout) as Record<string, unknown>
}

const cacheFiles = () => readdirSync(cache).filter((file) => file.endsWith(".cache"))
const header = (file: string) => {
  const content = readFileSync(join(cache, file))
  return JSON.parse(content.subarray(0, content.indexOf(10)).toString("utf8")) as { commands: Array<string>; size: number }
}

describe("run-bundle", () => {
  it("runs the bundle as a CommonJS module whose import() is Node's, and keeps its code cache", () => {
    const first = run("call", ["read", "x"])
    assert.deepStrictEqual(first, {
      sum: 42,
      args: ["call", "read", "x"],
      file: join(dir, "bin.cjs"),
      url: "function",
      os: "function",
      zod: "ok"
    })
    const [file] = cacheFiles()
    assert.match(file!, new RegExp(`^bin-${process.version}-${process.arch}-[0-9a-f]{16}-${BUNDLE.length}\\.cache$`))
    // The first run marks the bundle seen, the second writes V8's data.
    assert.deepInclude(header(file!), { commands: [], size: 0 })
    assert.deepStrictEqual(run("call"), { ...first, args: ["call"] })
    assert.deepStrictEqual(header(file!).commands, ["call"])
    assert.isAbove(header(file!).size, 0)
    assert.strictEqual(statSync(cache).mode & 0o777, 0o700)
    assert.strictEqual(statSync(join(cache, file!)).mode & 0o777, 0o600)
    // Accepted by V8 and covering the command: not written again.
    const written = statSync(join(cache, file!)).ino
    assert.deepStrictEqual(run("call"), { ...first, args: ["call"] })
    assert.strictEqual(statSync(join(cache, file!)).ino, written)
  })

  it("writes the cache again for a command not in it, keeping the commands before", () => {
    run("call")
    run("call")
    run("mcp")
    assert.deepStrictEqual(cacheFiles().map((file) => header(file).commands), [["call", "mcp"]])
    const written = statSync(join(cache, cacheFiles()[0]!)).ino
    run("mcp")
    assert.strictEqual(statSync(join(cache, cacheFiles()[0]!)).ino, written)
  })

  it("ignores a damaged cache: the run after it starts the cache over", () => {
    run("call")
    run("call")
    const [file] = cacheFiles()
    const content = readFileSync(join(cache, file!))
    content[content.length - 10] = content[content.length - 10]! ^ 0xff
    writeFileSync(join(cache, file!), content)
    assert.strictEqual(run("call")["sum"], 42)
    assert.deepInclude(header(file!), { commands: [], size: 0 })
    assert.strictEqual(run("call")["sum"], 42)
    const repaired = readFileSync(join(cache, file!))
    assert.deepStrictEqual(header(file!).commands, ["call"])
    assert.strictEqual(repaired.length - repaired.indexOf(10) - 1, header(file!).size)
  })

  it("names the cache by the bundle's content: a changed bundle has a cache of its own", () => {
    run("call")
    writeFileSync(join(dir, "bin.cjs"), BUNDLE.replace("add(40, 2)", "add(40, 3)"))
    assert.strictEqual(run("call")["sum"], 43)
    assert.strictEqual(cacheFiles().length, 2)
  })

  it("removes the caches of other bundles written more than 30 days ago when it writes one", () => {
    mkdirSync(cache, { mode: 0o700 })
    const old = join(cache, "bin-v0.0.0-x64-0000000000000000-1.cache")
    const recent = join(cache, "bin-v0.0.0-x64-1111111111111111-1.cache")
    const other = join(cache, "notes.txt")
    for (const file of [old, recent, other]) writeFileSync(file, "x")
    const days = (n: number) => new Date(Date.now() - n * 24 * 3600 * 1000)
    utimesSync(old, days(31), days(31))
    utimesSync(recent, days(29), days(29))
    utimesSync(other, days(31), days(31))
    run("call")
    assert.isFalse(existsSync(old))
    assert.isTrue(existsSync(recent), "written 29 days ago")
    assert.isTrue(existsSync(other), "not a cache")
    assert.strictEqual(cacheFiles().length, 2, "this bundle's and the recent one")
  })

  it("caches nothing in a directory others can write to, and runs all the same", () => {
    mkdirSync(cache, { mode: 0o700 })
    chmodSync(cache, 0o777)
    assert.strictEqual(run("call")["sum"], 42)
    assert.deepStrictEqual(readdirSync(cache), [])
  })

  it("runs without a cache directory", () => {
    const result = spawnSync(process.execPath, [join(dir, "launch.mjs"), "call"], {
      encoding: "utf8",
      env: { ...process.env, CACHE: "", COMMAND: "call" }
    })
    assert.strictEqual(result.status, 0, result.stderr)
    assert.strictEqual((JSON.parse(result.stdout) as { sum: number }).sum, 42)
    assert.throws(() => readdirSync(cache))
  })
})
