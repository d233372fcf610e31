/**
 * The README's commands work outside this checkout: an `npx` that starts our MCP server names a
 * published package of ours that has the bin, the install line names every package the README's
 * examples import, and pnpm is always run as the pinned `npx -y pnpm@VERSION`.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "../../..")
const readme = readFileSync(join(root, "README.md"), "utf8")

interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly bin?: Record<string, string>
}

const manifests: ReadonlyArray<Manifest> = readdirSync(join(root, "packages")).map((dir) =>
  JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest
)
const published = new Map(manifests.filter((m) => m.private !== true).map((m) => [m.name, m]))

/** Every `npx` argument list in the README's MCP configurations, without `npx` itself. */
const npxArgs = (): Array<Array<string>> => [
  ...[...readme.matchAll(/"command":\s*"npx",\s*"args":\s*(\[[^\]]*\])/g)].map((m) => JSON.parse(m[1]!) as Array<string>),
  ...[...readme.matchAll(/"command":\s*(\["npx"[^\]]*\])/g)].map((m) => (JSON.parse(m[1]!) as Array<string>).slice(1))
]

/** The package root of an import specifier (`@scope/name/sub` → `@scope/name`), or undefined for a relative or built-in one. */
const packageOf = (specifier: string) => {
  if (specifier.startsWith(".") || specifier.startsWith("node:")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

const importsOf = (source: string) =>
  [...source.matchAll(/^\s*import\s[^"']*["']([^"']+)["']/gm)].flatMap((m) => packageOf(m[1]!) ?? [])

describe("README", () => {
  it("starts our MCP server with npx through a published package that has the agent-tools bin", () => {
    const ours = npxArgs().filter((args) => args.includes("mcp"))
    expect(ours.length).toBeGreaterThanOrEqual(2)
    for (const args of ours) {
      expect(args[0], args.join(" ")).toBe("-y")
      const pkg = published.get(args[1]!)
      expect(pkg, `npx ${args.join(" ")}: ${args[1]} is not a published package of this repository`).toBeDefined()
      // npx runs a package's only bin.
      expect(Object.keys(pkg!.bin ?? {}), args[1]).toEqual(["agent-tools"])
    }
  })

  it("the install line names every package the README's examples import, and only published ones of ours", () => {
    const install = [...readme.matchAll(/^npm install ([^#\n]+)/gm)].flatMap((m) => m[1]!.trim().split(/\s+/))
    for (const name of install.filter((n) => n.startsWith("@agent-tools/"))) expect(published.has(name), name).toBe(true)
    const blocks = [...readme.matchAll(/```tsx?\n([\s\S]*?)```/g)].map((m) => m[1]!)
    // The composition example is shown from this file.
    expect(readme).toContain("[`examples/compose.ts`](examples/compose.ts)")
    const imported = new Set([...blocks, readFileSync(join(root, "examples/compose.ts"), "utf8")].flatMap(importsOf))
    expect(imported.size).toBeGreaterThan(3)
    for (const name of imported) expect(install, `the install line misses ${name}`).toContain(name)
  })

  it("runs the repository's pnpm commands only as the pinned npx -y pnpm@VERSION", () => {
    const scripts = Object.keys((JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: object }).scripts)
    const code = [...readme.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0])
    const pinned = /npx -y pnpm@\d+\.\d+\.\d+ /g
    // `pnpm <script>`, `pnpm install`, `pnpm run …` not behind the pinned invocation.
    const command = new RegExp(`\\bpnpm (${["install", "run", "pack", ...scripts].join("|")})\\b`)
    const bare = code.filter((c) => command.test(c.replace(pinned, "")))
    expect(bare).toEqual([])
    expect(code.some((c) => c.includes("npx -y pnpm@"))).toBe(true)
  })
})
