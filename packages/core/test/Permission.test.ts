import { assert, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import * as Events from "../src/Events.ts"
import * as Permission from "../src/Permission.ts"
import type { AskInput, Ruleset } from "../src/Permission.ts"

const rules: Ruleset = [
  { permission: "*", pattern: "*", action: "ask" },
  { permission: "read", pattern: "*", action: "allow" },
  { permission: "bash", pattern: "git status *", action: "allow" },
  { permission: "bash", pattern: "rm *", action: "deny" }
]

const provide = (options: Permission.LayerOptions = { rules }) =>
  Effect.provide(Permission.layer(options).pipe(Layer.provideMerge(Events.layer())))

const bash = (sessionID: string, ...patterns: Array<string>): AskInput => ({ sessionID, permission: "bash", patterns })

/** Waits on the published asks until `n` were asked (asks run in forked fibers); then what is pending. */
const pendingAtLeast = (n: number) =>
  Effect.gen(function*() {
    const permission = yield* Permission.Permission
    yield* Stream.runDrain(Stream.take(permission.asks, n))
    return yield* permission.pending
  })

const askInBackground = (input: AskInput) =>
  Effect.gen(function*() {
    const permission = yield* Permission.Permission
    return yield* permission.ask(input).pipe(Effect.forkChild)
  })

describe("Permission.ask", () => {
  it.effect("allowed patterns return at once; nothing is pending", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      yield* permission.ask(bash("s1", "git status", "git status -s"))
      yield* permission.ask({ sessionID: "s1", permission: "read", patterns: ["/etc/hosts"] })
      yield* permission.ask(bash("s1"))
      expect(yield* permission.pending).toEqual([])
    }).pipe(provide()))

  it.effect("any denied pattern fails at once with the deciding rule, even next to an ask", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const error = yield* Effect.flip(permission.ask(bash("s1", "ls", "rm -rf /")))
      assert.instanceOf(error, Permission.PermissionDeniedError)
      expect(error.message).toBe(
        `A permission rule prevents this tool call: bash "rm -rf /" is denied by the rule {"permission":"bash","pattern":"rm *","action":"deny"}.`
      )
      expect(error.rule).toEqual({ permission: "bash", pattern: "rm *", action: "deny" })
      expect(yield* permission.pending).toEqual([])
    }).pipe(provide()))

  it.effect("an ask waits; reply once resolves it; a second reply finds nothing", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askInBackground({
        ...bash("s1", "ls", "git status"),
        tool: { name: "bash", callID: "call-1" },
        metadata: { command: "ls && git status" }
      })
      const [request] = yield* pendingAtLeast(1)
      assert.isDefined(request)
      expect(request.id).toMatch(/^per_[0-9a-f]{18}[0-9a-z]{6}$/)
      expect(request.patterns).toEqual(["ls", "git status"])
      expect(request.tool).toEqual({ name: "bash", callID: "call-1" })
      expect(yield* permission.reply({ requestID: request.id, reply: "once" })).toBe(true)
      yield* Fiber.join(fiber)
      expect(yield* permission.pending).toEqual([])
      expect(yield* permission.reply({ requestID: request.id, reply: "once" })).toBe(false)
      expect(yield* permission.reply({ requestID: "per_unknown", reply: "reject" })).toBe(false)
      // once stores nothing: the same ask waits again
      const again = yield* askInBackground(bash("s1", "ls"))
      yield* pendingAtLeast(1)
      yield* Fiber.interrupt(again)
    }).pipe(provide()))

  it.effect("ids sort by creation", () =>
    Effect.gen(function*() {
      yield* askInBackground(bash("s1", "a"))
      yield* askInBackground(bash("s1", "b"))
      yield* askInBackground(bash("s1", "c"))
      const ids = (yield* pendingAtLeast(3)).map((r) => r.id)
      expect([...ids].sort()).toEqual(ids)
      expect(new Set(ids).size).toBe(3)
    }).pipe(provide()))

  it.effect("interrupting the asking fiber removes the pending request", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askInBackground(bash("s1", "ls"))
      const [request] = yield* pendingAtLeast(1)
      yield* Fiber.interrupt(fiber)
      expect(yield* permission.pending).toEqual([])
      expect(yield* permission.reply({ requestID: request!.id, reply: "once" })).toBe(false)
    }).pipe(provide()))

  it.effect("closing the layer rejects what still waits", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(Permission.layer({ rules }).pipe(Layer.provide(Events.layer())), scope)
      const permission = Context.get(context, Permission.Permission)
      const fiber = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      yield* Stream.runHead(permission.asks)
      yield* Scope.close(scope, Exit.void)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error._tag).toBe("PermissionRejectedError")
    }))
})

