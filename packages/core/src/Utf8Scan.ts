/**
 * Counting over large outputs with WebAssembly SIMD: newlines in bytes, and the newlines and
 * UTF-8 size of UTF-16 text. A JS loop or a `Buffer#indexOf` per newline costs one call per line
 * (tens of millions for a few GiB of short lines); these loops look at 16 bytes a step.
 *
 * The module is assembled here from named instructions (no build step, no binary blob), both on
 * first use (not when this file is imported); `scanner()` is undefined where the runtime has no WebAssembly SIMD,
 * and callers keep their plain loops.
 *
 * Memory: page 0 holds results, pages 1.. a data area of `DATA_BYTES` that callers fill (read a
 * file into it, or copy UTF-16 units into it) before calling a count.
 */

/** Where the data area starts and how big it is. */
const DATA_OFFSET = 65536
export const DATA_BYTES = 2 * 1024 * 1024
const PAGES = (DATA_OFFSET + DATA_BYTES) / 65536

// ---- a minimal assembler: opcodes by name, LEB128 immediates -------------------------------

const u32 = (n: number): Array<number> => {
  const out: Array<number> = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n !== 0) b |= 0x80
    out.push(b)
  } while (n !== 0)
  return out
}

const s32 = (n: number): Array<number> => {
  const out: Array<number> = []
  while (true) {
    const b = n & 0x7f
    n >>= 7
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b)
      return out
    }
    out.push(b | 0x80)
  }
}

const I32 = 0x7f
const V128 = 0x7b
const VOID = 0x40

const op = {
  block: [0x02, VOID],
  loop: [0x03, VOID],
  if: [0x04, VOID],
  end: [0x0b],
  br: (depth: number) => [0x0c, ...u32(depth)],
  brIf: (depth: number) => [0x0d, ...u32(depth)],
  select: [0x1b],
  get: (i: number) => [0x20, ...u32(i)],
  set: (i: number) => [0x21, ...u32(i)],
  tee: (i: number) => [0x22, ...u32(i)],
  load8u: [0x2d, 0, 0],
  else: [0x05],
  load16u: [0x2f, 1, 0],
  store: (offset: number) => [0x36, 2, ...u32(offset)],
  store8: (offset: number) => [0x3a, 0, ...u32(offset)],
  const: (n: number) => [0x41, ...s32(n)],
  eqz: [0x45],
  eq: [0x46],
  ltU: [0x49],
  gtU: [0x4b],
  geU: [0x4f],
  add: [0x6a],
  sub: [0x6b],
  and: [0x71],
  or: [0x72],
  shl: [0x74],
  shrU: [0x76],
  // SIMD: 0xfd and the instruction's number in LEB128.
  v128Load: [0xfd, ...u32(0x00), 0, 0],
  v128LoadAt: (offset: number) => [0xfd, ...u32(0x00), 0, ...u32(offset)],
  v128Store: [0xfd, ...u32(0x0b), 0, 0],
  i8x16Splat: [0xfd, ...u32(0x0f)],
  i16x8Splat: [0xfd, ...u32(0x10)],
  i32x4Lane: (lane: number) => [0xfd, ...u32(0x1b), lane],
  i8x16Eq: [0xfd, ...u32(0x23)],
  i16x8Eq: [0xfd, ...u32(0x2d)],
  i16x8GtU: [0xfd, ...u32(0x32)],
  v128And: [0xfd, ...u32(0x4e)],
  v128Or: [0xfd, ...u32(0x50)],
  v128AnyTrue: [0xfd, ...u32(0x53)],
  i8x16NarrowU: [0xfd, ...u32(0x66)],
  i8x16Sub: [0xfd, ...u32(0x71)],
  i16x8PairsU8: [0xfd, ...u32(0x7d)],
  i32x4PairsU16: [0xfd, ...u32(0x7f)],
  i16x8Sub: [0xfd, ...u32(0x91)]
} as const

const section = (id: number, body: ReadonlyArray<number>) => [id, ...u32(body.length), ...body]
const vec = (items: ReadonlyArray<ReadonlyArray<number>>) => [...u32(items.length), ...items.flat()]

/** The four i32 lanes of the v128 in local `v`, summed, added to local `total`. */
const addLanes = (v: number, total: number) => [
  ...op.get(v),
  ...op.i32x4Lane(0),
  ...op.get(v),
  ...op.i32x4Lane(1),
  ...op.add,
  ...op.get(v),
  ...op.i32x4Lane(2),
  ...op.add,
  ...op.get(v),
  ...op.i32x4Lane(3),
  ...op.add,
  ...op.get(total),
  ...op.add,
  ...op.set(total)
]

