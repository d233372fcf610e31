/**
 * Allow / ask / deny rules with wildcards; asks that wait for a reply (once / always / reject).
 * `askAll` puts the several requests of one tool call to the user as one prompt, deny first.
 *
 * Evaluation (see PermissionRules): the configured rules, then the ask's own `ruleset`, last match
 * wins. A pattern still at `ask` after that is allowed when one of the session's `always`
 * approvals matches it. Approvals only ever lift `ask` to `allow`: they never override a deny.
 * A request marked `alwaysAsk` (a change to a protected control file) is asked even when a rule or
 * an approval allows it; a deny rule still denies it.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Events } from "./Events.ts"
import * as PermissionRules from "./PermissionRules.ts"
import type * as Wildcard from "./Wildcard.ts"

export type Action = "allow" | "ask" | "deny"
export type Reply = "once" | "always" | "reject"

export interface Rule {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
}
export type Ruleset = ReadonlyArray<Rule>

export interface AskInput {
  readonly sessionID: string
  readonly permission: string
  readonly patterns: ReadonlyArray<string>
  /** Patterns stored for the session when the user answers `always`. */
  readonly always?: ReadonlyArray<string> | undefined
  readonly metadata?: Record<string, unknown> | undefined
  readonly tool?: { readonly name: string; readonly callID: string } | undefined
  /** Extra rules for this ask (e.g. the agent's), evaluated after the configured ones. */
  readonly ruleset?: Ruleset | undefined
  /**
   * Ask even when a rule or a session approval allows it (a deny still denies): for changes that
   * no wildcard should approve in advance, such as a write to a protected control file.
   */
  readonly alwaysAsk?: boolean | undefined
  /**
   * What a prompt shows for this request beside its patterns: the change a file tool would make
   * (a unified diff), or the command bash would run with what its analysis noted. Text from the
   * workspace and the model: a UI escapes it before showing it (`DisplayText`).
   */
  readonly display?: Display | undefined
}

/** What a prompt shows of a request (see `AskInput.display`). */
export type Display =
  | { readonly kind: "diff"; readonly path: string; readonly diff: string }
  | { readonly kind: "command"; readonly command: string; readonly notes: ReadonlyArray<string> }

/** One request of a prompt: an ask without the session and the tool, which the prompt carries. */
export type Item = Omit<AskInput, "sessionID" | "tool">

/** Several requests of one tool call, asked as one prompt (`askAll`). */
export interface AskAllInput {
  readonly sessionID: string
  readonly requests: ReadonlyArray<Item>
  readonly tool?: { readonly name: string; readonly callID: string } | undefined
}

/**
 * A pending prompt. `requests` lists what it asks for, one entry per request (a single `ask` has
 * one); `permission`, `patterns` and `always` summarise them (the permissions joined with ", ",
 * every pattern), and `metadata` is the request's own when there is only one.
 */
export interface Request extends AskInput {
  readonly id: string
  readonly requests: ReadonlyArray<Item>
}

export interface Decision {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
  /** The rule that decided; undefined when no rule matched (the default is `ask`). */
  readonly rule: Rule | undefined
  /**
   * Where the rule came from: the configured rules, the ask's `ruleset`, or a session approval;
   * `always-ask` when the request is always asked and `rule` (if any) would have allowed it.
   */
  readonly source?: "rules" | "ruleset" | "approval" | "always-ask" | undefined
}

export interface Explanation {
  /** deny if any pattern is denied, else ask if any needs asking, else allow. */
  readonly action: Action
  readonly decisions: ReadonlyArray<Decision>
}

export class PermissionRejectedError extends Schema.TaggedError<PermissionRejectedError>()("PermissionRejectedError", {
  requestID: Schema.String,
  permission: Schema.String,
  patterns: Schema.Array(Schema.String),
  feedback: Schema.optional(Schema.String)
}) {
  override get message() {
    return this.feedback === undefined
      ? "The user rejected permission to use this specific tool call."
      : `The user rejected permission to use this specific tool call with the following feedback: ${this.feedback}`
  }
}