describe("Permission.reply", () => {
  it.effect("reject fails the ask; a message becomes feedback", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const plain = yield* askInBackground(bash("s1", "ls"))
      const [r1] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r1!.id, reply: "reject" })
      const e1 = yield* Effect.flip(Fiber.join(plain))
      assert.instanceOf(e1, Permission.PermissionRejectedError)
      expect(e1.message).toBe("The user rejected permission to use this specific tool call.")
      expect(e1.requestID).toBe(r1!.id)
      expect(e1.patterns).toEqual(["ls"])

      const corrected = yield* askInBackground(bash("s1", "npm publish"))
      const [r2] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r2!.id, reply: "reject", message: "use pnpm, not npm" })
      const e2 = yield* Effect.flip(Fiber.join(corrected))
      assert.instanceOf(e2, Permission.PermissionRejectedError)
      expect(e2.message).toBe(
        "The user rejected permission to use this specific tool call with the following feedback: use pnpm, not npm"
      )
      expect(e2.feedback).toBe("use pnpm, not npm")
    }).pipe(provide()))

  it.effect("reject cascades to the other asks of the same session only", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const a1 = yield* askInBackground(bash("A", "ls"))
      yield* pendingAtLeast(1)
      const a2 = yield* askInBackground(bash("A", "pwd"))
      yield* pendingAtLeast(2)
      const b1 = yield* askInBackground(bash("B", "ls"))
      const list = yield* pendingAtLeast(3)
      yield* permission.reply({ requestID: list[0]!.id, reply: "reject", message: "stop" })
      const rejected = yield* Effect.flip(Fiber.join(a1))
      assert.instanceOf(rejected, Permission.PermissionRejectedError)
      expect(rejected.feedback).toBe("stop")
      const cascaded = yield* Effect.flip(Fiber.join(a2))
      expect(cascaded.message).toBe("The user rejected permission to use this specific tool call.")
      const left = yield* permission.pending
      expect(left.map((r) => r.sessionID)).toEqual(["B"])
      yield* permission.reply({ requestID: left[0]!.id, reply: "once" })
      yield* Fiber.join(b1)
    }).pipe(provide()))

  it.effect("always approves later asks of the session (not other sessions) and resolves its pending ones", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const first = yield* askInBackground({ ...bash("A", "npm test"), always: ["npm test *"] })
      yield* pendingAtLeast(1)
      const sameSession = yield* askInBackground(bash("A", "npm test --watch"))
      yield* pendingAtLeast(2)
      const stillAsks = yield* askInBackground(bash("A", "npm test", "ls"))
      yield* pendingAtLeast(3)
      const otherSession = yield* askInBackground(bash("B", "npm test"))
      const list = yield* pendingAtLeast(4)
      yield* permission.reply({ requestID: list[0]!.id, reply: "always" })
      yield* Fiber.join(first)
      yield* Fiber.join(sameSession) // now fully allowed: resolved without its own reply
      const left = yield* permission.pending
      expect(left.map((r) => [r.sessionID, r.patterns])).toEqual([["A", ["npm test", "ls"]], ["B", ["npm test"]]])
      // later asks in A are allowed at once; B still has to ask
      yield* permission.ask(bash("A", "npm test"))
      expect((yield* permission.evaluate("bash", "npm test", undefined, "A")).source).toBe("approval")
      expect((yield* permission.evaluate("bash", "npm test", undefined, "B")).action).toBe("ask")
      expect((yield* permission.evaluate("bash", "npm test")).action).toBe("ask")
      for (const r of left) yield* permission.reply({ requestID: r.id, reply: "once" })
      yield* Fiber.join(stillAsks)
      yield* Fiber.join(otherSession)
    }).pipe(provide()))

  it.effect("always is never broader than what was asked", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const ls = yield* askInBackground({ ...bash("s1", "ls -la"), always: ["ls *"] })
      const [r1] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r1!.id, reply: "always" })
      yield* Fiber.join(ls)
      yield* permission.ask(bash("s1", "ls src"))
      yield* permission.ask(bash("s1", "ls"))
      expect((yield* permission.explain(bash("s1", "lsof"))).action).toBe("ask")
      // no `always` given: exactly the asked patterns are approved
      const push = yield* askInBackground(bash("s1", "git push"))
      const [r2] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r2!.id, reply: "always" })
      yield* Fiber.join(push)
      yield* permission.ask(bash("s1", "git push"))
      expect((yield* permission.explain(bash("s1", "git push --force"))).action).toBe("ask")
    }).pipe(provide()))

  it.effect("a session approval never overrides a deny rule", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const any = yield* askInBackground({ ...bash("s1", "make"), always: ["*"] })
      const [r] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r!.id, reply: "always" })
      yield* Fiber.join(any)
      yield* permission.ask(bash("s1", "make install"))
      const error = yield* Effect.flip(permission.ask(bash("s1", "rm -rf build")))
      expect(error._tag).toBe("PermissionDeniedError")
    }).pipe(provide()))
})

