/**
 * Permission asks answered at the terminal: the request is shown on stderr (permission, patterns,
 * what the tool's plan shows: the command with the notes of its analysis, the diff of a file change;
 * the real path of an outside directory) and a line is read
 * through Effect's Terminal: once, always or reject. Everything a tool supplied is shown through
 * `DisplayText`: control and bidi characters escaped, a multi-line command or diff indented under
 * its label, so nothing in it can repaint the prompt or pass for a line of it.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Semaphore from "effect/Semaphore"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Terminal from "effect/Terminal"
import { DisplayText, Permission, type Tool } from "@agent-tools/core"
import * as Output from "./Output.ts"

/** `o`/`once`/`y`/`yes`, `a`/`always`, `r`/`reject`/`n`/`no`; an empty line rejects. */
export const parseAnswer = (line: string): Permission.Reply | undefined => {
  switch (line.trim().toLowerCase()) {
    case "o":
    case "once":
    case "y":
    case "yes":
      return "once"
    case "a":
    case "always":
      return "always"
    case "":
    case "r":
    case "reject":
    case "n":
    case "no":
      return "reject"
    default:
      return undefined
  }
}


const INDENT = "    "
const indent = (text: string) => `${INDENT}${DisplayText.block(text, INDENT)}`

/** The lines of one request: its patterns, the command, the real path, the diff of an edit. */
const renderItem = (item: Permission.Item, lines: Array<string>) => {
  const meta = item.metadata ?? {}
  const raw = (key: string) => typeof meta[key] === "string" ? meta[key] as string : undefined
  const text = (key: string) => {
    const value = raw(key)
    return value === undefined ? undefined : DisplayText.line(value)
  }
  for (const pattern of item.patterns) lines.push(`  pattern: ${DisplayText.line(pattern)}`)
  const display = item.display
  // What the tool's plan says the prompt shows (the command with its notes, the change as a diff)
  // comes first; the metadata's own command or diff stands in for a tool that gives none.
  const command = display?.kind === "command" ? display.command : display === undefined ? raw("command") : undefined
  if (command !== undefined) {
    lines.push(command.includes("\n") ? `  command:\n${indent(command.replace(/\r?\n$/, ""))}` : `  command: ${DisplayText.line(command)}`)
  }
  if (display?.kind === "command") for (const note of display.notes) lines.push(`  note: ${DisplayText.line(note)}`)
  const description = text("description")
  if (description !== undefined) lines.push(`  description: ${description}`)
  if (item.permission === "external_directory") {
    const real = text("filepath")
    if (real !== undefined) lines.push(`  outside the workspace: ${real}`)
    const requested = text("requested")
    if (requested !== undefined) lines.push(`  (requested as ${requested})`)
    const access = text("access")
    if (access !== undefined) lines.push(`  access: ${access}`)
  } else {
    const file = text("filepath") ?? text("filePath")
    if (file !== undefined) lines.push(`  file: ${file}`)
  }
  const diff = display?.kind === "diff" ? display.diff : raw("diff")
  if (diff !== undefined && diff.trim() !== "") lines.push("  diff:", indent(DisplayText.clip(diff.trimEnd())))
}

/** The request as the user sees it: every request of the call, one answer for all of them. */
export const render = (request: Pick<Permission.Request, "permission" | "patterns" | "always" | "metadata"> & {
  readonly requests?: ReadonlyArray<Permission.Item> | undefined
}): string => {
  const items = request.requests ?? [request]
  const lines: Array<string> = []
  if (items.length === 1) {
    lines.push(`Permission needed: ${DisplayText.line(items[0]!.permission)}`)
    renderItem(items[0]!, lines)
  } else {
    lines.push(`Permissions needed for this call (one answer applies to all ${items.length}):`)
    items.forEach((item, i) => {
      lines.push(`${i + 1}. ${DisplayText.line(item.permission)}`)
      renderItem(item, lines)
    })
  }
  const always = items.flatMap((item) => item.always ?? item.patterns)
  lines.push(`  "always" allows for the rest of this call: ${always.map(DisplayText.line).join(", ")}`)
  return lines.join("\n")
}

