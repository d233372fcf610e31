/**
 * The web tools through the CLI: listed by `tools --json` (search only when enabled), and
 * webfetch called on a page this test serves on 127.0.0.1, refused unless the config allows
 * private networks.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { run, workspace } from "./harness.ts"

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, any>) =>
  it.live(name, () => body().pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>)

const page = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<ReturnType<typeof createServer>>((resolve) => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html" }).end("<h1>Local</h1><p>served to the CLI</p>")
      })
      server.listen(0, "127.0.0.1", () => resolve(server))
    })
  ),
  (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`))

const names = (stdout: string) => (JSON.parse(stdout) as Array<{ name: string }>).map((t) => t.name)

describe("agent-tools and the web tools", () => {
  live("tools --json lists webfetch (read-only, open-world); websearch and codesearch only when enabled", () =>
    Effect.gen(function*() {
      const plain = yield* workspace()
      const r = yield* run(["tools", "--json", "--cwd", plain.dir])
      assert.strictEqual(r.code, 0)
      const tools = JSON.parse(r.stdout) as Array<{ name: string; annotations: Record<string, unknown>; inputSchema: any }>
      const webfetch = tools.find((t) => t.name === "webfetch")!
      assert.deepStrictEqual(Object.keys(webfetch.inputSchema.properties), ["url", "format", "timeout"])
      assert.deepStrictEqual(webfetch.inputSchema.required, ["url"])
      assert.deepStrictEqual(webfetch.annotations, { readOnly: true, openWorld: true })
      assert.notInclude(names(r.stdout), "websearch")
      assert.notInclude(names(r.stdout), "codesearch")
      const enabled = yield* workspace({ config: { websearch: { enabled: true, apiKey: "test-key" } } })
      const listed = names((yield* run(["tools", "--json", "--cwd", enabled.dir])).stdout)
      assert.includeMembers(listed, ["webfetch", "websearch", "codesearch"])
    }))

  live("call webfetch: loopback refused by default (exit 1), fetched when the config allows it", () =>
    Effect.gen(function*() {
      const url = yield* page
      const args = JSON.stringify({ url })
      const refused = yield* workspace({ config: { permission: { webfetch: "allow" } } })
      const r = yield* run(["call", "webfetch", args, "--cwd", refused.dir])
      assert.strictEqual(r.code, 1)
      assert.strictEqual(r.stdout, "")
      assert.include(
        r.stderr,
        "Refused to connect: 127.0.0.1 is a loopback address. Private, link-local and loopback addresses are refused " +
          "unless webfetch.allowPrivateNetwork is set in agent-tools.json."
      )
      const allowed = yield* workspace({ config: { permission: { webfetch: "allow" }, webfetch: { allowPrivateNetwork: true } } })
      const ok = yield* run(["call", "webfetch", args, "--json", "--cwd", allowed.dir])
      assert.strictEqual(ok.code, 0, ok.stderr)
      assert.deepStrictEqual(JSON.parse(ok.stdout), {
        title: `${url} (text/html)`,
        output: `<untrusted-web-content source="${url}">\n# Local\n\nserved to the CLI\n</untrusted-web-content>`,
        metadata: { url, contentType: "text/html", bytes: 38, untrusted: true, truncated: false }
      })
    }))

  live("call webfetch without a permission rule: asked, and rejected without a TTY (exit 3)", () =>
    Effect.gen(function*() {
      const ws = yield* workspace()
      const r = yield* run(["call", "webfetch", `{"url":"https://example.com/"}`, "--cwd", ws.dir])
      assert.strictEqual(r.code, 3)
    }))
})
