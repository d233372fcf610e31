// The settings every package's test project shares. The tests run on the TypeScript sources: the
// "agent-tools-source" export condition of the workspace packages maps them to src/*.ts instead of the built
// dist/*.js, for Vite's resolver and for Node itself (worker processes, worker threads). The name is
// the project's own: some dependencies publish a plain "source" condition pointing at TypeScript.
import { fileURLToPath } from "node:url"
import { defineProject } from "vitest/config"

const conditions = ["agent-tools-source", "module", "node", "development|production"]

export const project = (name: string) =>
  defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ["agent-tools-source"] } },
    test: {
      name,
      include: ["test/**/*.test.ts"],
      testTimeout: 30_000,
      execArgv: ["--conditions=agent-tools-source"],
      setupFiles: [fileURLToPath(new URL("./vitest.setup.ts", import.meta.url))]
    }
  })