export class PermissionDeniedError extends Schema.TaggedError<PermissionDeniedError>()("PermissionDeniedError", {
  permission: Schema.String,
  pattern: Schema.String,
  rule: Schema.Struct({ permission: Schema.String, pattern: Schema.String, action: Schema.Literals(["allow", "ask", "deny"]) })
}) {
  override get message() {
    return `A permission rule prevents this tool call: ${this.permission} "${this.pattern}" is denied by the rule ${
      JSON.stringify(this.rule)
    }.`
  }
}

export class Permission extends Context.Service<Permission, {
  /** Returns when every pattern is allowed (by rule or by reply); fails when one is denied or rejected. */
  readonly ask: (input: AskInput) => Effect.Effect<void, PermissionRejectedError | PermissionDeniedError>
  /**
   * Several requests as one prompt: every pattern of every request is evaluated first, and any
   * deny fails at once with nothing asked; the requests left at `ask` then go out as ONE pending
   * request, whose reply (once / always / reject) applies to all of them.
   */
  readonly askAll: (input: AskAllInput) => Effect.Effect<void, PermissionRejectedError | PermissionDeniedError>
  /** Answers a pending request; false when no such request is pending. */
  readonly reply: (input: {
    readonly requestID: string
    readonly reply: Reply
    readonly message?: string | undefined
  }) => Effect.Effect<boolean>
  /** The requests waiting for a reply now: a snapshot for a UI to list. */
  readonly pending: Effect.Effect<ReadonlyArray<Request>>
  /**
   * Every request that waits for a reply: those pending when the stream starts, then each new one
   * as it is asked, once each. A responder answers from it (`reply`); a request already settled
   * when it comes out of the stream is skipped.
   */
  readonly asks: Stream.Stream<Request>
  /** Returns once the request is no longer pending (replied, rejected with a sibling, or its call gone). */
  readonly settled: (requestID: string) => Effect.Effect<void>
  /**
   * The decision for one permission and pattern (configured rules, then `extra`, then the
   * approvals of `sessionID` when given).
   */
  readonly evaluate: (
    permission: string,
    pattern: string,
    extra?: Ruleset | undefined,
    sessionID?: string | undefined
  ) => Effect.Effect<Decision>
  /** What `ask` would decide, without asking. */
  readonly explain: (input: AskInput) => Effect.Effect<Explanation>
  /** The configured rules. */
  readonly rules: Ruleset
}>()("@agent-tools/core/Permission") {}

// ---------------------------------------------------------------------------------------------
// Implementation

export interface LayerOptions {
  /** The configured rules (e.g. from `PermissionRules.fromConfig`). */
  readonly rules?: Ruleset | undefined
  /**
   * What an `ask` does: `wait` for a `reply` (default); `reject` at once, for runtimes with no
   * responder (CI, MCP without elicitation), so nothing hangs; `allow` at once.
   */
  readonly unattended?: "wait" | "reject" | "allow" | undefined
  /** `"win32"` matches patterns case-insensitively (default posix). */
  readonly platform?: string | undefined
}

interface Pending {
  readonly request: Request
  readonly deferred: Deferred.Deferred<void, PermissionRejectedError>
  /** Completed when the entry leaves the pending map, however it leaves. */
  readonly gone: Deferred.Deferred<void>
}

const combine = (decisions: ReadonlyArray<Decision>): Action =>
  decisions.some((d) => d.action === "deny") ? "deny" : decisions.some((d) => d.action === "ask") ? "ask" : "allow"

/** The pending request for `items` (see `Request`). */
export const summarise = (
  sessionID: string,
  tool: AskInput["tool"],
  items: ReadonlyArray<Item>
): Omit<Request, "id"> => {
  if (items.length === 1) return { ...items[0]!, sessionID, tool, requests: items }
  return {
    sessionID,
    tool,
    permission: [...new Set(items.map((i) => i.permission))].join(", "),
    patterns: items.flatMap((i) => i.patterns),
    always: items.flatMap((i) => i.always ?? i.patterns),
    requests: items
  }
}

