// A local S3-compatible server for the tests, in its own process: `node s3rver-process.mjs DIR BUCKET`
// listens on 127.0.0.1 on a free port, prints {"port": N} once ready, and stops when its stdin
// closes (the test's end, or the test process dying) or on SIGTERM.
import S3rver from "s3rver"

const [directory, bucket] = process.argv.slice(2)
const server = new S3rver({
  address: "127.0.0.1",
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }]
})
const { port } = await server.run()
process.stdout.write(`${JSON.stringify({ port })}\n`)
const stop = () => server.close().finally(() => process.exit(0))
process.stdin.on("end", stop)
process.stdin.on("close", stop)
process.stdin.resume()
process.on("SIGTERM", stop)
