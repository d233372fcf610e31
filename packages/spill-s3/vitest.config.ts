import { defineProject } from "vitest/config"
import { project } from "../../vitest.project.ts"

// Without the shared "module" condition: the AWS SDK's packages map it to bundler-only ES builds
// (import specifiers without extensions) that Node cannot load; "node" picks their CommonJS builds.
const conditions = ["agent-tools-source", "node", "development|production"]
const base = project("spill-s3")

export default defineProject({
  ...base,
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["agent-tools-source"] } }
})