const describeRule = (d: Decision): string => {
  if (d.source === "always-ask") {
    return `always asked (a protected control file)${
      d.rule === undefined ? "" : `; rule ${d.rule.permission} ${JSON.stringify(d.rule.pattern)} → ${d.rule.action} does not apply`
    }`
  }
  if (d.rule === undefined) return "no rule matched (default: ask)"
  const from = d.source === "approval"
    ? " (approved for this session)"
    : d.source === "ruleset"
    ? " (rule of this call)"
    : d.source === "rules"
    ? " (configured)"
    : ""
  return `rule ${d.rule.permission} ${JSON.stringify(d.rule.pattern)} → ${d.rule.action}${from}`
}

/** One human-readable line per decision, e.g. `deny bash "rm -rf /": rule bash "rm *" → deny (configured)`. */
export const explainText = (explanation: Explanation): string =>
  explanation.decisions.length === 0
    ? `${explanation.action}: nothing to check`
    : explanation.decisions.map((d) => `${d.action} ${d.permission} ${JSON.stringify(d.pattern)}: ${describeRule(d)}`)
      .join("\n")

const unattendedFeedback = (decisions: ReadonlyArray<Decision>) =>
  "No permission responder is configured (unattended mode \"reject\"), so this request was rejected: " +
  decisions.filter((d) => d.action === "ask").map((d) => `${d.permission} ${JSON.stringify(d.pattern)} needs approval, ${
    describeRule(d)
  }`).join("; ")

/** The Permission service: rules, per-session `always` approvals, and asks that wait on a Deferred. */
export const layer = (options: LayerOptions = {}): Layer.Layer<Permission, never, Events> =>
  Layer.effect(
    Permission,
    Effect.gen(function*() {
      const state: State = {
        events: yield* Events,
        rules: options.rules ?? [],
        matching: { platform: options.platform },
        unattended: options.unattended ?? "wait",
        pending: new Map(),
        published: yield* PubSub.unbounded<Request>(),
        approved: new Map(),
        counter: 0
      }
      const { pending } = state

      // Closing the layer rejects what still waits, so no tool call hangs on a dead responder.
      yield* Effect.addFinalizer(() =>
        Effect.forEach([...pending.values()], (p) => Deferred.fail(p.deferred, rejection(p.request)), { discard: true })
      )

      return Permission.of({
        ask: Effect.fn("Permission.ask")(function*(input: AskInput) {
          yield* Effect.annotateCurrentSpan({ permission: input.permission, sessionID: input.sessionID })
          const { sessionID: _session, tool, ...item } = input
          return yield* askItems(state, input.sessionID, tool, [item])
        }),
        askAll: Effect.fn("Permission.askAll")(function*(input: AskAllInput) {
          yield* Effect.annotateCurrentSpan({
            permission: input.requests.map((r) => r.permission).join(", "),
            sessionID: input.sessionID
          })
          return yield* askItems(state, input.sessionID, input.tool, input.requests)
        }),
        reply: (input) => reply(state, input),
        pending: Effect.sync(() => [...pending.values()].map((p) => p.request)).pipe(
          Effect.withSpan("Permission.pending")
        ),
        asks: asks(state),
        settled: Effect.fn("Permission.settled")(function*(requestID: string) {
          const entry = pending.get(requestID)
          if (entry !== undefined) yield* Deferred.await(entry.gone)
        }),
        evaluate: Effect.fn("Permission.evaluate")(function*(
          permission: string,
          pattern: string,
          extra?: Ruleset | undefined,
          sessionID?: string | undefined
        ) {
          return decide(state, sessionID, permission, pattern, extra)
        }),
        explain: Effect.fn("Permission.explain")(function*(input: AskInput) {
          return explainItems(state, input.sessionID, [input])
        }),
        rules: state.rules
      })
    })
  )

