/**
 * Two agent processes, one file: both read it, then both edit it at once. Their writes are
 * serialised by the lock file beside it, and the second edit, made on a file the first changed
 * since its read, is re-based when the two touch different lines; on the same line it is refused
 * as stale. Either way no edit is lost.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

const repo = fileURLToPath(new URL("../../../..", import.meta.url))
const NODE = join(repo, "node_modules/.bin/node")
const EDITOR = fileURLToPath(new URL("./fixtures/editor.ts", import.meta.url))

const base = realpathSync(mkdtempSync(join(tmpdir(), "cross-edit-")))
afterAll(() => rmSync(base, { recursive: true, force: true }))

interface Outcome {
  readonly ok: boolean
  readonly output?: string
  readonly error?: string
}

/** Starts an editor process; `read` resolves once it has read the file, `go` lets it edit. */
const editor = (root: string, oldString: string, newString: string) => {
  const child = spawn(NODE, ["--conditions=agent-tools-source", EDITOR, root, "f.txt", oldString, newString], {
    stdio: ["pipe", "pipe", "pipe"]
  })
  let out = ""
  let err = ""
  child.stderr.on("data", (d: Buffer) => (err += d.toString()))
  const read = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString()
      if (out.startsWith("read\n")) resolve()
    })
    child.on("exit", () => reject(new Error(`the editor ended before reading: ${err}`)))
  })
  const done = new Promise<Outcome>((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.slice("read\n".length)) as Outcome) : reject(new Error(`exit ${code}: ${err}`))
    )
  )
  return { read, go: () => child.stdin.end("go\n"), done }
}

const race = (name: string, edits: ReadonlyArray<readonly [string, string]>) =>
  Effect.promise(async () => {
    const root = join(base, name)
    const { mkdirSync } = await import("node:fs")
    mkdirSync(root)
    writeFileSync(join(root, "f.txt"), "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n")
    const editors = edits.map(([o, n]) => editor(root, o, n))
    await Promise.all(editors.map((e) => e.read))
    for (const e of editors) e.go()
    const outcomes = await Promise.all(editors.map((e) => e.done))
    return { outcomes, text: readFileSync(join(root, "f.txt"), "utf8"), entries: readdirSync(root) }
  })

describe("two processes edit one file", () => {
  it.live("edits of different lines both land: the later one is re-based over the earlier", () =>
    Effect.gen(function*() {
      const { outcomes, text, entries } = yield* race("apart", [["a = 1", "a = 10"], ["e = 5", "e = 50"]])
      assert.deepStrictEqual(outcomes.map((o) => o.ok), [true, true], JSON.stringify(outcomes))
      assert.strictEqual(text, "a = 10\nb = 2\nc = 3\nd = 4\ne = 50\n")
      assert.strictEqual(outcomes.filter((o) => o.output!.includes("the edit was re-based over that change")).length, 1)
      // The lock file is gone, and nothing else was left behind.
      assert.deepStrictEqual(entries, ["f.txt"])
    }), 60_000)

  it.live("edits of the same line: one lands, the other is refused as stale, none is lost silently", () =>
    Effect.gen(function*() {
      const { outcomes, text } = yield* race("same", [["b = 2", "b = 20"], ["b = 2", "b = 30"]])
      const landed = outcomes.filter((o) => o.ok)
      assert.strictEqual(landed.length, 1, JSON.stringify(outcomes))
      assert.include(outcomes.find((o) => !o.ok)!.error, "has been modified since it was last read")
      assert.oneOf(text, ["a = 1\nb = 20\nc = 3\nd = 4\ne = 5\n", "a = 1\nb = 30\nc = 3\nd = 4\ne = 5\n"])
    }), 60_000)
})
