/**
 * What the file and memory spill stores share but do not export: the error builder and the
 * settings with their defaults applied.
 */
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_RETENTION_DAYS, type Options, SpillError } from "./SpillStorage.ts"

const DAY_MS = 24 * 60 * 60 * 1000

export const spillError = (message: string) => (cause: unknown) => new SpillError({ message: `${message}: ${String(cause)}`, cause })

export const settings = (options: Options) => {
  const maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES
  return {
    retentionMs: (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS,
    maxBytes: Math.min(options.maxBytes ?? DEFAULT_MAX_BYTES, maxTotalBytes),
    maxTotalBytes
  }
}