const QUESTION = "Allow? [o]nce, [a]lways, [r]eject (default: reject): "

/** Shows the request and reads the answer; end of input rejects. */
export const promptReply = Effect.fn("Cli.promptReply")(function*(request: Permission.Request) {
  const terminal = yield* Terminal.Terminal
  yield* Output.stderr(`\n${render(request)}\n${QUESTION}`)
  for (let attempt = 0; attempt < 5; attempt++) {
    const line = yield* terminal.readLine.pipe(Effect.orElseSucceed(() => undefined))
    if (line === undefined) {
      yield* Output.stderr("\n(end of input: rejected)\n")
      return "reject" as const
    }
    const reply = parseAnswer(line)
    if (reply !== undefined) return reply
    yield* Output.stderr(`Please answer o (once), a (always) or r (reject): `)
  }
  return "reject" as const
})

/**
 * Wraps a context's `ask` and `askAll` so that requests the rules leave at `ask` are put to the
 * user as one question: the real `Permission.ask` / `askAll` runs (so replies, `always` approvals and events behave as everywhere else) and
 * the prompt answers its pending request. Requests the rules decide never prompt. Concurrent asks
 * of one call (batch) are claimed one each and prompted one at a time.
 */
export const interactive = Effect.fnUntraced(function*(
  context: Tool.Context
): Effect.fn.Return<Tool.Context, never, Permission.Permission | Terminal.Terminal | Stdio.Stdio> {
  const permission = yield* Permission.Permission
  const services = yield* Effect.context<Terminal.Terminal | Stdio.Stdio>()
  const claimed = new Set<string>()
  const terminal = Semaphore.makeUnsafe(1)

  // The forked ask's request, taken from the asks as it is made; none when the ask ended first
  // (decided without a prompt, or failed). Claimed as it is taken, so two asks of one call waiting
  // side by side (batch) never take the same request.
  const claim = (fiber: Fiber.Fiber<void, unknown>) =>
    Effect.suspend(() => {
      let taken: Permission.Request | undefined
      // One request at a time: the first unclaimed one of this call is claimed, and the stream stops.
      return Stream.runForEachWhile(permission.asks, (r) =>
        Effect.sync(() => {
          if (r.tool?.callID !== context.callID || claimed.has(r.id)) return true
          claimed.add(r.id)
          taken = r
          return false
        })).pipe(
          Effect.map(() => taken),
          Effect.raceFirst(Effect.as(Fiber.await(fiber), undefined))
        )
    })

  const answer = (request: Permission.Request) =>
    Effect.gen(function*() {
      // An `always` or a reject of an earlier prompt may have settled this request meanwhile.
      if (!(yield* permission.pending).some((r) => r.id === request.id)) return
      const reply = yield* promptReply(request).pipe(Effect.provideContext(services))
      yield* permission.reply({ requestID: request.id, reply })
    }).pipe(terminal.withPermit)

  // Asks the rules decide (allow, or any deny) never prompt; otherwise the one pending request
  // of the ask is claimed and answered at the terminal.
  const prompted = <E>(inputs: ReadonlyArray<Tool.AskInput>, asking: Effect.Effect<void, E>) =>
    Effect.gen(function*() {
      const actions: Array<Permission.Action> = []
      for (const input of inputs) actions.push((yield* permission.explain({ ...input, sessionID: context.sessionID })).action)
      if (actions.includes("deny") || !actions.includes("ask")) return yield* asking
      const fiber = yield* Effect.forkChild(asking)
      const request = yield* claim(fiber)
      if (request !== undefined) yield* answer(request)
      return yield* Fiber.join(fiber)
    })
  return {
    ...context,
    ask: (input) => prompted([input], context.ask(input)),
    askAll: (inputs) => prompted(inputs, context.askAll(inputs))
  } satisfies Tool.Context
})
