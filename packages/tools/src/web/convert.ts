/**
 * HTML to what the model asked for: Markdown (turndown) or plain text (html-to-text). Neither
 * keeps the head (title, meta), scripts, styles or embedded objects: only the body is reading matter.
 */
import { convert } from "html-to-text"
import TurndownService from "turndown"

const SKIPPED = ["script", "style", "noscript", "iframe", "object", "embed", "template"] as const

const turndown = new TurndownService({
  headingStyle: "atx",
  hr: "---",
  bulletListMarker: "-",
  codeBlockStyle: "fenced",
  emDelimiter: "*"
})
turndown.remove([...SKIPPED, "title", "meta", "link"])

export const htmlToMarkdown = (html: string): string => turndown.turndown(html).trim()

const headings = ["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({
  selector,
  options: { uppercase: false }
}))

export const htmlToText = (html: string): string =>
  convert(html, {
    wordwrap: false,
    selectors: [
      ...headings,
      { selector: "a", options: { ignoreHref: true } },
      { selector: "img", format: "skip" },
      ...SKIPPED.map((selector) => ({ selector, format: "skip" }))
    ]
  }).trim()

/** Whether a MIME type is HTML (the conversions apply to it only). */
export const isHtml = (mime: string): boolean => mime === "text/html" || mime === "application/xhtml+xml"
