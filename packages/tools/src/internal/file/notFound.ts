/**
 * What a tool says of a file that is not there: the names beside it that look like its name.
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { FileTime } from "@agent-tools/core"
import { similarity } from "../similarity.ts"

/**
 * Up to 3 entries of `file`'s directory whose names look like its name (case-insensitive
 * containment either way, or a small edit distance), most similar first, as full paths.
 */
export const similarNames = Effect.fnUntraced(function*(file: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = path.dirname(file)
  const base = path.basename(file).toLowerCase()
  const entries = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
  return entries
    .filter((name) => !name.endsWith(FileTime.LOCK_SUFFIX))
    .map((name) => ({ name, lower: name.toLowerCase() }))
    .filter(({ lower }) => lower.includes(base) || base.includes(lower) || similarity(lower, base, 0.6) >= 0.6)
    .sort((a, b) => similarity(b.lower, base) - similarity(a.lower, base) || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map(({ name }) => path.join(dir, name))
})

export const notFoundMessage = (shown: string, similar: ReadonlyArray<string>): string =>
  similar.length === 0 ? `File not found: ${shown}` : `File not found: ${shown}\n\nDid you mean one of these?\n${similar.join("\n")}`
