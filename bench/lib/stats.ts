/** Small helpers shared by the benchmarks: medians and formatting. */
export const median = (samples: ReadonlyArray<number>): number => {
  const sorted = [...samples].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export const percentile = (samples: ReadonlyArray<number>, p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export const fmt = (n: number, digits = 2): string => n.toFixed(digits)

export const machine = (): string =>
  `Node ${process.version}, ${process.platform}/${process.arch}, ${new Date().toISOString().slice(0, 10)}`

/**
 * The machine's load while a measurement runs: the 1-minute load average at the start, and the
 * share of all CPU time that other processes took (busy jiffies of /proc/stat minus this process's
 * own and its waited-for children's, over the same interval). Linux only; elsewhere `NaN`.
 */
export const loadProbe = async () => {
  const { readFileSync } = await import("node:fs")
  const { loadavg } = await import("node:os")
  const read = () => {
    try {
      const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
      const total = cpu.reduce((a, b) => a + b, 0)
      const idle = cpu[3]! + (cpu[4] ?? 0)
      const self = readFileSync("/proc/self/stat", "utf8")
      const f = self.slice(self.lastIndexOf(")") + 2).split(" ").map(Number)
      // utime stime cutime cstime are fields 14–17 (indexes 11–14 after the command name)
      const own = f[11]! + f[12]! + f[13]! + f[14]!
      return { total, busy: total - idle, own }
    } catch {
      return undefined
    }
  }
  const start = read()
  const load = loadavg()[0]!
  return {
    load,
    /** The other processes' share of all CPUs since the probe was made (0–1). */
    othersShare: (): number => {
      const end = read()
      if (start === undefined || end === undefined) return Number.NaN
      const total = end.total - start.total
      return total <= 0 ? 0 : Math.max(0, (end.busy - start.busy) - (end.own - start.own)) / total
    }
  }
}

/** "load 2.31, others 35 % CPU" for one measurement. */
export const loadText = (probe: { readonly load: number }, share: number): string =>
  `load ${probe.load.toFixed(2)}, others ${Number.isNaN(share) ? "?" : (share * 100).toFixed(0)} % CPU`