describe("Permission unattended", () => {
  it.effect("reject: an ask fails at once, naming the missing responder and the rule", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const error = yield* Effect.flip(permission.ask(bash("s1", "git status", "make", "ls")))
      assert.instanceOf(error, Permission.PermissionRejectedError)
      expect(error.message).toBe(
        "The user rejected permission to use this specific tool call with the following feedback: " +
          `No permission responder is configured (unattended mode "reject"), so this request was rejected: ` +
          `bash "make" needs approval, rule * "*" → ask (configured); bash "ls" needs approval, rule * "*" → ask (configured)`
      )
      expect(yield* permission.pending).toEqual([])
      yield* permission.ask(bash("s1", "git status")) // allowed asks are unaffected
    }).pipe(provide({ rules, unattended: "reject" })))

  it.effect("allow: asks pass, denies still fail", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      yield* permission.ask(bash("s1", "make"))
      expect((yield* Effect.flip(permission.ask(bash("s1", "rm x"))))._tag).toBe("PermissionDeniedError")
    }).pipe(provide({ rules, unattended: "allow" })))
})

describe("Permission events", () => {
  it.effect("asked and replied are published", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const events = yield* Events.Events
      // subscribe before acting: startImmediately runs the fiber up to its PubSub subscription
      const collector = yield* events.subscribe.pipe(Stream.take(4), Stream.runCollect, (e) =>
        Effect.forkChild(e, { startImmediately: true }))
      yield* Effect.yieldNow
      const fiber = yield* askInBackground(bash("s1", "ls"))
      const [r1] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r1!.id, reply: "always" })
      yield* Fiber.join(fiber)
      const other = yield* askInBackground(bash("s2", "pwd"))
      const [r2] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: r2!.id, reply: "reject" })
      yield* Effect.flip(Fiber.join(other))
      expect(yield* Fiber.join(collector)).toEqual([
        {
          _tag: "PermissionAsked",
          id: r1!.id,
          sessionID: "s1",
          permission: "bash",
          patterns: ["ls"],
          requests: [{ permission: "bash", patterns: ["ls"] }]
        },
        { _tag: "PermissionReplied", id: r1!.id, sessionID: "s1", reply: "always" },
        {
          _tag: "PermissionAsked",
          id: r2!.id,
          sessionID: "s2",
          permission: "bash",
          patterns: ["pwd"],
          requests: [{ permission: "bash", patterns: ["pwd"] }]
        },
        { _tag: "PermissionReplied", id: r2!.id, sessionID: "s2", reply: "reject" }
      ])
    }).pipe(provide()))
})

