/** Byte counts as the tools' messages and descriptions show them. */

/** `10485760` → `"10 MB"`. */
export const megabytes = (bytes: number): string => `${bytes / 1024 / 1024} MB`

/** `51200` → `"50 KB"`. */
export const kilobytes = (bytes: number): string => `${bytes / 1024} KB`