/**
 * `newlines(ptr, len) -> count`: bytes equal to 10. Rounds of up to 255 vectors add 1 per match
 * into 16 byte lanes, which are then widened and summed; the last < 16 bytes one by one.
 */
const newlinesBody = (): Array<number> => {
  // params 0 ptr, 1 len; locals 2 end, 3 total, 4 vend, 5 n (i32); 6 acc, 7 nl (v128)
  const [ptr, len, end, total, vend, n, acc, nl] = [0, 1, 2, 3, 4, 5, 6, 7]
  const code = [
    ...op.get(ptr), ...op.get(len), ...op.add, ...op.set(end),
    ...op.const(10), ...op.i8x16Splat, ...op.set(nl),
    ...op.block,
    ...op.loop,
    ...op.get(end), ...op.get(ptr), ...op.sub, ...op.const(16), ...op.ltU, ...op.brIf(1),
    // n = min(vectors left, 255); vend = ptr + n * 16
    ...op.get(end), ...op.get(ptr), ...op.sub, ...op.const(4), ...op.shrU, ...op.set(n),
    ...op.get(n), ...op.const(255), ...op.get(n), ...op.const(255), ...op.ltU, ...op.select,
    ...op.const(4), ...op.shl, ...op.get(ptr), ...op.add, ...op.set(vend),
    ...op.const(0), ...op.i8x16Splat, ...op.set(acc),
    ...op.loop,
    ...op.get(acc), ...op.get(ptr), ...op.v128Load, ...op.get(nl), ...op.i8x16Eq, ...op.i8x16Sub, ...op.set(acc),
    ...op.get(ptr), ...op.const(16), ...op.add, ...op.tee(ptr), ...op.get(vend), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...op.get(acc), ...op.i16x8PairsU8, ...op.i32x4PairsU16, ...op.set(acc),
    ...addLanes(acc, total),
    ...op.br(0),
    ...op.end,
    ...op.end,
    // the last bytes
    ...op.block,
    ...op.loop,
    ...op.get(ptr), ...op.get(end), ...op.geU, ...op.brIf(1),
    ...op.get(total), ...op.get(ptr), ...op.load8u, ...op.const(10), ...op.eq, ...op.add, ...op.set(total),
    ...op.get(ptr), ...op.const(1), ...op.add, ...op.set(ptr),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.get(total),
    ...op.end
  ]
  return [...vec([[4, I32], [4, V128]]), ...code]
}

/**
 * `measure16(ptr, units) -> newlines`: over little-endian UTF-16 units, counts newlines, and
 * stores at address 0 the UTF-8 bytes beyond one a unit ((u > 0x7f) + (u > 0x7ff)) and at
 * address 4 the surrogates (a valid pair is 4 bytes, not 6: the caller measures such a slice
 * another way). Runs of up to 64 vectors are first scanned for newlines only, OR-ing the units
 * together; only a run where some unit is above 0x7f is scanned again for the byte counts, so
 * text with a few non-ASCII lines costs little more than ASCII.
 */
