/**
 * webfetch: GET an http(s) URL and return it as Markdown, plain text or HTML.
 *
 * The response is read as a stream and the read stops at `MAX_RESPONSE_BYTES`; the whole fetch
 * (redirects and body included) runs under one deadline. Same-host redirects are followed a few
 * times; a redirect to another host ends the call with a result naming the new URL, so the model
 * fetches it with a call of its own, which asks its own permission. Which addresses may be
 * reached is the `WebFetchClient`'s business: it checks the address it connects to.
 *
 * What a server sent is wrapped as untrusted content (`untrusted.ts`), error pages included; a
 * GitHub file page is fetched as its raw file (`github.ts`).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
// The modules, not the http index: it loads the server side too (router, multipart…).
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as z from "zod"
import { Tool } from "@agent-tools/core"
import { toBase64 } from "../internal/text.ts"
import { BlockedAddressError } from "./address.ts"
import { readCapped, readPrefix } from "../internal/web/body.ts"
import { WebFetchClient } from "./client.ts"
import { convertHtml, isHtml } from "./convert.ts"
import { DEFAULT_TIMEOUT_SECONDS, MAX_ERROR_BODY_BYTES, MAX_REDIRECTS, MAX_RESPONSE_BYTES, MAX_TIMEOUT_SECONDS } from "../internal/limits.ts"
import { kilobytes, megabytes } from "../internal/size.ts"
import { WEBFETCH } from "./description.ts"
import { rawGitHubUrl } from "./github.ts"
import * as Untrusted from "./untrusted.ts"

export const parameters = z.lazy(() =>
  z.object({
    url: z.string().describe("The URL to fetch content from"),
    format: z.enum(["text", "markdown", "html"]).default("markdown").describe(
      "The format to return the content in (text, markdown, or html). Defaults to markdown."
    ),
    timeout: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional().describe(
      `Optional timeout in seconds (default ${DEFAULT_TIMEOUT_SECONDS}, max ${MAX_TIMEOUT_SECONDS})`
    )
  })
)

type Args = z.output<typeof parameters>
type Format = Args["format"]

const ACCEPT: Record<Format, string> = {
  markdown: "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
  text: "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
  html: "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1"
}

// Many sites answer a client without a browser's User-Agent with an error page.
const BROWSER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36"
// Cloudflare challenges a browser User-Agent whose TLS fingerprint is not a browser's; an honest one passes.
const HONEST_AGENT = "agent-tools"

const responseLimit = megabytes(MAX_RESPONSE_BYTES)

const fail = (reason: Tool.ToolErrorReason, message: string, cause?: unknown) =>
  new Tool.ToolError({ tool: "webfetch", reason, message, ...(cause === undefined ? {} : { cause }) })

/** The URL to fetch, or the error the model sees for a bad one. */
export const parseUrl = (raw: string): Effect.Effect<URL, Tool.ToolError> => {
  if (!/^https?:\/\//i.test(raw)) return Effect.fail(fail("invalid", "URL must start with http:// or https://"))
  return Effect.try({ try: () => new URL(raw), catch: () => fail("invalid", `Invalid URL: ${raw}`) })
}

/** The URL webfetch fetches for the one asked: a GitHub file page becomes its raw file. */
export const targetUrl = (url: URL): URL => rawGitHubUrl(url) ?? url

/** Same host and port, and no step down from https to http. */
const sameHost = (from: URL, to: URL) =>
  from.host === to.host && (from.protocol === to.protocol || to.protocol === "https:")

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308

/** A transport failure as the model should read it: the address policy's own words, else the cause. */
const transportError = (url: URL) => (error: HttpClientError.HttpClientError) => {
  const cause = "cause" in error.reason ? error.reason.cause : undefined
  if (cause instanceof BlockedAddressError) return fail("denied", cause.message, cause)
  const detail = cause instanceof Error ? cause.message : error.reason.message
  return fail("io", `Fetching ${url.href} failed: ${detail}`, error)
}

type Fetched =
  | { readonly _tag: "Body"; readonly url: URL; readonly contentType: string; readonly bytes: Uint8Array }
  | { readonly _tag: "Redirect"; readonly from: URL; readonly to: URL; readonly status: number }

/** Reads a body, failing as soon as it passes the size cap. */
const readBody = (response: HttpClientResponse.HttpClientResponse, url: URL) =>
  Effect.flatMap(
    Effect.mapError(readCapped(response, MAX_RESPONSE_BYTES), transportError(url)),
    (bytes) => bytes === undefined ? Effect.fail(fail("too-large", `Response too large (exceeds ${responseLimit} limit)`)) : Effect.succeed(bytes)
  )

/**
 * One request, its body read within the request's scope (leaving the scope aborts whatever is
 * left of it: an unread redirect body, a body past the cap).
 */
const fetchOnce = (client: HttpClient.HttpClient, url: URL, format: Format, agent: string) =>
  HttpClientRequest.get(url).pipe(
    HttpClientRequest.setHeaders({ "user-agent": agent, accept: ACCEPT[format], "accept-language": "en-US,en;q=0.9" }),
    HttpClient.withScope(client).execute,
    Effect.mapError(transportError(url))
  )

const follow = Effect.fnUntraced(function*(client: HttpClient.HttpClient, start: URL, format: Format) {
  let url = start
  for (let hop = 0;; hop++) {
    const step = yield* Effect.scoped(Effect.gen(function*() {
      let response = yield* fetchOnce(client, url, format, BROWSER_AGENT)
      if (response.status === 403 && response.headers["cf-mitigated"] === "challenge") {
        response = yield* fetchOnce(client, url, format, HONEST_AGENT)
      }
      if (isRedirect(response.status)) {
        const location = response.headers["location"]
        if (location === undefined) {
          return yield* fail("io", `Request failed with status code: ${response.status} (a redirect without a Location header)`)
        }
        const to = yield* Effect.try({ try: () => new URL(location, url), catch: () => fail("io", `Invalid redirect location: ${location}`) })
        return { _tag: "Redirect", from: url, to, status: response.status } as const
      }
      if (response.status < 200 || response.status > 299) {
        return yield* Effect.flatMap(statusError(response, url, format), Effect.fail)
      }
      const bytes = yield* readBody(response, url)
      return { _tag: "Body", url, contentType: response.headers["content-type"] ?? "", bytes } as const
    }))
    if (step._tag === "Body") return step satisfies Fetched
    if (!sameHost(url, step.to) || !/^https?:$/.test(step.to.protocol)) return step satisfies Fetched
    if (hop >= MAX_REDIRECTS) return yield* fail("io", `Too many redirects (more than ${MAX_REDIRECTS})`)
    url = step.to
  }
})

// What a client needs to act on an error status: retry later, authenticate, look elsewhere.
const ERROR_HEADERS = [
  "content-type",
  "retry-after",
  "www-authenticate",
  "location",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset"
] as const

// A header value shown to the model: one line, bounded.
const headerLine = (value: string) => value.replace(/[\u0000-\u001f\u007f]+/g, " ").slice(0, 300)

/**
 * An error status as the model reads it: the status, the useful headers and the start of the body
 * (converted like a normal body), so a rate limit, a login wall or an API's error text is visible.
 */
const statusError = (response: HttpClientResponse.HttpClientResponse, url: URL, format: Format) =>
  Effect.gen(function*() {
    const headers = ERROR_HEADERS.flatMap((name) => {
      const value = response.headers[name]
      return value === undefined ? [] : [`${name}: ${headerLine(value)}`]
    })
    const body = yield* readPrefix(response, MAX_ERROR_BODY_BYTES).pipe(
      Effect.matchEffect({
        onFailure: () => Effect.succeed(""),
        onSuccess: ({ bytes, complete }) =>
          Effect.map(bodyText(bytes, response.headers["content-type"] ?? "", format), (text) =>
            text.trim() === "" ? "" : (complete ? "Body:\n" : `Body (the first ${kilobytes(MAX_ERROR_BODY_BYTES)}):\n`) + Untrusted.wrap(url.href, text))
      })
    )
    return fail(
      response.status === 404 || response.status === 410 ? "not-found" : "io",
      [`Request failed with status code: ${response.status}`, ...headers, ...(body === "" ? [] : [body])].join("\n")
    )
  })

const redirectResult = (requested: URL, redirect: Extract<Fetched, { _tag: "Redirect" }>): Tool.Result => {
  const { from, to, status } = redirect
  const where = from.host !== to.host ? "a different host" : `${to.protocol.slice(0, -1)} (from ${from.protocol.slice(0, -1)})`
  return {
    title: `${requested.href} (redirect)`,
    output: `The URL redirects to ${where} (status ${status}); the redirect was not followed.\n` +
      `Original URL: ${requested.href}\nRedirect URL: ${to.href}\n` +
      `To fetch the new location, call webfetch again with url "${to.href}".`,
    metadata: { url: requested.href, redirect: to.href, status }
  }
}

const mimeOf = (contentType: string) => contentType.split(";")[0]!.trim().toLowerCase()

/** The charset of a content type, when TextDecoder knows it; else UTF-8. */
const decoderFor = (contentType: string) => {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]
  try {
    return new TextDecoder(charset ?? "utf-8")
  } catch {
    return new TextDecoder("utf-8")
  }
}

