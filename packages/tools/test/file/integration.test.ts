/**
 * The file tools on a real disk (temp directories): 200 concurrent edits with no lost update,
 * large files edited in turn on reused read buffers, symlink escapes refused for every tool,
 * atomic replacement keeping mode, hard links and symlinks, and no temp file left behind.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer } from "effect"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { allowAll, call, callError, callPatch, node } from "./harness.ts"

const Platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** A fresh workspace `ws` and a sibling `out` directory, as real paths. */
const dirs = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const base = yield* fs.realPath(yield* fs.makeTempDirectoryScoped({ prefix: "agent-tools-files-" }))
  yield* fs.makeDirectory(`${base}/ws`)
  yield* fs.makeDirectory(`${base}/out`)
  return { ws: `${base}/ws`, out: `${base}/out` }
})

describe("concurrency", () => {
  it.effect("200 concurrent edits to one file through the registry: every one applied", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { ws } = yield* dirs
      const ids = Array.from({ length: 200 }, (_, i) => String(i).padStart(3, "0"))
      yield* fs.writeFileString(`${ws}/c.txt`, ids.map((id) => `line ${id}`).join("\n") + "\n")
      yield* Effect.gen(function*() {
        yield* call("read", { filePath: "c.txt" })
        yield* Effect.forEach(ids, (id) => call("edit", { filePath: "c.txt", oldString: `line ${id}`, newString: `LINE ${id}!` }), {
          concurrency: "unbounded",
          discard: true
        })
      }).pipe(Effect.provide(node({ root: ws })))
      assert.strictEqual(yield* fs.readFileString(`${ws}/c.txt`), ids.map((id) => `LINE ${id}!`).join("\n") + "\n")
      assert.deepStrictEqual(yield* fs.readDirectory(ws), ["c.txt"]) // no temp left behind
    }).pipe(Effect.provide(Platform)), { timeout: 60_000 })
})

describe("large files edited in turn", () => {
  it.effect("every edit is on disk as made, and a change behind the tool's back is still refused", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { ws } = yield* dirs
      // Large enough for the transaction to reuse its read buffers, of different sizes.
      const make = (name: string, lines: number) =>
        Array.from({ length: lines }, (_, i) => `${name} line ${String(i).padStart(6, "0")} value ${i % 7}`).join("\n") + "\n"
      const files: Record<string, string> = { "a.txt": make("a", 3000), "b.txt": make("b", 3000), "c.txt": make("c", 9000) }
      for (const [name, text] of Object.entries(files)) yield* fs.writeFileString(`${ws}/${name}`, text)
      yield* Effect.gen(function*() {
        for (const name of Object.keys(files)) yield* call("read", { filePath: name, limit: 1 })
        for (let round = 0; round < 12; round++) {
          for (const name of round % 3 === 2 ? ["c.txt", "a.txt"] : ["a.txt", "b.txt"]) {
            const line = `${name[0]} line ${String(round * 97).padStart(6, "0")} value`
            // Growing, then shrinking the file: the reused buffer is longer than the file read into it.
            const replacement = round % 2 === 0 ? `${line} (edited in round ${round}, longer)` : line.slice(0, -6)
            yield* call("edit", { filePath: name, oldString: line, newString: replacement })
            files[name] = files[name]!.replace(line, replacement)
            assert.strictEqual(yield* fs.readFileString(`${ws}/${name}`), files[name], `${name} after round ${round}`)
          }
        }
        // Same size, different bytes, written by someone else.
        yield* fs.writeFileString(`${ws}/a.txt`, files["a.txt"]!.replace("a line 000001", "a line 000009"))
        const error = yield* callError("edit", { filePath: "a.txt", oldString: "a line 000002", newString: "x" })
        assert.isTrue(error.startsWith(`File ${ws}/a.txt has been modified since it was last read: same size`), error)
        yield* call("edit", { filePath: "b.txt", oldString: "b line 000002 value", newString: "b two" })
        assert.strictEqual(yield* fs.readFileString(`${ws}/b.txt`), files["b.txt"]!.replace("b line 000002 value", "b two"))
      }).pipe(Effect.provide(node({ root: ws })))
    }).pipe(Effect.provide(Platform)), { timeout: 60_000 })
})

