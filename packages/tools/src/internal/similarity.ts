/**
 * Line similarity for the block strategies: 1 − Levenshtein / longer length, on lines with their
 * whitespace collapsed. The distance is computed in a band and gives up once it exceeds what the
 * threshold allows, so a hopeless pair costs O(n·d), not O(n·m) (opencode allocates a full matrix
 * per pair).
 */

/** Levenshtein distance, or `max + 1` as soon as it must exceed `max`. */
export const boundedLevenshtein = (a: string, b: string, max: number): number => {
  if (a === b) return 0
  if (Math.abs(a.length - b.length) > max) return max + 1
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  let prev = new Array<number>(b.length + 1)
  let cur = new Array<number>(b.length + 1)
  for (let j = 0; j <= b.length; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i
    let rowMin = i
    const ca = a.charCodeAt(i - 1)
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost)
      cur[j] = v
      if (v < rowMin) rowMin = v
    }
    if (rowMin > max) return max + 1
    const t = prev
    prev = cur
    cur = t
  }
  return prev[b.length]!
}

/** Similarity in [0, 1]; anything below `floor` may be reported as a lower bound only. */
export const similarity = (a: string, b: string, floor = 0): number => {
  const longest = Math.max(a.length, b.length)
  if (longest === 0) return 1
  const max = Math.floor((1 - floor) * longest)
  return 1 - Math.min(boundedLevenshtein(a, b, max), longest) / longest
}

/** Bigram Dice coefficient: a cheap ranking for "the closest line" in not-found messages. */
export const dice = (a: string, b: string): number => {
  if (a === b) return 1
  if (a.length < 2 || b.length < 2) return 0
  const grams = new Map<string, number>()
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2)
    grams.set(g, (grams.get(g) ?? 0) + 1)
  }
  let hits = 0
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2)
    const n = grams.get(g) ?? 0
    if (n > 0) {
      hits++
      grams.set(g, n - 1)
    }
  }
  return (2 * hits) / (a.length + b.length - 2)
}
