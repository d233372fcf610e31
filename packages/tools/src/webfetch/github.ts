/**
 * A GitHub file page (`https://github.com/o/r/blob/ref/path`) is an HTML viewer around the file;
 * its raw form (`https://raw.githubusercontent.com/o/r/ref/path`) is the file itself, which is
 * what a model fetching it wants. The ref may hold slashes: the path after `blob/` is kept as is.
 */

/** The raw URL for a GitHub blob URL, or undefined for any other URL. */
export const rawGitHubUrl = (url: URL): URL | undefined => {
  if (url.protocol !== "https:" || (url.hostname !== "github.com" && url.hostname !== "www.github.com") || url.port !== "") {
    return undefined
  }
  const match = /^\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(url.pathname)
  if (match === null) return undefined
  return new URL(`https://raw.githubusercontent.com/${match[1]}/${match[2]}/${match[3]}${url.search}`)
}
