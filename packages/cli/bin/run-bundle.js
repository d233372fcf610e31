// Runs the bundled CLI (one CommonJS file) with a V8 code cache kept on disk.
//
// Node's own compile cache stores a module's code as V8 compiled it on loading: its top level
// only, since V8 compiles a function when it is first called. Each start then compiled the few
// thousand functions a command runs again. A script's code cache made after the command ran holds
// those too, so a later start skips their compiling. Node offers that for `vm.Script`, hence
// CommonJS: the bundle runs as a script with the cache of an earlier run.
//
// The cache file is named by the bundle's content (its SHA-256 and length), the Node version and
// the architecture. A bundle's first run writes it without data (the bundle is seen), the second
// writes V8's data. It holds the commands whose runs went into it (a command not among them
// writes the cache again when its run ends, with the code of both) and the SHA-256 of V8's data,
// checked before V8 sees it (node:crypto is loaded already; zlib's CRC-32 would cost its module).
// V8 rejects data of another V8 or other flags; the cache is then written anew. Nothing is cached
// in a directory another user could write to.
import { hash } from "node:crypto"
import { createRequire } from "node:module"
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import vm from "node:vm"

/** Names the format in a cache file's header (its first line, JSON, before V8's data). */
const MAGIC = "agent-tools code cache 2"
/**
 * Caches of other bundles (an earlier version, another Node) not written for this long are removed
 * when a cache is written: an upgrade leaves its old cache behind, and one still in use is only
 * written once more.
 */
const RETAIN_MS = 30 * 24 * 3600 * 1000

/** Runs `file` (a CommonJS bundle) for `command`; its code cache lives in `directory` (none when undefined). */
export const runBundle = (file, directory, command) => {
  const bytes = readFileSync(file)
  const source = bytes.toString("utf8")
  const cache = directory === undefined ? undefined : cacheFile(directory, bytes)
  const entry = cache === undefined ? undefined : read(cache)
  const data = entry !== undefined && entry.data.length > 0 ? entry.data : undefined
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData: data,
    // `import()` in the bundle (custom tools, web-tree-sitter, the terminal packages) is Node's
    // own, resolved from the bundle's file.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  if (cache !== undefined && entry === undefined) {
    // The bundle's first run only marks it seen (no data): making the cache takes 12-20 ms at exit,
    // which a run in a place that keeps nothing (a fresh container) would pay at every start.
    process.once("exit", () => write(cache, [], Buffer.alloc(0)))
  } else if (cache !== undefined) {
    const known = data !== undefined && !script.cachedDataRejected ? entry.commands : []
    if (!known.includes(command)) {
      process.once("exit", () => write(cache, [...known, command], script.createCachedData()))
    }
  }
  quietDynamicImport(file)
  const module = { exports: {} }
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file))
}

/** The cache's path for this bundle, or undefined when `directory` is not this user's alone. */
const cacheFile = (directory, bytes) => {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 })
    const stat = lstatSync(directory)
    // POSIX owners and modes (Windows reports neither; the user's own LOCALAPPDATA holds the cache there).
    const shared = process.platform !== "win32" && (stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0)
    if (!stat.isDirectory() || shared) return undefined
  } catch {
    return undefined
  }
  const digest = hash("sha256", bytes, "hex").slice(0, 16)
  return join(directory, `bin-${process.version}-${process.arch}-${digest}-${bytes.length}.cache`)
}

/** The cache's commands and V8 data, or undefined when missing, foreign or damaged. */
const read = (path) => {
  try {
    const stat = lstatSync(path)
    if (!stat.isFile() || (process.platform !== "win32" && stat.uid !== process.getuid?.())) return undefined
    const content = readFileSync(path)
    const end = content.indexOf(10)
    const header = JSON.parse(content.subarray(0, end).toString("utf8"))
    const data = content.subarray(end + 1)
    if (header.magic !== MAGIC || header.size !== data.length || header.sha256 !== hash("sha256", data, "hex")) return undefined
    if (!Array.isArray(header.commands) || !header.commands.every((c) => typeof c === "string")) return undefined
    return { commands: header.commands, data }
  } catch {
    return undefined
  }
}

/** Writes the cache whole or not at all (a temporary file renamed over it); a failure costs only the cache. */
const write = (path, commands, data) => {
  const temporary = `${path}.${process.pid}.tmp`
  try {
    const header = JSON.stringify({ magic: MAGIC, size: data.length, sha256: hash("sha256", data, "hex"), commands })
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${header}\n`), data]), { mode: 0o600, flag: "wx" })
    renameSync(temporary, path)
  } catch {
    rmSync(temporary, { force: true })
    return
  }
  removeOld(dirname(path), basename(path))
}

/** Removes the other caches in `directory` (and temporary files) last written more than RETAIN_MS ago; `kept` was just written. */
const removeOld = (directory, kept) => {
  const before = Date.now() - RETAIN_MS
  try {
    for (const name of readdirSync(directory)) {
      if (name === kept || !name.startsWith("bin-")) continue
      const file = join(directory, name)
      if (lstatSync(file).mtimeMs < before) rmSync(file, { force: true })
    }
  } catch {
    // Left for the next write.
  }
}

/**
 * Node marks its default loader for scripts experimental and says so on stderr at the first
 * `import()`, which a command's output must not carry. The warning is given once per process:
 * given here, with nothing printed, it is not given again.
 */
const quietDynamicImport = (file) => {
  const emitWarning = process.emitWarning
  process.emitWarning = () => {}
  try {
    new vm.Script("import('node:vm').catch(() => {})", {
      filename: file,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
    }).runInThisContext()
  } finally {
    process.emitWarning = emitWarning
  }
}
