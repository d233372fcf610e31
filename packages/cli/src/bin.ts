/**
 * The `agent-tools` executable: runs `main` on Node and exits with its code.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as z from "zod"
import { main } from "./Cli.ts"

// zod compiles a validator for an object schema (`new Function`) on its first parse: a few
// milliseconds of every one-shot command, for parses that take microseconds either way.
z.config({ jitless: true })

main(process.argv.slice(2)).pipe(
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      const code = Exit.isSuccess(exit)
        ? (typeof exit.value === "number" ? exit.value : 0)
        : Cause.hasInterruptsOnly(exit.cause)
        ? 130
        : 1
      // Exit once stdout and stderr have drained (process.exit could cut a piped output short);
      // the unref'd timer only fires if something else kept the process alive.
      process.exitCode = code
      setTimeout(() => process.exit(code), 2000).unref()
      onExit(code === 130 ? 130 : 0)
    }
  })
)