describe("symlink escapes", () => {
  const denyOutside = [...allowAll, { permission: "external_directory", pattern: "*", action: "deny" as const }]

  it.effect("every file tool refuses a path that leaves the workspace through a symlink, and writes nothing", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { ws, out } = yield* dirs
      yield* fs.writeFileString(`${out}/secret.txt`, "secret\n")
      yield* fs.symlink(out, `${ws}/outbox`)
      yield* fs.symlink(`${out}/secret.txt`, `${ws}/secret-link.txt`)
      yield* fs.writeFileString(`${ws}/ok.txt`, "ok\n")
      yield* Effect.gen(function*() {
        for (const [tool, args] of [
          ["read", { filePath: "outbox/secret.txt" }],
          ["read", { filePath: "secret-link.txt" }],
          ["write", { filePath: "outbox/new.txt", content: "x" }],
          ["edit", { filePath: "secret-link.txt", oldString: "secret", newString: "leaked" }],
          ["edit", { filePath: "outbox/created.txt", oldString: "", newString: "x" }],
          ["multiedit", { filePath: "sub/../../out/secret.txt", edits: [{ oldString: "secret", newString: "x" }] }],
          ["apply_patch", { patchText: "*** Begin Patch\n*** Add File: ok2.txt\n+fine\n*** Add File: outbox/p.txt\n+x\n*** End Patch" }],
          ["apply_patch", { patchText: "*** Begin Patch\n*** Update File: ok.txt\n*** Move to: outbox/moved.txt\n@@\n-ok\n+ok!\n*** End Patch" }]
        ] as const) {
          const error = yield* callError(tool, args)
          assert.include(error, "external_directory", `${tool} ${JSON.stringify(args)}`)
        }
      }).pipe(Effect.provide(node({ root: ws, rules: denyOutside })))
      assert.deepStrictEqual((yield* fs.readDirectory(out)).sort(), ["secret.txt"])
      assert.strictEqual(yield* fs.readFileString(`${out}/secret.txt`), "secret\n")
      assert.deepStrictEqual((yield* fs.readDirectory(ws)).sort(), ["ok.txt", "outbox", "secret-link.txt"])
      assert.strictEqual(yield* fs.readFileString(`${ws}/ok.txt`), "ok\n")
    }).pipe(Effect.provide(Platform)))

  it.effect("a symlink inside to a file inside is edited through: the target changes, the link stays a link", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { ws } = yield* dirs
      yield* fs.makeDirectory(`${ws}/real`)
      yield* fs.writeFileString(`${ws}/real/a.txt`, "one\n")
      yield* fs.symlink(`${ws}/real/a.txt`, `${ws}/alias.txt`)
      yield* Effect.gen(function*() {
        yield* call("read", { filePath: "alias.txt" })
        yield* call("edit", { filePath: "alias.txt", oldString: "one", newString: "two" })
        yield* call("edit", { filePath: "real/a.txt", oldString: "two", newString: "three" }) // same file, same stamp
      }).pipe(Effect.provide(node({ root: ws, rules: [...allowAll, { permission: "external_directory", pattern: "*", action: "deny" }] })))
      assert.strictEqual(yield* fs.readFileString(`${ws}/real/a.txt`), "three\n")
      assert.strictEqual((yield* fs.lstat(`${ws}/alias.txt`)).type, "SymbolicLink")
    }).pipe(Effect.provide(Platform)))
})

describe("atomic replacement", () => {
  it.effect("keeps the mode and hard links, leaves no temp file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const { ws } = yield* dirs
      yield* fs.writeFileString(`${ws}/run.sh`, "echo one\n")
      yield* fs.chmod(`${ws}/run.sh`, 0o750)
      // Bits a usual umask (022) clears when a file is created: set again after the write.
      yield* fs.writeFileString(`${ws}/shared.txt`, "one\n")
      yield* fs.chmod(`${ws}/shared.txt`, 0o666)
      yield* fs.writeFileString(`${ws}/a.txt`, "shared\n")
      yield* fs.link(`${ws}/a.txt`, `${ws}/b.txt`)
      yield* Effect.gen(function*() {
        yield* call("read", { filePath: "run.sh" })
        yield* call("edit", { filePath: "run.sh", oldString: "one", newString: "two" })
        yield* call("read", { filePath: "a.txt" })
        yield* call("write", { filePath: "a.txt", content: "changed\n" })
        yield* callPatch({ patchText: "*** Begin Patch\n*** Update File: run.sh\n@@\n-echo two\n+echo three\n*** End Patch" })
        yield* call("read", { filePath: "shared.txt" })
        yield* call("edit", { filePath: "shared.txt", oldString: "one", newString: "two" })
      }).pipe(Effect.provide(node({ root: ws })))
      assert.strictEqual((yield* fs.stat(`${ws}/run.sh`)).mode & 0o777, 0o750)
      assert.strictEqual((yield* fs.stat(`${ws}/shared.txt`)).mode & 0o777, 0o666)
      assert.strictEqual(yield* fs.readFileString(`${ws}/run.sh`), "echo three\n")
      assert.strictEqual(yield* fs.readFileString(`${ws}/b.txt`), "changed\n")
      assert.deepStrictEqual((yield* fs.readDirectory(ws)).sort(), ["a.txt", "b.txt", "run.sh", "shared.txt"])
    }).pipe(Effect.provide(Platform)))
})
