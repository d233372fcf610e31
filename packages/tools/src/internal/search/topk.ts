/**
 * Bounded "best K" selection over a stream, so glob/grep/list can rank the WHOLE tree (newest
 * first, shallowest first) while holding only K items, whatever the tree's size.
 */

/** `compare(a, b) < 0` when `a` ranks before `b`. */
export type Compare<A> = (a: A, b: A) => number

/**
 * Keeps the `k` best items offered so far in a binary heap whose root is the worst kept item:
 * O(log k) per offer, O(k) memory.
 */
export class TopK<A> {
  readonly k: number
  readonly compare: Compare<A>
  private readonly heap: Array<A> = []
  /** How many items were offered in total. */
  offered = 0

  constructor(k: number, compare: Compare<A>) {
    this.k = k
    this.compare = compare
  }

  get size(): number {
    return this.heap.length
  }

  /** Adds `item` if it ranks among the best `k`; returns whether it was kept. */
  offer(item: A): boolean {
    this.offered++
    const heap = this.heap
    if (heap.length < this.k) {
      heap.push(item)
      this.up(heap.length - 1)
      return true
    }
    if (this.k === 0 || this.compare(item, heap[0]!) >= 0) return false
    heap[0] = item
    this.down(0)
    return true
  }

  /** The kept items, best first. */
  sorted(): Array<A> {
    return [...this.heap].sort(this.compare)
  }

  // The heap is ordered "worst on top": a parent ranks after (or equal to) its children.
  private up(i: number) {
    const heap = this.heap
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (this.compare(heap[i]!, heap[parent]!) <= 0) return
      ;[heap[i], heap[parent]] = [heap[parent]!, heap[i]!]
      i = parent
    }
  }

  private down(i: number) {
    const heap = this.heap
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let worst = i
      if (l < heap.length && this.compare(heap[l]!, heap[worst]!) > 0) worst = l
      if (r < heap.length && this.compare(heap[r]!, heap[worst]!) > 0) worst = r
      if (worst === i) return
      ;[heap[i], heap[worst]] = [heap[worst]!, heap[i]!]
      i = worst
    }
  }
}

/** Newest first; equal times by path, so the order does not depend on rg's thread scheduling. */
export const newestFirst = <A extends { readonly mtime: number; readonly path: string }>(a: A, b: A): number =>
  b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

export interface FileCount {
  readonly path: string
  readonly mtime: number
  /** Matches in this file. */
  readonly count: number
}

/**
 * Which files the first `budget` matches come from, in "newest file first" order, over files
 * that arrive in any order. Only files that can still contribute are kept — the shortest
 * newest-first prefix holding `budget` matches — so memory stays O(budget) however many files
 * match; `total` and `files` count everything.
 */
export class NewestFiles {
  readonly budget: number
  private kept: Array<FileCount> = []
  total = 0
  files = 0

  constructor(budget: number) {
    this.budget = budget
  }

  add(file: FileCount): void {
    this.total += file.count
    this.files++
    const kept = this.kept
    let lo = 0
    let hi = kept.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (newestFirst(kept[mid]!, file) <= 0) lo = mid + 1
      else hi = mid
    }
    if (lo >= this.budget) return
    kept.splice(lo, 0, file)
    let sum = 0
    for (let i = 0; i < kept.length; i++) {
      sum += kept[i]!.count
      if (sum >= this.budget) {
        kept.length = i + 1
        break
      }
    }
  }

  /** The files shown, newest first, each with how many of its matches to show (`take`). */
  shown(): Array<FileCount & { readonly take: number }> {
    const out: Array<FileCount & { readonly take: number }> = []
    let left = this.budget
    for (const file of this.kept) {
      if (left <= 0) break
      const take = Math.min(file.count, left)
      left -= take
      out.push({ ...file, take })
    }
    return out
  }
}
