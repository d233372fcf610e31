/**
 * Pseudo-terminals, for jobs that need one: a REPL, a prompt, a full-screen program. The process
 * sees a terminal on stdin/stdout/stderr (isatty is true, line editing and Ctrl-C work as on a
 * real one); this side writes keystrokes to it, reads what it prints, resizes it, and can ask for
 * the rendered screen (what a user would see, escape sequences applied).
 *
 * The default (`unavailable`, also the reference's default value) has no terminals: `spawn`
 * fails with the reason, so a `tty` request is refused with it and everything else works. The
 * Node layer in `@agent-tools/node` opens real ones (a PTY package with prebuilt binaries, and a
 * headless terminal emulator for the screen).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

/** A terminal cannot be opened here (`unavailable`, with the reason) or this one failed (`io`). */
export class TerminalError extends Schema.TaggedError<TerminalError>()("TerminalError", {
  reason: Schema.Literals(["unavailable", "io"]),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

export interface SpawnOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  /** The program's whole environment (nothing else is inherited). */
  readonly env: Readonly<Record<string, string>>
  readonly cols: number
  readonly rows: number
}

export interface Exit {
  /** null when the process died of a signal. */
  readonly code: number | null
  readonly signal: string | null
}

/** A process running on a terminal of its own. */
export interface Process {
  readonly pid: number
  /** What the terminal printed, raw (escape sequences included), from the start; ends when the process exits. */
  readonly output: Stream.Stream<Uint8Array>
  /** Writes to the terminal as typed keys: `\r` is Enter, `\u0003` Ctrl-C (the line discipline signals the foreground process group). */
  readonly write: (data: string) => Effect.Effect<void, TerminalError>
  readonly resize: (cols: number, rows: number) => Effect.Effect<void, TerminalError>
  /** The rendered screen as text, one line per row, trailing blanks trimmed. */
  readonly screen: Effect.Effect<string>
  /** Sends `signal` (default SIGTERM) to the process group of the terminal's session leader. */
  readonly kill: (signal?: string) => Effect.Effect<void>
  /** Resolves when the process exits. */
  readonly exited: Effect.Effect<Exit>
}

export interface Service {
  /** Whether terminals can be opened here; the reason when not. */
  readonly available: Effect.Effect<{ readonly ok: true } | { readonly ok: false; readonly reason: string }>
  /** Starts `options.command` on a new terminal; it is killed (its process group) when the scope closes. */
  readonly spawn: (options: SpawnOptions) => Effect.Effect<Process, TerminalError, Scope.Scope>
}

/** No terminals: every spawn fails with `reason`. */
export const unavailable = (reason: string): Service => ({
  available: Effect.succeed({ ok: false, reason }),
  spawn: () => Effect.fail(new TerminalError({ reason: "unavailable", message: reason }))
})

const DEFAULT_REASON = "no terminal layer is provided (the Node layer of @agent-tools/node opens pseudo-terminals)"

export const Terminal = Context.Reference<Service>("@agent-tools/core/Terminal", {
  defaultValue: () => unavailable(DEFAULT_REASON)
})

export const layerUnavailable = (reason: string = DEFAULT_REASON): Layer.Layer<never> => Layer.succeed(Terminal, unavailable(reason))
