import { defineProject } from "vitest/config"

export default defineProject({ test: { name: "ai-sdk", include: ["test/**/*.test.ts"], testTimeout: 30_000 } })
