/**
 * How a spill stored in a bucket is named to the model: `s3://<bucket>/<prefix><tool_id>`. The
 * reference is all another host needs to find the object, given a store on the same bucket and
 * prefix.
 */
import { SpillStorage } from "@agent-tools/core"

export interface Location {
  readonly bucket: string
  /** "" or a key prefix ending in "/". */
  readonly prefix: string
}

/** The key prefix as given, without a leading "/" and with a trailing one ("" stays ""). */
export const normalizePrefix = (prefix: string | undefined): string => {
  const trimmed = (prefix ?? "").replace(/^\/+/, "")
  return trimmed === "" || trimmed.endsWith("/") ? trimmed : `${trimmed}/`
}

/** The reference of the spill stored under `key`. */
export const reference = (location: Location, key: string): string => `s3://${location.bucket}/${key}`

/** The key of a spill `ref` names in this location, or undefined when it names no spill of it. */
export const keyOf = (location: Location, ref: string): string | undefined => {
  const base = `s3://${location.bucket}/${location.prefix}`
  if (!ref.startsWith(base)) return undefined
  const name = ref.slice(base.length)
  return SpillStorage.isSpillName(name) ? `${location.prefix}${name}` : undefined
}

/** Whether `key`, listed under the prefix, is a spill (not a user's object, not one in a deeper "folder"). */
export const isSpillKey = (location: Location, key: string): boolean =>
  key.startsWith(location.prefix) && SpillStorage.isSpillName(key.slice(location.prefix.length))
