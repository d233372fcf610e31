/**
 * S3 spill stores on the tests' server: each with a prefix of its own, so that tests sharing one
 * server (and bucket) never see each other's spills.
 */
import { S3SpillStorage } from "../src/index.ts"
import type { Server } from "./S3Server.ts"

let stores = 0

/** A fresh prefix under `test/`. */
export const freshPrefix = (): string => `test/${process.pid}-${++stores}/`

export const options = (server: Server, extra: Partial<S3SpillStorage.Options> = {}): S3SpillStorage.Options => ({
  bucket: server.bucket,
  prefix: freshPrefix(),
  endpoint: server.endpoint,
  forcePathStyle: true,
  credentials: server.credentials,
  ...extra
})
