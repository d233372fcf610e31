/** A client on the tests' server that records each command it sends (name, and Range header). */
import type { S3Client } from "@aws-sdk/client-s3"
import { S3SpillStorage } from "../src/index.ts"

export interface Sent {
  readonly command: string
  readonly range?: string | undefined
}

export const recordingClient = (options: S3SpillStorage.Options): { readonly client: S3Client; readonly sent: Array<Sent> } => {
  const client = S3SpillStorage.makeClient(options)
  const sent: Array<Sent> = []
  client.middlewareStack.add(
    (next, context) => (args) => {
      const headers = (args.request as { headers?: Record<string, string> }).headers ?? {}
      sent.push({ command: context.commandName ?? "?", range: headers["range"] })
      return next(args)
    },
    { step: "finalizeRequest", name: "recordCommands" }
  )
  return { client, sent }
}

/** How many of `sent` were `command`. */
export const count = (sent: ReadonlyArray<Sent>, command: string): number => sent.filter((s) => s.command === command).length
