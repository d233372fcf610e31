/**
 * Custom tools written as the README shows (ES modules, TypeScript or JavaScript) load in a project
 * whose package.json says `"type": "commonjs"` (what `npm init -y` writes): a real CLI process,
 * since the loader's format hooks act on Node's own module loading.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { spawnCli, workspace } from "./harness.ts"

const zodUrl = import.meta.resolve("zod")

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, any>) =>
  it.live(name, () => body().pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>, 120_000)

describe("custom tools in a CommonJS project", () => {
  live("a TypeScript tool with a relative import, and a JavaScript tool, load as ES modules", () =>
    Effect.gen(function*() {
      const ws = yield* workspace({
        files: {
          "package.json": JSON.stringify({ name: "project", version: "1.0.0", type: "commonjs" }),
          ".agent/tools/greet.ts": `import { z } from ${JSON.stringify(zodUrl)}
import { shout } from "./lib/shout.ts"
export default {
  description: "Greets someone",
  args: { name: z.string() },
  execute: async (args: { name: string }, ctx: { directory: string }) => shout(\`hello \${args.name}\`)
}
`,
          ".agent/tools/lib/shout.ts": "export const shout = (text: string): string => text.toUpperCase()\n"
        }
      })
      const greet = yield* spawnCli(["call", "greet", `{"name":"ada"}`, "--cwd", ws.dir])
      assert.deepStrictEqual([greet.code, greet.stdout], [0, "HELLO ADA\n"], greet.stderr)
      // The harness's JavaScript tools, in the same CommonJS project.
      const echo = yield* spawnCli(["call", "echo", `{"text":"hi"}`, "--cwd", ws.dir])
      assert.deepStrictEqual([echo.code, echo.stdout], [0, "hi\n"], echo.stderr)
    }))
})
