/**
 * SDK failures as SpillErrors: a missing object is the stores' common `missing` error, anything
 * else names the operation, the bucket and what the server said.
 */
import { SpillStorage } from "@agent-tools/core"

interface SdkFailure {
  readonly name?: string
  readonly message?: string
  readonly $metadata?: { readonly httpStatusCode?: number }
}

const asFailure = (cause: unknown): SdkFailure => (typeof cause === "object" && cause !== null ? cause as SdkFailure : {})

/** Whether the server said there is no such object. */
export const isMissing = (cause: unknown): boolean => {
  const e = asFailure(cause)
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404 && e.name !== "NoSuchBucket"
}

/** Whether a ranged read started at or past the end (an empty object). */
export const isRangeNotSatisfiable = (cause: unknown): boolean => {
  const e = asFailure(cause)
  return e.name === "InvalidRange" || e.$metadata?.httpStatusCode === 416
}

/** `what` (e.g. "cannot read s3://b/k") failed: the error with the server's words. */
export const failed = (what: string) => (cause: unknown): SpillStorage.SpillError => {
  const e = asFailure(cause)
  const said = e.name !== undefined && e.message !== undefined && e.message !== "" && e.message !== e.name
    ? `${e.name}: ${e.message}`
    : e.name ?? String(cause)
  return new SpillStorage.SpillError({ message: `${what}: ${said}`, cause })
}
