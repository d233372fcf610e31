// @agent-tools/spill-s3 as a plain ES module: the AWS SDK loads from the installed packages and the
// store builds (no request is made: only the reference of a spill is checked).
import { Effect } from "effect"
import { SpillStorage } from "@agent-tools/core"
import { S3SpillStorage } from "@agent-tools/spill-s3"

const owns = await Effect.runPromise(
  SpillStorage.SpillStorage.use((spill) => Effect.succeed(spill.owns("s3://bucket/spill/tool_0123456789abcdef_AbCdEfGhIj"))).pipe(
    Effect.provide(S3SpillStorage.layer({ bucket: "bucket", prefix: "spill", endpoint: "http://127.0.0.1:9", credentials: { accessKeyId: "x", secretAccessKey: "x" } }))
  )
)
console.log(`spill-s3: owns its reference: ${owns}`)
if (!owns) process.exit(1)
