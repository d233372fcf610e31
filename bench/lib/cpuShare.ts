/**
 * How much of the machine other processes used while a benchmark ran: busy time of all CPUs from
 * /proc/stat, minus this process's own CPU time, over the capacity of all CPUs. Linux only; on
 * other systems the share is unknown.
 */
import { readFileSync } from "node:fs"
import { cpus } from "node:os"

// /proc/stat counts in USER_HZ ticks, 100 a second on Linux.
const TICK_MS = 10

interface Sample {
  readonly busyMs: number
  readonly totalMs: number
  readonly ownMs: number
}

const sample = (): Sample | undefined => {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0)
    const idle = fields[3]! + fields[4]!
    const own = process.cpuUsage()
    return { busyMs: (total - idle) * TICK_MS, totalMs: total * TICK_MS, ownMs: (own.user + own.system) / 1000 }
  } catch {
    return undefined
  }
}

/** Starts measuring; the returned function gives the share (0–1) of all CPUs other processes took since. */
export const otherCpuShare = (): (() => number | undefined) => {
  const start = sample()
  return () => {
    const end = sample()
    if (start === undefined || end === undefined || end.totalMs === start.totalMs) return undefined
    const others = end.busyMs - start.busyMs - (end.ownMs - start.ownMs)
    return Math.max(0, others) / (end.totalMs - start.totalMs)
  }
}

/** "others used 73 % of 2 CPUs", or that it is unknown. */
export const describeShare = (share: number | undefined): string =>
  share === undefined ? "other processes' CPU share unknown" : `other processes used ${(share * 100).toFixed(0)} % of ${cpus().length} CPUs`
