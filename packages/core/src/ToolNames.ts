/**
 * Tool names every provider accepts: `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`, the
 * intersection of OpenAI's, Anthropic's and Gemini's rules. A registry id that already fits is kept
 * as is; any other id is sanitized, and a hash of the id is appended when it had to be shortened or
 * would collide, so two ids never share a name and the mapping back to the id is exact.
 */

export const MAX_LENGTH = 64
export const PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/

export const isValid = (name: string): boolean => PATTERN.test(name)

/** FNV-1a, 8 hex digits: stable across runs and platforms, enough to tell ids apart. */
export const hash8 = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, "0")
}

const sanitize = (id: string): string => {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_")
  return cleaned === "" ? "_" : /^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`
}

const withHash = (base: string, id: string): string => `${base.slice(0, MAX_LENGTH - 9)}_${hash8(id)}`

export interface Names {
  /** registry id → exposed name */
  readonly toName: ReadonlyMap<string, string>
  /** exposed name → registry id */
  readonly toId: ReadonlyMap<string, string>
}

/** Assigns a provider-safe, unique name to each id; the same ids always get the same names. */
export const assign = (ids: ReadonlyArray<string>): Names => {
  const toName = new Map<string, string>()
  const toId = new Map<string, string>()
  // Valid ids first: they keep their names, and a sanitized id never takes one of them.
  for (const id of ids) {
    if (isValid(id)) {
      toName.set(id, id)
      toId.set(id, id)
    }
  }
  for (const id of ids) {
    if (toName.has(id)) continue
    const base = sanitize(id)
    const name = base.length <= MAX_LENGTH && !toId.has(base) ? base : withHash(base, id)
    toName.set(id, name)
    toId.set(name, id)
  }
  return { toName, toId }
}
