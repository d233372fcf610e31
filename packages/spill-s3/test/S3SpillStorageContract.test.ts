import { afterAll, beforeAll, describe, it } from "@effect/vitest"
import { SpillStorageContract } from "@agent-tools/testing"
import { S3SpillStorage } from "../src/index.ts"
import * as S3Server from "./S3Server.ts"
import * as S3Stores from "./S3Stores.ts"

let running: Awaited<ReturnType<typeof S3Server.launch>>
beforeAll(async () => {
  running = await S3Server.launch()
})
afterAll(() => running.stop())

describe("SpillStorage contract: S3 (s3rver)", () => {
  const make: SpillStorageContract.Make = (options) => S3SpillStorage.layer({ ...S3Stores.options(running.server), ...options })
  for (const c of SpillStorageContract.cases(make)) it.effect(c.name, () => c.run)
})