const RUN = 64
const measure16Body = (): Array<number> => {
  // params 0 ptr, 1 units; i32 locals 2 end, 3 n, 4 vend, 5 lines, 6 extra, 7 surrogates, 8 u,
  // 9 at; v128 locals 10 v, 11 accN, 12 accE, 13 accS, 14 kNl, 15 k7f, 16 k7ff, 17 kF800,
  // 18 kD800, 19 any, 20 kFF80
  const [ptr, units, end, n, vend, lines, extra, surrogates, u, at] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  const [v, accN, accE, accS, kNl, k7f, k7ff, kF800, kD800, any, kFF80] = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
  const splat = (value: number, local: number) => [...op.const(value), ...op.i16x8Splat, ...op.set(local)]
  const count = (acc: number, test: ReadonlyArray<number>) => [...op.get(acc), ...test, ...op.i16x8Sub, ...op.set(acc)]
  const widen = (acc: number, total: number) => [...op.get(acc), ...op.i32x4PairsU16, ...op.set(acc), ...addLanes(acc, total)]
  const code = [
    ...op.get(ptr), ...op.get(units), ...op.const(1), ...op.shl, ...op.add, ...op.set(end),
    ...splat(10, kNl), ...splat(0x7f, k7f), ...splat(0x7ff, k7ff), ...splat(0xf800, kF800), ...splat(0xd800, kD800),
    ...splat(0xff80, kFF80),
    ...op.block,
    ...op.loop,
    ...op.get(end), ...op.get(ptr), ...op.sub, ...op.const(16), ...op.ltU, ...op.brIf(1),
    ...op.get(end), ...op.get(ptr), ...op.sub, ...op.const(4), ...op.shrU, ...op.set(n),
    ...op.get(n), ...op.const(RUN), ...op.get(n), ...op.const(RUN), ...op.ltU, ...op.select,
    ...op.const(4), ...op.shl, ...op.get(ptr), ...op.add, ...op.set(vend),
    ...op.get(ptr), ...op.set(at),
    ...op.const(0), ...op.i16x8Splat, ...op.tee(accN), ...op.set(any),
    // newlines, and every unit OR-ed into `any`
    ...op.loop,
    ...op.get(ptr), ...op.v128Load, ...op.set(v),
    ...count(accN, [...op.get(v), ...op.get(kNl), ...op.i16x8Eq]),
    ...op.get(any), ...op.get(v), ...op.v128Or, ...op.set(any),
    ...op.get(ptr), ...op.const(16), ...op.add, ...op.tee(ptr), ...op.get(vend), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...widen(accN, lines),
    // a unit above 0x7f in the run: count the bytes it takes, from the run's start
    ...op.get(any), ...op.get(kFF80), ...op.v128And, ...op.v128AnyTrue,
    ...op.if,
    ...op.const(0), ...op.i16x8Splat, ...op.tee(accE), ...op.set(accS),
    ...op.loop,
    ...op.get(at), ...op.v128Load, ...op.set(v),
    ...count(accE, [...op.get(v), ...op.get(k7f), ...op.i16x8GtU]),
    ...count(accE, [...op.get(v), ...op.get(k7ff), ...op.i16x8GtU]),
    ...count(accS, [...op.get(v), ...op.get(kF800), ...op.v128And, ...op.get(kD800), ...op.i16x8Eq]),
    ...op.get(at), ...op.const(16), ...op.add, ...op.tee(at), ...op.get(vend), ...op.ltU, ...op.brIf(0),
    ...op.end,
    ...widen(accE, extra), ...widen(accS, surrogates),
    ...op.end,
    ...op.br(0),
    ...op.end,
    ...op.end,
    // the last units
    ...op.block,
    ...op.loop,
    ...op.get(ptr), ...op.get(end), ...op.geU, ...op.brIf(1),
    ...op.get(ptr), ...op.load16u, ...op.set(u),
    ...op.get(lines), ...op.get(u), ...op.const(10), ...op.eq, ...op.add, ...op.set(lines),
    ...op.get(extra), ...op.get(u), ...op.const(0x7f), ...op.gtU, ...op.add,
    ...op.get(u), ...op.const(0x7ff), ...op.gtU, ...op.add, ...op.set(extra),
    ...op.get(surrogates), ...op.get(u), ...op.const(0xf800), ...op.and, ...op.const(0xd800), ...op.eq, ...op.add,
    ...op.set(surrogates),
    ...op.get(ptr), ...op.const(2), ...op.add, ...op.set(ptr),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.const(0), ...op.get(extra), ...op.store(0),
    ...op.const(0), ...op.get(surrogates), ...op.store(4),
    ...op.get(lines),
    ...op.end
  ]
  return [...vec([[8, I32], [11, V128]]), ...code]
}

/**
 * `encode16(src, units, dst) -> bytes`: UTF-16 units (little-endian, at `src`) encoded as UTF-8
 * at `dst`, exactly as `TextEncoder` encodes them (a lone surrogate is U+FFFD). Runs of 16 ASCII
 * units are narrowed to 16 bytes a step; any other unit is encoded on its own, so text with a few
 * non-ASCII lines costs little more than ASCII. Returns the bytes written.
 */
