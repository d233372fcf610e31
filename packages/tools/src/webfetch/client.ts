/**
 * The HTTP client webfetch fetches with: a service of its own, so the client that enforces the
 * network policy is wired in on purpose and never picked up by accident from an `HttpClient` a
 * runtime happens to provide.
 *
 * Its contract: it follows no redirects (webfetch decides which to follow), and it refuses a
 * connection whose address `address.refusal` rejects, checked on the address the socket actually
 * connects to (after DNS, so a name resolving to 127.0.0.1 is refused and a second DNS answer
 * cannot swap the address), failing with a `TransportError` whose cause is the
 * `BlockedAddressError`. `@agent-tools/node` provides such a client (`allowPrivateNetwork` turns
 * the check off); a test may provide any client, e.g. `layer(HttpClient)` on a local server.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpClient from "effect/http/HttpClient"

export class WebFetchClient extends Context.Service<WebFetchClient, HttpClient.HttpClient>()(
  "@agent-tools/tools/WebFetchClient"
) {}

/** Uses the `HttpClient` in context as webfetch's client, as it is (no address policy added). */
export const fromHttpClient: Layer.Layer<WebFetchClient, never, HttpClient.HttpClient> = Layer.effect(
  WebFetchClient,
  Effect.gen(function*() {
    return yield* HttpClient.HttpClient
  })
)