describe("Permission.explain", () => {
  it.effect("returns the deciding rule per pattern and asks nothing", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const extra: Ruleset = [{ permission: "bash", pattern: "make *", action: "allow" }]
      const explanation = yield* permission.explain({
        ...bash("s1", "git status", "make", "ls", "rm -rf /"),
        ruleset: extra
      })
      expect(explanation.action).toBe("deny")
      expect(explanation.decisions).toEqual([
        { permission: "bash", pattern: "git status", action: "allow", rule: rules[2], source: "rules" },
        { permission: "bash", pattern: "make", action: "allow", rule: extra[0], source: "ruleset" },
        { permission: "bash", pattern: "ls", action: "ask", rule: rules[0], source: "rules" },
        { permission: "bash", pattern: "rm -rf /", action: "deny", rule: rules[3], source: "rules" }
      ])
      expect(yield* permission.pending).toEqual([])
      expect(Permission.explainText(explanation)).toBe([
        `allow bash "git status": rule bash "git status *" → allow (configured)`,
        `allow bash "make": rule bash "make *" → allow (rule of this call)`,
        `ask bash "ls": rule * "*" → ask (configured)`,
        `deny bash "rm -rf /": rule bash "rm *" → deny (configured)`
      ].join("\n"))
    }).pipe(provide()))

  it.effect("no rule: ask with rule undefined", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const explanation = yield* permission.explain({ sessionID: "s1", permission: "edit", patterns: ["a.ts"] })
      expect(explanation).toEqual({
        action: "ask",
        decisions: [{ permission: "edit", pattern: "a.ts", action: "ask", rule: undefined }]
      })
      expect(Permission.explainText(explanation)).toBe(`ask edit "a.ts": no rule matched (default: ask)`)
      expect(Permission.explainText({ action: "allow", decisions: [] })).toBe("allow: nothing to check")
      expect(permission.rules).toEqual([])
    }).pipe(provide({})))

  it.effect("1000 evaluations through the service are identical", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const first = yield* permission.evaluate("bash", "rm -rf build")
      for (let i = 0; i < 1000; i++) expect(yield* permission.evaluate("bash", "rm -rf build")).toEqual(first)
      expect(first.action).toBe("deny")
    }).pipe(provide()))
})