const encode16Body = (): Array<number> => {
  // params 0 src, 1 units, 2 dst; i32 locals 3 end, 4 out, 5 u, 6 next; v128 locals 7 a, 8 b, 9 kFF80
  const [src, units, dst, end, out, u, next, a, b, kFF80] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  // out[offset] = (u >> shift & mask) | lead, for the bytes of one character
  const put = (offset: number, shift: number, mask: number | undefined, lead: number) => [
    ...op.get(out), ...op.get(u),
    ...(shift > 0 ? [...op.const(shift), ...op.shrU] : []),
    ...(mask !== undefined ? [...op.const(mask), ...op.and] : []),
    ...op.const(lead), ...op.or, ...op.store8(offset)
  ]
  const advance = (local: number, n: number) => [...op.get(local), ...op.const(n), ...op.add, ...op.set(local)]
  const code = [
    ...op.get(dst), ...op.set(out),
    ...op.get(src), ...op.get(units), ...op.const(1), ...op.shl, ...op.add, ...op.set(end),
    ...op.const(0xff80), ...op.i16x8Splat, ...op.set(kFF80),
    ...op.block,
    ...op.loop,
    // 16 units at once when none is above 0x7f
    ...op.get(end), ...op.get(src), ...op.sub, ...op.const(32), ...op.geU,
    ...op.if,
    ...op.get(src), ...op.v128Load, ...op.set(a),
    ...op.get(src), ...op.v128LoadAt(16), ...op.set(b),
    ...op.get(a), ...op.get(b), ...op.v128Or, ...op.get(kFF80), ...op.v128And, ...op.v128AnyTrue, ...op.eqz,
    ...op.if,
    ...op.get(out), ...op.get(a), ...op.get(b), ...op.i8x16NarrowU, ...op.v128Store,
    ...advance(src, 32), ...advance(out, 16),
    ...op.br(2),
    ...op.end,
    ...op.end,
    // one unit
    ...op.get(src), ...op.get(end), ...op.geU, ...op.brIf(1),
    ...op.get(src), ...op.load16u, ...op.set(u),
    ...advance(src, 2),
    ...op.get(u), ...op.const(0x80), ...op.ltU,
    ...op.if,
    ...op.get(out), ...op.get(u), ...op.store8(0),
    ...advance(out, 1),
    ...op.br(1),
    ...op.end,
    ...op.get(u), ...op.const(0x800), ...op.ltU,
    ...op.if,
    ...put(0, 6, undefined, 0xc0), ...put(1, 0, 0x3f, 0x80),
    ...advance(out, 2),
    ...op.br(1),
    ...op.end,
    ...op.get(u), ...op.const(0xf800), ...op.and, ...op.const(0xd800), ...op.eq,
    ...op.if,
    // a high surrogate followed by a low one: one code point, 4 bytes; any other surrogate is U+FFFD
    ...op.get(u), ...op.const(0xdc00), ...op.ltU,
    ...op.if,
    ...op.get(src), ...op.get(end), ...op.ltU,
    ...op.if,
    ...op.get(src), ...op.load16u, ...op.set(next),
    ...op.get(next), ...op.const(0xfc00), ...op.and, ...op.const(0xdc00), ...op.eq,
    ...op.if,
    ...op.get(u), ...op.const(0xd800), ...op.sub, ...op.const(10), ...op.shl,
    ...op.get(next), ...op.const(0xdc00), ...op.sub, ...op.add, ...op.const(0x10000), ...op.add, ...op.set(u),
    ...advance(src, 2),
    ...put(0, 18, undefined, 0xf0), ...put(1, 12, 0x3f, 0x80), ...put(2, 6, 0x3f, 0x80), ...put(3, 0, 0x3f, 0x80),
    ...advance(out, 4),
    ...op.br(4),
    ...op.end,
    ...op.end,
    ...op.end,
    ...op.const(0xfffd), ...op.set(u),
    ...op.end,
    ...put(0, 12, undefined, 0xe0), ...put(1, 6, 0x3f, 0x80), ...put(2, 0, 0x3f, 0x80),
    ...advance(out, 3),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.get(out), ...op.get(dst), ...op.sub,
    ...op.end
  ]
  return [...vec([[4, I32], [3, V128]]), ...code]
}

const name = (s: string) => [...u32(s.length), ...Array.from(s, (c) => c.charCodeAt(0))]

const moduleBytes = (): Uint8Array =>
  new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 2, I32, I32, 1, I32]])),
    ...section(3, vec([[0], [0]])),
    ...section(5, vec([[0x00, ...u32(PAGES)]])),
    ...section(7, vec([[...name("newlines"), 0x00, 0], [...name("measure16"), 0x00, 1], [...name("memory"), 0x02, 0]])),
    ...section(10, vec([newlinesBody(), measure16Body()].map((body) => [...u32(body.length), ...body])))
  ])

export interface Scanner {
  /** The data area: fill it, then count over a prefix of it. */
  readonly data: Uint8Array
  /** Newlines in `data[0, length)`. */
  readonly newlines: (length: number) => number
  /**
   * Over `units` UTF-16 units written little-endian at the start of `data`: newlines, UTF-8
   * bytes (exact unless `surrogates` > 0), surrogate units.
   */
  readonly measure16: (units: number) => { readonly newlines: number; readonly bytes: number; readonly surrogates: number }
}

