/**
 * `agent-tools trust [DIR] [--revoke]`: the user trusts (or stops trusting) a workspace's own
 * `agent-tools.json`, kept in `trusted.json` in the user's config directory.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import { WorkspaceTrust } from "@agent-tools/runtime"
import * as Exit from "./Exit.ts"
import * as Flags from "./Flags.ts"
import * as Output from "./Output.ts"

export const command = Command.make(
  "trust",
  {
    dir: Argument.String("dir").pipe(
      Argument.withDescription("The workspace folder (default: the current directory)"),
      Argument.optional
    ),
    revoke: Flag.Boolean("revoke").pipe(
      Flag.withDescription("Stop trusting the folder: its config only narrows the user's again"),
      Flag.withDefault(false)
    ),
    json: Flags.json("Print {folder, trusted, file, sha256} (with --revoke: {folder, revoked}) as JSON")
  },
  Effect.fn("Cli.trust")(function*(flags) {
    const dir = Option.getOrElse(flags.dir, () => ".")
    if (flags.revoke) {
      const result = yield* WorkspaceTrust.revoke(dir).pipe(Effect.mapError(Exit.classify))
      if (flags.json) return yield* Output.line(JSON.stringify(result))
      return yield* Output.line(
        result.revoked
          ? `No longer trusted: ${result.folder} (its agent-tools.json may only narrow your config)`
          : `${result.folder} was not trusted`
      )
    }
    // What the workspace's config would have left out, to say what trusting it turns on.
    const before = yield* WorkspaceTrust.load({ cwd: dir }).pipe(Effect.mapError(Exit.classify))
    const result = yield* WorkspaceTrust.trust(dir).pipe(Effect.mapError(Exit.classify))
    if (flags.json) return yield* Output.line(JSON.stringify({ ...result, trusted: true }))
    if (result.file === undefined) {
      return yield* Output.line(
        `Trusted ${result.folder}; it has no agent-tools.json: one created later is not trusted until you run this again`
      )
    }
    const applied = before.trust.ignored.length === 0 ? "" : `; now applied: ${before.trust.ignored.join(", ")}`
    yield* Output.line(
      `Trusted ${result.folder} with its agent-tools.json as it is now (sha256 ${result.sha256?.slice(0, 12)})${applied}. ` +
        "If the file changes, it is untrusted again until you run this again."
    )
  })
).pipe(
  Command.withDescription(
    "Trust a workspace's own agent-tools.json, so that it applies in full: MCP servers, custom tools and plugins, " +
      "language servers, allow rules, sandbox settings, spill location. Until then it may only narrow your config " +
      "(ask and deny rules, truncation, disabled tools, a stricter sandbox) and the rest is named in a warning. Trust " +
      "is kept in trusted.json in your config directory ($XDG_CONFIG_HOME/agent-tools, default ~/.config/agent-tools), " +
      "bound to the folder's real path and the file's content: a changed file is untrusted again until you trust it anew"
  ),
  Command.withExamples([
    { command: "agent-tools trust", description: "Trust the current directory's agent-tools.json" },
    { command: "agent-tools trust ~/src/project --revoke", description: "Stop trusting a folder" }
  ])
)