describe("Permission.askAll", () => {
  const call = (sessionID: string): Permission.AskAllInput => ({
    sessionID,
    tool: { name: "bash", callID: "c1" },
    requests: [
      { permission: "external_directory", patterns: ["/etc/*"], always: ["/etc/*"] },
      { permission: "edit", patterns: ["a.txt"], always: ["a.txt"] },
      { permission: "bash", patterns: ["git status", "touch a.txt"], always: ["touch *"] }
    ]
  })
  const askAllInBackground = (input: Permission.AskAllInput) =>
    Permission.Permission.use((permission) => permission.askAll(input).pipe(Effect.forkChild))

  it.effect("any deny refuses at once: nothing is asked, nothing is published", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const events = yield* Events.Events
      const seen = yield* events.subscribe.pipe(Stream.take(1), Stream.runCollect, (e) => Effect.forkChild(e, { startImmediately: true }))
      yield* Effect.yieldNow
      const input = call("s1")
      const error = yield* Effect.flip(permission.askAll({
        ...input,
        requests: [...input.requests, { permission: "bash", patterns: ["rm -rf x"] }]
      }))
      assert.instanceOf(error, Permission.PermissionDeniedError)
      expect(error.pattern).toBe("rm -rf x")
      expect(yield* permission.pending).toEqual([])
      // The next ask is the first event: the deny published nothing.
      yield* askInBackground(bash("s1", "ls"))
      const [first] = yield* Fiber.join(seen)
      expect(first).toMatchObject({ _tag: "PermissionAsked", permission: "bash", patterns: ["ls"] })
    }).pipe(provide()))

  it.effect("every ask of the call is one pending request; allowed requests are left out", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askAllInBackground(call("s1"))
      const [request, ...others] = yield* pendingAtLeast(1)
      expect(others).toEqual([])
      expect(request!.permission).toBe("external_directory, edit, bash")
      expect(request!.patterns).toEqual(["/etc/*", "a.txt", "git status", "touch a.txt"])
      expect(request!.requests.map((r) => r.permission)).toEqual(["external_directory", "edit", "bash"])
      expect(request!.tool).toEqual({ name: "bash", callID: "c1" })
      yield* permission.reply({ requestID: request!.id, reply: "once" })
      yield* Fiber.join(fiber)

      // With bash allowed by rule, only the other two are asked.
      const partial = yield* askAllInBackground({ ...call("s1"), requests: call("s1").requests.slice(0, 2) })
      const [second] = yield* pendingAtLeast(1)
      expect(second!.requests.map((r) => r.permission)).toEqual(["external_directory", "edit"])
      yield* permission.reply({ requestID: second!.id, reply: "once" })
      yield* Fiber.join(partial)
      const readOnly = yield* askAllInBackground({ sessionID: "s1", requests: [{ permission: "read", patterns: ["/x"] }] })
      expect(Exit.isSuccess(yield* Fiber.await(readOnly))).toBe(true)
    }).pipe(provide()))

  it.effect("one PermissionAsked event per prompt, with every request and pattern", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const events = yield* Events.Events
      const collector = yield* events.subscribe.pipe(Stream.take(2), Stream.runCollect, (e) =>
        Effect.forkChild(e, { startImmediately: true }))
      yield* Effect.yieldNow
      const fiber = yield* askAllInBackground(call("s1"))
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "once" })
      yield* Fiber.join(fiber)
      expect(yield* Fiber.join(collector)).toEqual([
        {
          _tag: "PermissionAsked",
          id: request!.id,
          sessionID: "s1",
          permission: "external_directory, edit, bash",
          patterns: ["/etc/*", "a.txt", "git status", "touch a.txt"],
          requests: [
            { permission: "external_directory", patterns: ["/etc/*"] },
            { permission: "edit", patterns: ["a.txt"] },
            { permission: "bash", patterns: ["git status", "touch a.txt"] }
          ]
        },
        { _tag: "PermissionReplied", id: request!.id, sessionID: "s1", reply: "once" }
      ])
    }).pipe(provide()))

  it.effect("always stores every request's always patterns; the same call then asks nothing", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askAllInBackground(call("s1"))
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "always" })
      yield* Fiber.join(fiber)
      yield* permission.askAll(call("s1"))
      expect(yield* permission.pending).toEqual([])
      for (const [p, pattern] of [["external_directory", "/etc/*"], ["edit", "a.txt"], ["bash", "touch b.txt"]] as const) {
        expect((yield* permission.evaluate(p, pattern, undefined, "s1")).source).toBe("approval")
      }
      expect((yield* permission.evaluate("edit", "b.txt", undefined, "s1")).action).toBe("ask")
    }).pipe(provide()))

  it.effect("reject refuses the whole call with every pattern named", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const fiber = yield* askAllInBackground(call("s1"))
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "reject", message: "not now" })
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, Permission.PermissionRejectedError)
      expect(error.permission).toBe("external_directory, edit, bash")
      expect(error.patterns).toEqual(["/etc/*", "a.txt", "git status", "touch a.txt"])
      expect(error.feedback).toBe("not now")
      expect((yield* permission.evaluate("edit", "a.txt", undefined, "s1")).action).toBe("ask")
    }).pipe(provide()))

  it.effect("unattended reject publishes the one prompt and names each pattern that needed approval", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const error = yield* Effect.flip(permission.askAll(call("s1")))
      assert.instanceOf(error, Permission.PermissionRejectedError)
      expect(error.feedback).toContain(`edit "a.txt" needs approval`)
      expect(error.feedback).toContain(`bash "touch a.txt" needs approval`)
      expect(error.feedback).not.toContain(`"git status" needs`)
    }).pipe(provide({ rules, unattended: "reject" })))
})