interface Exports {
  readonly newlines: (ptr: number, length: number) => number
  readonly measure16: (ptr: number, units: number) => number
  readonly memory: { readonly buffer: ArrayBuffer }
}

/** The part of the WebAssembly API used here (the package is typed without DOM or Node globals). */
interface WasmHost {
  readonly WebAssembly?: {
    readonly Module: new(bytes: Uint8Array) => object
    readonly Instance: new(module: object) => { readonly exports: unknown }
  }
}

let instance: Scanner | null | undefined

/** The scanner, made on first use; undefined where WebAssembly SIMD is not available. */
export const scanner = (): Scanner | undefined => {
  if (instance !== undefined) return instance ?? undefined
  const wasm = (globalThis as WasmHost).WebAssembly
  try {
    if (wasm === undefined) throw new Error("no WebAssembly")
    const exports = new wasm.Instance(new wasm.Module(moduleBytes())).exports as Exports
    const results = new Int32Array(exports.memory.buffer, 0, 2)
    instance = {
      data: new Uint8Array(exports.memory.buffer, DATA_OFFSET, DATA_BYTES),
      newlines: (length) => exports.newlines(DATA_OFFSET, length),
      measure16: (units) => {
        const newlines = exports.measure16(DATA_OFFSET, units)
        return { newlines, bytes: units + results[0]!, surrogates: results[1]! }
      }
    }
  } catch {
    instance = null
  }
  return instance ?? undefined
}

/** The encoder's memory: UTF-16 units in, then two UTF-8 areas used in turn. */
const ENCODE_UNITS = 1 << 20
const ENCODE_IN = 0
const ENCODE_OUT = ENCODE_UNITS * 2
const ENCODE_OUT_BYTES = ENCODE_UNITS * 3
const ENCODE_PAGES = (ENCODE_OUT + 2 * ENCODE_OUT_BYTES) / 65536

const encoderModuleBytes = (): Uint8Array =>
  new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 3, I32, I32, I32, 1, I32]])),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, ...u32(ENCODE_PAGES)]])),
    ...section(7, vec([[...name("encode16"), 0x00, 0], [...name("memory"), 0x02, 0]])),
    ...section(10, vec([encode16Body()].map((body) => [...u32(body.length), ...body])))
  ])

/**
 * A UTF-8 encoder of strings with its own memory, for one sequence of slices (a spill): each
 * `encode` returns a view of one of two output areas, used in turn, so a slice stays valid until
 * the next but one is encoded and one can be written while the next is encoded.
 */
export interface Encoder16 {
  /** The most UTF-16 units one `encode` takes. */
  readonly units: number
  /** `s` (at most `units` long, not ending inside a surrogate pair) as UTF-8, as `TextEncoder` would. */
  readonly encode: (s: string) => Uint8Array
}

interface EncoderExports {
  readonly encode16: (src: number, units: number, dst: number) => number
  readonly memory: { readonly buffer: ArrayBuffer }
}

interface Ucs2Host {
  readonly Buffer?: { readonly from: (b: ArrayBufferLike, offset: number, length: number) => { ucs2Write(s: string, offset: number): number } }
}

let encoderModule: object | null | undefined

/**
 * A new encoder (its own 8 MiB memory: two spills written at once never share one); undefined
 * where WebAssembly SIMD or Node's `Buffer` (which copies a string's units out in one call) is missing.
 */
export const encoder16 = (): Encoder16 | undefined => {
  const wasm = (globalThis as WasmHost).WebAssembly
  const NodeBuffer = (globalThis as unknown as Ucs2Host).Buffer
  if (wasm === undefined || NodeBuffer === undefined || encoderModule === null) return undefined
  try {
    encoderModule ??= new wasm.Module(encoderModuleBytes())
    const exports = new wasm.Instance(encoderModule).exports as EncoderExports
    const units = NodeBuffer.from(exports.memory.buffer, ENCODE_IN, ENCODE_UNITS * 2)
    let turn = 0
    return {
      units: ENCODE_UNITS,
      encode: (s) => {
        const out = ENCODE_OUT + turn * ENCODE_OUT_BYTES
        turn = 1 - turn
        const n = units.ucs2Write(s, 0) >> 1
        return new Uint8Array(exports.memory.buffer, out, exports.encode16(ENCODE_IN, n, out))
      }
    }
  } catch {
    encoderModule = null
    return undefined
  }
}