/** What the parts of a running Permission share. */
interface State {
  readonly events: Events["Service"]
  readonly rules: Ruleset
  readonly matching: Wildcard.Options
  readonly unattended: NonNullable<LayerOptions["unattended"]>
  // Plain maps: every read-modify-write below runs without a yield in between, so it is atomic.
  readonly pending: Map<string, Pending>
  readonly published: PubSub.PubSub<Request>
  readonly approved: Map<string, Array<Rule>>
  counter: number
}

const remove = ({ pending }: State, id: string) => {
  const entry = pending.get(id)
  if (entry === undefined) return
  pending.delete(id)
  Deferred.doneUnsafe(entry.gone, Effect.void)
}

const decide = (
  state: State,
  sessionID: string | undefined,
  permission: string,
  pattern: string,
  extra: Ruleset | undefined,
  alwaysAsk = false
): Decision => {
  const { matching } = state
  if (alwaysAsk) {
    const decided = decide(state, undefined, permission, pattern, extra)
    return decided.action === "allow" ? { ...decided, action: "ask", source: "always-ask" } : decided
  }
  const own = PermissionRules.evaluateWith(matching, permission, pattern, extra)
  const decided = own.rule !== undefined
    ? { ...own, source: "ruleset" as const }
    : { ...PermissionRules.evaluateWith(matching, permission, pattern, state.rules), source: "rules" as const }
  if (decided.action === "ask" && sessionID !== undefined) {
    const approval = PermissionRules.evaluateWith(matching, permission, pattern, state.approved.get(sessionID))
    if (approval.rule !== undefined) return { permission, pattern, ...approval, source: "approval" }
  }
  return decided.rule === undefined
    ? { permission, pattern, action: "ask", rule: undefined }
    : { permission, pattern, ...decided }
}

const explainItems = (state: State, sessionID: string, items: ReadonlyArray<Item>): Explanation => {
  const decisions = items.flatMap((item) =>
    item.patterns.map((p) => decide(state, sessionID, item.permission, p, item.ruleset, item.alwaysAsk === true))
  )
  return { action: combine(decisions), decisions }
}

// per_<ms><counter><random>: sorts by creation within an instance, unique across instances.
const nextID = (state: State) =>
  Effect.gen(function*() {
    const ms = yield* Clock.currentTimeMillis
    const rand = yield* Random.nextIntBetween(0, 36 ** 6)
    state.counter++
    return `per_${ms.toString(16).padStart(12, "0")}${state.counter.toString(16).padStart(6, "0")}${
      rand.toString(36).padStart(6, "0")
    }`
  })

const asked = ({ events }: State, request: Request) =>
  events.publish({
    _tag: "PermissionAsked",
    id: request.id,
    sessionID: request.sessionID,
    permission: request.permission,
    patterns: request.patterns,
    requests: request.requests.map((r) => ({ permission: r.permission, patterns: r.patterns }))
  })

const replied = ({ events }: State, request: Request, reply: Reply) =>
  events.publish({ _tag: "PermissionReplied", id: request.id, sessionID: request.sessionID, reply })

const rejection = (request: Request, feedback?: string | undefined) =>
  new PermissionRejectedError({
    requestID: request.id,
    permission: request.permission,
    patterns: [...request.patterns],
    ...(feedback === undefined || feedback === "" ? {} : { feedback })
  })

const ofSession = ({ pending }: State, sessionID: string) => [...pending.values()].filter((p) => p.request.sessionID === sessionID)

