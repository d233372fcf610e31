/**
 * The program that runs inside a sandbox with its own network namespace: it listens on a free
 * port of the namespace's loopback (127.0.0.1) and forwards every connection, byte for byte, to
 * the host's proxy over the unix socket named by its first argument. Once listening it prints
 * `ready <port>` on stdout and then points stdout at /dev/null, so the shell that started it (and
 * reads that line to the end of the pipe) can go on at once.
 *
 * It is kept here as text, written next to the proxy's socket for each call and run there by
 * Node, because a file beside the sources would need copying into `dist` and into the CLI bundle;
 * text inside a module is in every build.
 */
export const SOURCE = `// Forwards connections on 127.0.0.1 to the sandbox proxy's unix socket (argv[2]).
import { closeSync, openSync, writeSync } from "node:fs"
import { connect, createServer } from "node:net"

const socketPath = process.argv[2]
const server = createServer({ allowHalfOpen: true }, (client) => {
  const upstream = connect({ path: socketPath, allowHalfOpen: true })
  const end = () => {
    client.destroy()
    upstream.destroy()
  }
  client.on("error", end)
  upstream.on("error", end)
  client.on("close", end)
  upstream.on("close", end)
  client.pipe(upstream)
  upstream.pipe(client)
})
server.on("error", () => process.exit(1))
server.listen(0, "127.0.0.1", () => {
  writeSync(1, "ready " + server.address().port + "\\n")
  closeSync(1)
  openSync("/dev/null", "w")
})
`

/** The file name of the bridge in the call's network directory. */
export const FILE = "bridge.mjs"