describe("Permission alwaysAsk", () => {
  const editAllowed: Ruleset = [
    { permission: "*", pattern: "*", action: "allow" },
    { permission: "edit", pattern: "*", action: "allow" },
    { permission: "edit", pattern: "secret/*", action: "deny" }
  ]

  it.effect("asks even when a rule or an approval allows; a deny still denies", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const guarded = { sessionID: "s", permission: "edit", patterns: [".git/config"], always: [], alwaysAsk: true }
      const explained = yield* permission.explain(guarded)
      assert.strictEqual(explained.action, "ask")
      assert.strictEqual(explained.decisions[0]?.source, "always-ask")
      assert.include(Permission.explainText(explained), "always asked (a protected control file); rule edit \"*\" → allow does not apply")
      const plain = yield* permission.explain({ ...guarded, alwaysAsk: undefined })
      assert.strictEqual(plain.action, "allow")
      const denied = yield* permission.explain({ ...guarded, patterns: ["secret/x"] })
      assert.strictEqual(denied.action, "deny")

      // An "always" reply to another edit approves it for the session, never the protected one.
      const fiber = yield* askInBackground({ sessionID: "s", permission: "edit", patterns: [".git/config"], always: ["*"], alwaysAsk: true })
      const [request] = yield* pendingAtLeast(1)
      yield* permission.reply({ requestID: request!.id, reply: "always" })
      yield* Fiber.join(fiber)
      assert.strictEqual((yield* permission.explain(guarded)).action, "ask")
    }).pipe(provide({ rules: editAllowed })))
})

describe("Permission.asks", () => {
  it.effect("a stream of the requests that wait: those pending when it starts, then each new one, once each", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const first = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      yield* pendingAtLeast(1)
      const seen: Array<string> = []
      const taking = yield* permission.asks.pipe(
        Stream.take(3),
        Stream.runForEach((r) => Effect.sync(() => seen.push(r.patterns.join(" ")))),
        Effect.forkChild
      )
      const second = yield* permission.ask(bash("s1", "make")).pipe(Effect.forkChild)
      const third = yield* permission.ask(bash("s2", "npm test")).pipe(Effect.forkChild)
      yield* Fiber.join(taking)
      expect(seen).toEqual(["ls", "make", "npm test"])
      for (const r of yield* permission.pending) yield* permission.reply({ requestID: r.id, reply: "once" })
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      yield* Fiber.join(third)
    }).pipe(provide()))

  it.effect("a request settled before its turn is skipped; `settled` returns once a request is answered", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const gone = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      const [request] = yield* pendingAtLeast(1)
      const waiting = yield* permission.settled(request!.id).pipe(Effect.forkChild)
      yield* Fiber.interrupt(gone)
      yield* Fiber.join(waiting)
      const kept = yield* permission.ask(bash("s1", "make")).pipe(Effect.forkChild)
      const [next] = yield* Stream.runCollect(Stream.take(permission.asks, 1))
      expect(next!.patterns).toEqual(["make"])
      yield* permission.reply({ requestID: next!.id, reply: "once" })
      yield* Fiber.join(kept)
      // Unknown or answered: at once.
      yield* permission.settled(next!.id)
    }).pipe(provide()))

  it.effect("a reject rejects the session's asks pending at that moment, not one asked once the rejected call woke", () =>
    Effect.gen(function*() {
      const permission = yield* Permission.Permission
      const rejected = yield* permission.ask(bash("s1", "ls")).pipe(Effect.forkChild)
      const [request] = yield* pendingAtLeast(1)
      // The rejected call asks again as soon as it wakes (a retry), before the reply has finished.
      const retry = yield* Fiber.await(rejected).pipe(Effect.andThen(permission.ask(bash("s1", "make"))), Effect.forkChild)
      yield* permission.reply({ requestID: request!.id, reply: "reject" })
      const [again] = yield* Stream.runCollect(Stream.take(permission.asks, 1))
      expect(again!.patterns).toEqual(["make"])
      yield* permission.reply({ requestID: again!.id, reply: "once" })
      yield* Fiber.join(retry)
    }).pipe(provide()))
})
