// Every test file runs with its own empty user config directory (XDG_CONFIG_HOME, APPDATA on
// Windows): the user's config and trusted workspaces are read from there, and a test must never
// read or change the real user's. Removed when the file's tests end.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "agent-tools-config-"))
process.env.XDG_CONFIG_HOME = dir
process.env.APPDATA = dir

afterAll(() => rmSync(dir, { recursive: true, force: true }))
