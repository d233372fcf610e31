/**
 * HTML to what the model asked for: Markdown (turndown) or plain text (html-to-text). Neither
 * keeps the head (title, meta), scripts, styles or embedded objects: only the body is reading matter.
 *
 * Each converter is loaded on first use: together they take longer to import than the rest of the
 * tools, and most runs (a CLI call, a server that never fetches) need neither.
 */
import * as Effect from "effect/Effect"

const SKIPPED = ["script", "style", "noscript", "iframe", "object", "embed", "template"] as const

type Convert = (html: string) => string

const once = (load: () => Promise<Convert>) => {
  let loading: Promise<Convert> | undefined
  return () => (loading ??= load())
}

const markdown = once(async () => {
  const { default: TurndownService } = await import("turndown")
  const turndown = new TurndownService({
    headingStyle: "atx",
    hr: "---",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    emDelimiter: "*"
  })
  turndown.remove([...SKIPPED, "title", "meta", "link"])
  return (html) => turndown.turndown(html).trim()
})

const text = once(async () => {
  const { convert } = await import("html-to-text")
  const headings = ["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } }))
  const options = {
    wordwrap: false as const,
    selectors: [
      ...headings,
      { selector: "a", options: { ignoreHref: true } },
      { selector: "img", format: "skip" },
      ...SKIPPED.map((selector) => ({ selector, format: "skip" }))
    ]
  }
  return (html) => convert(html, options).trim()
})

/** The HTML as Markdown or plain text. */
export const convertHtml = (html: string, format: "markdown" | "text"): Effect.Effect<string> =>
  Effect.map(Effect.promise(format === "markdown" ? markdown : text), (convert) => convert(html))

/** Whether a MIME type is HTML (the conversions apply to it only). */
export const isHtml = (mime: string): boolean => mime === "text/html" || mime === "application/xhtml+xml"
