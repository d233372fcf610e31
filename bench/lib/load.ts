/**
 * How busy the machine was during a run: the load average, and the share of all CPUs' time that
 * other processes used (the machine's busy time from /proc/stat minus this process's and its
 * waited-for children's CPU time from /proc/self/stat). Linux only; elsewhere the share is unknown.
 */
import { readFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"

interface Sample {
  /** Busy and total jiffies of all CPUs. */
  readonly busy: number
  readonly total: number
  /** utime + stime + cutime + cstime of this process, in jiffies. */
  readonly own: number
}

const sample = (): Sample | undefined => {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
    const total = cpu.reduce((a, b) => a + b, 0)
    const idle = cpu[3]! + (cpu[4] ?? 0) // idle + iowait
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const stat = readFileSync("/proc/self/stat", "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number)
    // utime, stime, cutime, cstime are fields 14-17, i.e. 11-14 after the command name.
    const own = fields[11]! + fields[12]! + fields[13]! + fields[14]!
    return { busy: total - idle, total, own }
  } catch {
    return undefined
  }
}

export const loadAverage = (): string => loadavg().map((l) => l.toFixed(2)).join(" ")

/** Starts measuring; `stop()` gives the share of all CPUs' time other processes took meanwhile. */
export const otherCpuShare = (): { readonly stop: () => number | undefined } => {
  const start = sample()
  return {
    stop: () => {
      const end = sample()
      if (start === undefined || end === undefined || end.total === start.total) return undefined
      const others = (end.busy - start.busy) - (end.own - start.own)
      return Math.max(0, others) / (end.total - start.total)
    }
  }
}

export const cpuCount = (): number => cpus().length

/** "other processes used 73 % of 2 CPUs", or that it is unknown. */
export const describeShare = (share: number | undefined): string =>
  share === undefined ? "other processes' CPU share unknown" : `other processes used ${(share * 100).toFixed(0)} % of ${cpuCount()} CPUs`

/**
 * The load while one measurement runs: the 1-minute load average at its start, and the share of
 * all CPUs' time other processes took since (`NaN` where unknown).
 */
export const loadProbe = () => {
  const share = otherCpuShare()
  return {
    load: loadavg()[0]!,
    othersShare: (): number => share.stop() ?? Number.NaN
  }
}

/** "load 2.31, others 35 % CPU" for one measurement. */
export const loadText = (probe: { readonly load: number }, share: number): string =>
  `load ${probe.load.toFixed(2)}, others ${Number.isNaN(share) ? "?" : (share * 100).toFixed(0)} % CPU`
