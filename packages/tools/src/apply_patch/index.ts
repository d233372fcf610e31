/** The codex patch format as a library: parse, and apply an Update's chunks to a text. */
export { type Chunk, type ChunkLine, type Hunk, type ParseMode, parseChunk, parseHunk, parsePatch, PatchParseError } from "./parser.ts"
export { normalizePunctuation, seekSequence } from "./seek.ts"
export { deriveUpdate, type Semantics, UpdateError } from "./update.ts"
