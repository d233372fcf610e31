/**
 * `pnpm bench`: runs every `bench/*.bench.ts` (or those named on the command line) one after the
 * other, each in its own Node process with `--expose-gc`, so heap numbers are not polluted by the
 * previous benchmark. Each benchmark prints its own markdown table with ratios against a baseline
 * measured in the same process.
 */
import { spawnSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort()

if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(" ")}; available: ${readdirSync(here).filter((f) => f.endsWith(".bench.ts")).join(", ")}`)
  process.exit(2)
}

let failed = 0
for (const file of files) {
  console.log(`\n## ${file}\n`)
  const run = spawnSync(process.execPath, ["--conditions=agent-tools-source", "--expose-gc", join(here, file)], { stdio: "inherit" })
  if (run.status !== 0) {
    failed++
    console.error(`${file} exited with ${run.status ?? run.signal}`)
  }
}
process.exit(failed === 0 ? 0 : 1)