// Every request of the call is decided before anything is asked: a deny fails at once, with
// no prompt and nothing left pending; what is left at `ask` goes out as one request.
const askItems = Effect.fnUntraced(function*(
  state: State,
  sessionID: string,
  tool: AskInput["tool"],
  items: ReadonlyArray<Item>
) {
  const explanation = explainItems(state, sessionID, items)
  const denied = explanation.decisions.find((d) => d.action === "deny")
  if (denied !== undefined && denied.rule !== undefined) {
    return yield* new PermissionDeniedError({
      permission: denied.permission,
      pattern: denied.pattern,
      rule: { permission: denied.rule.permission, pattern: denied.rule.pattern, action: denied.rule.action }
    })
  }
  if (explanation.action === "allow") return
  const open = items.filter((item) => explainItems(state, sessionID, [item]).action === "ask")
  const request: Request = { ...summarise(sessionID, tool, open), id: yield* nextID(state) }
  const { unattended } = state
  if (unattended !== "wait") {
    // Still published, so UIs and audit logs see what was decided without a responder.
    yield* asked(state, request)
    yield* replied(state, request, unattended === "allow" ? "once" : "reject")
    if (unattended === "allow") return
    return yield* rejection(request, unattendedFeedback(explanation.decisions))
  }
  const deferred = yield* Deferred.make<void, PermissionRejectedError>()
  const gone = yield* Deferred.make<void>()
  // The finalizer is in place before the entry exists, so interruption never leaves it behind.
  return yield* Effect.sync(() => state.pending.set(request.id, { request, deferred, gone })).pipe(
    Effect.andThen(asked(state, request)),
    Effect.andThen(PubSub.publish(state.published, request)),
    Effect.andThen(Deferred.await(deferred)),
    Effect.ensuring(Effect.sync(() => remove(state, request.id)))
  )
})

const reply = Effect.fn("Permission.reply")(function*(state: State, input: {
  readonly requestID: string
  readonly reply: Reply
  readonly message?: string | undefined
}) {
  const { pending } = state
  const entry = pending.get(input.requestID)
  if (entry === undefined) return false
  const { request } = entry
  remove(state, request.id)
  yield* Effect.annotateCurrentSpan({ requestID: request.id, reply: input.reply })
  yield* replied(state, request, input.reply)
  if (input.reply === "reject") {
    // The user stopped this session: its other asks are rejected too (other sessions keep
    // waiting). Those pending now: an ask made once the rejected call has woken is a new one.
    const others = ofSession(state, request.sessionID)
    yield* Deferred.fail(entry.deferred, rejection(request, input.message))
    for (const other of others) {
      if (!pending.has(other.request.id)) continue
      remove(state, other.request.id)
      yield* replied(state, other.request, "reject")
      yield* Deferred.fail(other.deferred, rejection(other.request))
    }
    return true
  }
  if (input.reply === "always") {
    // Exactly the patterns the tool proposed (or the asked ones): never a broader `*`.
    const list = state.approved.get(request.sessionID) ?? []
    for (const item of request.requests) {
      for (const pattern of item.always ?? item.patterns) list.push({ permission: item.permission, pattern, action: "allow" })
    }
    state.approved.set(request.sessionID, list)
  }
  yield* Deferred.succeed(entry.deferred, undefined)
  if (input.reply === "always") {
    for (const other of ofSession(state, request.sessionID)) {
      if (explainItems(state, other.request.sessionID, other.request.requests).action !== "allow") continue
      remove(state, other.request.id)
      yield* replied(state, other.request, "always")
      yield* Deferred.succeed(other.deferred, undefined)
    }
  }
  return true
})

// Subscribed before the snapshot is taken, so no request falls between the two; one in
// both comes out once. A request settled before its turn is skipped.
const asks = ({ pending, published }: State): Stream.Stream<Request> =>
  Stream.unwrap(Effect.gen(function*() {
    const subscription = yield* PubSub.subscribe(published)
    const snapshot = [...pending.values()].map((p) => p.request)
    const early = new Set(snapshot.map((r) => r.id))
    return Stream.concat(
      Stream.fromIterable(snapshot),
      Stream.fromSubscription(subscription).pipe(Stream.filter((request) => !early.delete(request.id)))
    ).pipe(Stream.filter((request) => pending.has(request.id)))
  }))
