/**
 * What a JSON-RPC message too large to parse still tells us: its top-level `id` and whether it is
 * a request (it has a `method`). Read from the raw bytes in one pass and constant memory, so a
 * message of any size can be answered by id without ever being held whole. Structural characters
 * are ASCII, so UTF-8 needs no decoding; only the top-level keys and the `id` value are captured,
 * each bounded.
 */

export interface Envelope {
  /** The top-level `id` when it is a string or a number (the only ids JSON-RPC allows). */
  readonly id: string | number | undefined
  /** Whether the message has a top-level `method`: a request or notification, not a response. */
  readonly hasMethod: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const COLON = 0x3a
const COMMA = 0x2c
/** Longer keys are not `id` or `method`, even escaped (`"\u0069\u0064"` is 14 bytes). */
const MAX_KEY_BYTES = 64
/** A longer id is not worth answering by: the message is dropped as having no readable id. */
const MAX_ID_BYTES = 1024

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d

type State = "key" | "colon" | "value" | "after"

/** Feed a message's bytes in order with `feed`, then read `envelope`. */
export class EnvelopeScanner {
  private depth = 0
  private inString = false
  private escaped = false
  /** Inside the top-level object (depth 1): what comes next. */
  private state: State = "key"
  private notObject = false
  private key: string | undefined
  /** Bytes being captured: a top-level key, or the `id` value. */
  private capture: Array<number> | undefined
  private captureLimit = 0
  private capturing: "key" | "id-string" | "id-literal" | undefined
  private id: string | number | undefined
  private hasMethod = false

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!
      if (this.inString) {
        this.keep(b)
        if (this.escaped) this.escaped = false
        else if (b === BACKSLASH) this.escaped = true
        else if (b === QUOTE) {
          this.inString = false
          this.endString()
        }
        continue
      }
      if (this.capturing === "id-literal") {
        if (isSpace(b) || b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY) this.endLiteral()
        else {
          this.keep(b)
          continue
        }
      }
      if (isSpace(b)) continue
      this.structural(b)
    }
  }

  get envelope(): Envelope {
    if (this.capturing === "id-literal") this.endLiteral()
    return this.notObject ? { id: undefined, hasMethod: false } : { id: this.id, hasMethod: this.hasMethod }
  }

  private structural(b: number): void {
    const top = this.depth === 1
    switch (b) {
      case QUOTE:
        this.inString = true
        if (this.depth === 0) this.notObject = true
        if (top && this.state === "key") this.start("key", MAX_KEY_BYTES, b)
        else if (top && this.state === "value" && this.key === "id") this.start("id-string", MAX_ID_BYTES, b)
        return
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (this.depth === 0) {
          this.notObject = b !== OPEN_OBJECT
          this.state = "key"
        } else if (top && this.state === "value" && this.key === "id") this.id = undefined
        this.depth++
        return
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        this.depth--
        if (this.depth === 1) this.state = "after"
        return
      case COLON:
        if (top && this.state === "colon") this.state = "value"
        return
      case COMMA:
        if (top) this.state = "key"
        return
      default:
        if (this.depth === 0) this.notObject = true
        else if (top && this.state === "value" && this.key === "id") {
          this.start("id-literal", MAX_ID_BYTES, b)
          this.state = "after"
        }
    }
  }

  private start(kind: "key" | "id-string" | "id-literal", limit: number, first: number): void {
    this.capturing = kind
    this.capture = [first]
    this.captureLimit = limit
  }

  private keep(b: number): void {
    if (this.capture === undefined) return
    if (this.capture.length < this.captureLimit) this.capture.push(b)
    else this.capture = undefined // too long: remembered as unreadable
  }

  private text(): string | undefined {
    const bytes = this.capture
    this.capture = undefined
    return bytes === undefined ? undefined : new TextDecoder().decode(Uint8Array.from(bytes))
  }

  private endString(): void {
    const kind = this.capturing
    this.capturing = undefined
    if (this.depth !== 1) return
    if (kind === "key") {
      const raw = this.text()
      this.key = raw === undefined ? undefined : parseJson(raw)
      if (this.key === "method") this.hasMethod = true
      this.state = "colon"
      return
    }
    if (kind === "id-string") {
      const raw = this.text()
      const value = raw === undefined ? undefined : parseJson(raw)
      this.id = typeof value === "string" ? value : undefined
    }
    this.state = "after"
  }

  private endLiteral(): void {
    this.capturing = undefined
    const raw = this.text()
    const value = raw === undefined ? undefined : parseJson(raw)
    this.id = typeof value === "number" && Number.isFinite(value) ? value : undefined
  }
}

const parseJson = (raw: string): any => {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

/** The envelope of a whole message given as chunks (what the transport does incrementally). */
export const scan = (chunks: Iterable<Uint8Array>): Envelope => {
  const scanner = new EnvelopeScanner()
  for (const chunk of chunks) scanner.feed(chunk)
  return scanner.envelope
}
