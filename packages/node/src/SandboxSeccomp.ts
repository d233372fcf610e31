/**
 * The seccomp filter every sandboxed call runs under: the kernel keyring system calls (`add_key`,
 * `request_key`, `keyctl`) fail with EPERM. The keyring a command inherits is its parent's session
 * keyring (credentials, Kerberos tickets, tokens stored by `keyctl`); namespaces do not separate
 * it, so a command must not reach it at all. Everything else is allowed.
 *
 * bwrap takes the filter as compiled classic BPF (`--seccomp FD`): an array of `sock_filter`
 * records (u16 code, u8 jt, u8 jf, u32 k, little-endian on every architecture listed) run on
 * `seccomp_data` (u32 nr at offset 0, u32 arch at offset 4). The filter checks the architecture
 * before the number, since the same number means another call under another ABI (a 32-bit
 * program on a 64-bit kernel).
 */

// Classic BPF instruction codes.
const LD_W_ABS = 0x20
const JEQ_K = 0x15
const RET_K = 0x06
// seccomp return values.
const RET_ALLOW = 0x7fff0000
const RET_ERRNO = 0x00050000
const EPERM = 1
/** x32 programs run with the x86_64 audit architecture and this bit set in the call number. */
const X32_BIT = 0x40000000

/** The keyring calls per audit architecture (`AUDIT_ARCH_*`), numbers from each ABI's table. */
export const KEYRING_CALLS: ReadonlyArray<{ readonly arch: string; readonly audit: number; readonly numbers: ReadonlyArray<number> }> = [
  // add_key, request_key, keyctl; x32 the same with its bit.
  { arch: "x86_64", audit: 0xc000003e, numbers: [248, 249, 250, X32_BIT | 248, X32_BIT | 249, X32_BIT | 250] },
  { arch: "i386", audit: 0x40000003, numbers: [286, 287, 288] },
  { arch: "aarch64", audit: 0xc00000b7, numbers: [217, 218, 219] },
  { arch: "arm", audit: 0x40000028, numbers: [309, 310, 311] }
]

/** Node's names of the architectures whose calls the filter knows (a native program's own ABI is among them). */
export const SUPPORTED_ARCHES: ReadonlyArray<string> = ["x64", "arm64", "ia32", "arm"]

interface Instruction {
  readonly code: number
  readonly jt: number
  readonly jf: number
  readonly k: number
}

/**
 * The filter program: per architecture, "arch matches? then each keyring number → deny, else
 * allow"; an architecture it does not know is allowed (its numbers are unknown here).
 */
export const program = (): ReadonlyArray<Instruction> => {
  const out: Array<Instruction> = []
  // Jumps to the final deny are resolved once the program's length is known.
  const denies: Array<number> = []
  for (const { audit, numbers } of KEYRING_CALLS) {
    out.push({ code: LD_W_ABS, jt: 0, jf: 0, k: 4 })
    // Not this architecture: skip its block (load nr, the comparisons, the allow).
    out.push({ code: JEQ_K, jt: 0, jf: numbers.length + 2, k: audit })
    out.push({ code: LD_W_ABS, jt: 0, jf: 0, k: 0 })
    for (const n of numbers) {
      denies.push(out.length)
      out.push({ code: JEQ_K, jt: 0, jf: 0, k: n })
    }
    out.push({ code: RET_K, jt: 0, jf: 0, k: RET_ALLOW })
  }
  out.push({ code: RET_K, jt: 0, jf: 0, k: RET_ALLOW })
  const deny = out.length
  out.push({ code: RET_K, jt: 0, jf: 0, k: RET_ERRNO | EPERM })
  return out.map((ins, i) => denies.includes(i) ? { ...ins, jt: deny - i - 1 } : ins)
}

/** The compiled filter, as bwrap reads it from its `--seccomp` file descriptor. */
export const bytes = (): Uint8Array => {
  const instructions = program()
  const buffer = new Uint8Array(instructions.length * 8)
  const view = new DataView(buffer.buffer)
  instructions.forEach((ins, i) => {
    view.setUint16(i * 8, ins.code, true)
    view.setUint8(i * 8 + 2, ins.jt)
    view.setUint8(i * 8 + 3, ins.jf)
    view.setUint32(i * 8 + 4, ins.k >>> 0, true)
  })
  return buffer
}

/** The compiled filter for a process of Node's architecture `arch`; none where its calls are unknown here. */
export const forArch = (arch: string = process.arch): Uint8Array | undefined => SUPPORTED_ARCHES.includes(arch) ? bytes() : undefined

/** The file descriptor bwrap reads the filter from, opened by the wrapper shell (`9<file`). */
export const FD = 9