const isImage = (mime: string) => mime.startsWith("image/") && mime !== "image/svg+xml" && mime !== "image/vnd.fastbidsheet"

// A NUL byte in the first 8 KB: no text format has one.
const looksBinary = (bytes: Uint8Array) => bytes.subarray(0, 8192).includes(0)

/** A body as text in the format asked for; binary content is described, not decoded. */
const bodyText = (bytes: Uint8Array, contentType: string, format: Format): Effect.Effect<string> => {
  const mime = mimeOf(contentType)
  if (looksBinary(bytes)) return Effect.succeed(`(binary content, ${mime === "" ? "no content type" : mime})`)
  const text = decoderFor(contentType).decode(bytes)
  return !isHtml(mime) || format === "html" ? Effect.succeed(text) : convertHtml(text, format)
}

const render = (fetched: Extract<Fetched, { _tag: "Body" }>, format: Format): Effect.Effect<Tool.Result, Tool.ToolError> => {
  const { url, contentType, bytes } = fetched
  const mime = mimeOf(contentType)
  const title = `${url.href} (${contentType === "" ? "no content type" : contentType})`
  const metadata = { url: url.href, contentType, bytes: bytes.byteLength, untrusted: true }
  if (isImage(mime)) {
    return Effect.succeed({
      title,
      output: "Image fetched successfully",
      metadata,
      attachments: [{ type: "file", mime, url: `data:${mime};base64,${toBase64(bytes)}` }]
    })
  }
  if (looksBinary(bytes)) {
    return Effect.fail(fail("binary", `The response is binary content (${mime === "" ? "no content type" : mime}), not text`))
  }
  return Effect.map(bodyText(bytes, contentType, format), (text) => ({ title, output: Untrusted.wrap(url.href, text), metadata }))
}

