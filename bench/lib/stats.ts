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

export { loadProbe, loadText } from "./load.ts"
