/** file:// URIs, as language servers name documents, to and from absolute paths. */
import { fileURLToPath, pathToFileURL } from "node:url"

export const fromPath = (path: string): string => pathToFileURL(path).href

/** The path of a file:// URI; undefined for any other scheme or a malformed URI. */
export const toPath = (uri: string): string | undefined => {
  if (!uri.startsWith("file:")) return undefined
  try {
    return fileURLToPath(uri)
  } catch {
    return undefined
  }
}