const requestsOf = (url: URL, args: Args): ReadonlyArray<Tool.AskInput> => [{
  permission: "webfetch",
  patterns: [url.href],
  always: ["*"],
  metadata: { url: url.href, format: args.format, timeout: args.timeout }
}]

export const WebFetchTool = Tool.define(
  "webfetch",
  Effect.gen(function*() {
    const client = yield* WebFetchClient

    const execute = Effect.fn("WebFetchTool.execute")(function*(args: Args, ctx: Tool.Context) {
      const asked = yield* parseUrl(args.url)
      const url = targetUrl(asked)
      yield* ctx.askAll(requestsOf(url, args))
      const seconds = args.timeout ?? DEFAULT_TIMEOUT_SECONDS
      const fetched = yield* follow(client, url, args.format).pipe(
        Effect.timeoutOrElse({
          duration: Duration.seconds(seconds),
          orElse: () => Effect.fail(fail("timeout", `Request timed out after ${seconds} seconds`))
        })
      )
      const result = fetched._tag === "Redirect" ? redirectResult(url, fetched) : yield* render(fetched, args.format)
      return url === asked ? result : {
        ...result,
        output: `Fetched the raw file ${url.href} for the GitHub page ${asked.href}.\n${result.output}`,
        metadata: { ...result.metadata, requestedUrl: asked.href }
      }
    })

    return {
      description: WEBFETCH,
      parameters,
      execute,
      requests: (args: Args) => Effect.map(parseUrl(args.url), (url) => requestsOf(targetUrl(url), args)),
      annotations: { readOnly: true, openWorld: true }
    } satisfies Tool.Def<typeof parameters>
  })
)
