/**
 * Fetched content is data from a stranger, not instructions: webfetch wraps what a server sent in
 * one marker the model is told about, so text on a page that says "ignore your instructions" reads
 * as page text. The content cannot end the marker early: a closing tag inside it is neutralised.
 */

/** The marker's tag name. */
export const TAG = "untrusted-web-content"

const CLOSING = new RegExp(`</(\\s*${TAG})`, "gi")

/** The content inside the marker, its source named; a closing tag in the content loses its `<`. */
export const wrap = (source: string, content: string): string =>
  `<${TAG} source="${source.replaceAll("\"", "%22")}">\n${content.replace(CLOSING, "&lt;/$1")}\n</${TAG}>`
